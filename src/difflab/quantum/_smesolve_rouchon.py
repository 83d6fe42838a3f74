r"""`Rouchon`: a step of the stochastic master equation that keeps $\rho$ a density matrix (positive, unit trace).

Rouchon & Ralph's scheme (Phys. Rev. A 91, 012118, 2015) writes one step as a completely positive map of $\rho$,
normalised. With the records' operators $c_r = \sqrt{\eta_r}\,L_r$ (a heterodyne channel gives two,
$\sqrt{\eta/2}\,L$ and $-i\sqrt{\eta/2}\,L$), their increments over a step $\Delta t$,

$$ \Delta y_r = \mathrm{tr}(c_r\rho + \rho c_r^\dagger)\,\Delta t + \Delta W_r, $$

the generator $G(t) = -iH(t) - \tfrac12\sum_k L_k^\dagger L_k$ at the step's start, and

$$ M = I + G\,\Delta t + \sum_r c_r\,\Delta y_r
     + \tfrac12 \sum_{r,s} c_r c_s\,(\Delta y_r \Delta y_s - \delta_{rs}\,\Delta t), $$

the step is

$$ \rho' = \frac{M\rho M^\dagger + \sum_k (1 - \eta_k)\,L_k \rho L_k^\dagger\,\Delta t}
               {\mathrm{tr}\big(M\rho M^\dagger + \sum_k (1 - \eta_k)\,L_k \rho L_k^\dagger\,\Delta t\big)}, $$

where $\eta_k$ is the efficiency with which $L_k$ is detected (0 when it is not). Numerator and denominator are
positive whatever $\Delta t$ and the noise, so in exact arithmetic every trajectory stays in the set of density
matrices. In floating point each step is positive to round-off, and round-off stays there as long as the step
resolves the generator: where $|1 + \lambda\,\Delta t| > 1$ for an eigenvalue $\lambda$ of $G$ (a level whose
frequency $\omega$ has $\omega\Delta t$ of order 1 and little damping), the round-off in an empty level grows
by that factor every step relative to the populated ones, as any explicit step's error does. The default step
(1 % of $1/(\|H\| + \sum_k\|L_k\|^2)$) resolves it; `smesolve` warns about a final state that is not positive.
Expanded to order $\Delta t$ with $\Delta W_r \Delta W_s \to \delta_{rs}\Delta t$ it is the Itô equation of
`smesolve` (the normalisation supplies $-\mathrm{tr}(\cdot)\rho$ of $\mathcal{H}$), so the averages converge to the
Lindblad equation's with weak order 1, as Euler–Maruyama and Milstein do. The last term of $M$ is Milstein's
correction written inside the Kraus operator: for one channel whose $L$ commutes with $H$ the step then follows the
exact filter to $O(\Delta t)$ along each trajectory, where Euler–Maruyama's error is $O(\sqrt{\Delta t})$.

The records integrate the same $\Delta y_r$ as the state uses: $Y_r \leftarrow Y_r + \Delta y_r$.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array

from ._complex import as_complex
from ._drives import Controls


class KrausOperators(eqx.Module):
    r"""The operators of one stochastic master equation, as `Rouchon` reads them from the solve's `args`.

    Complex operators are held as their real and imaginary parts stacked on a leading axis of 2: diffrax warns about
    complex leaves in a solve's `args`.

    Attributes:
        G0: $-iH_0 - \frac12\sum_k L_k^\dagger L_k$ (2, n, n), the generator without the drives.
        drive_ops: the drives' operators $H_j$ (2, d, n, n); `controls` their amplitudes $u_j(t)$.
        jumps: every $L_k$ (2, k, n, n).
        unread: $1 - \eta_k$ (k,), the part of each channel that is not detected (1 when it is not measured).
        records: the records' operators $c_r = \sqrt{\eta_r}\,L_r$ (2, r, n, n).
    """

    G0: Array
    drive_ops: Array
    controls: Controls
    jumps: Array
    unread: Array
    records: Array

    def __init__(self, G0, drive_ops, controls, jumps, unread, records):
        """From the complex operators (n, n), (d, n, n), (k, n, n) and (r, n, n)."""
        self.G0, self.drive_ops, self.jumps, self.records = (
            jnp.stack([jnp.real(x), jnp.imag(x)]) for x in (G0, drive_ops, jumps, records)
        )
        self.controls, self.unread = controls, unread


def _complex(parts: Array) -> Array:
    return jax.lax.complex(parts[0], parts[1])


def generator(G0: Array, drive_ops: Array, controls: Controls, t) -> Array:
    r"""$G(t) = G_0 - i\sum_j u_j(t)\,H_j$, the generator of the unnormalised state at `t`."""
    u = controls(t).astype(G0.dtype)  # explicit: real amplitudes times complex operators
    return G0 - 1j * jnp.einsum("d,dij->ij", u, drive_ops)


def record_signal(c: Array, rho: Array) -> Array:
    r"""$\mathrm{tr}(c_r\rho + \rho c_r^\dagger)$ for each record operator $c_r$ (`rho` Hermitian)."""
    return 2 * jnp.real(jnp.einsum("rij,ji->r", c, rho))


def kraus_step(ops: KrausOperators, t, dt, y: Array, dW: Array) -> Array:
    r"""One Rouchon step of the real state $(\mathrm{Re}\,\rho, \mathrm{Im}\,\rho, Y)$ over $[t, t + dt]$."""
    G0, drive_ops, jumps, c = (_complex(x) for x in (ops.G0, ops.drive_ops, ops.jumps, ops.records))
    n, r = G0.shape[0], c.shape[0]
    n2 = n * n
    rho = jax.lax.complex(y[:n2], y[n2 : 2 * n2]).reshape(n, n)
    G = generator(G0, drive_ops, ops.controls, t)
    dy = record_signal(c, rho) * dt + dW
    second = jnp.outer(dy, dy) - dt * jnp.eye(r, dtype=dy.dtype)  # dy_r dy_s - delta_rs dt
    M = (
        jnp.eye(n, dtype=G.dtype)
        + G * as_complex(dt, G)
        + jnp.einsum("r,rij->ij", as_complex(dy, G), c)
        + 0.5 * jnp.einsum("rs,rij,sjl->il", as_complex(second, G), c, c)
    )
    lost = jnp.einsum("k,kij,jl,kml->im", as_complex(ops.unread * dt, G), jumps, rho, jnp.conj(jumps))
    new = M @ rho @ jnp.conj(M.T) + lost
    new = 0.5 * (new + jnp.conj(new.T))
    new = new / as_complex(jnp.real(jnp.trace(new)), new)
    return jnp.concatenate([jnp.real(new).ravel(), jnp.imag(new).ravel(), y[2 * n2 : 2 * n2 + r] + dy])


class Rouchon(diffrax.AbstractItoSolver):
    r"""Rouchon & Ralph's positivity-preserving step of `smesolve` (fixed steps; converges to the Itô solution).

    Each step is a normalised completely positive map of $\rho$ (module docstring), so every trajectory stays a
    density matrix: Hermitian, of unit trace and positive semidefinite to round-off, at any step that resolves the
    generator (module docstring; the default step does). It is
    `smesolve`'s default step; it reads the equation's operators from the solve's `args`, which only `smesolve`
    provides. Weak order 1, like `diffrax.Euler()` and `diffrax.ItoMilstein()`; gradients go through
    it as through them (the map is smooth in the operators, the efficiencies and $\rho$).
    """

    term_structure: ClassVar = diffrax.MultiTerm[tuple[diffrax.AbstractTerm, diffrax.AbstractTerm]]
    interpolation_cls: ClassVar[Callable[..., diffrax.LocalLinearInterpolation]] = diffrax.LocalLinearInterpolation

    def order(self, terms):
        return 1

    def strong_order(self, terms):
        return 0.5  # 1 for one channel whose L commutes with H (module docstring)

    def init(self, terms, t0, t1, y0, args) -> None:
        return None

    def step(self, terms, t0, t1, y0, args, solver_state, made_jump):
        del solver_state, made_jump
        if not isinstance(args, KrausOperators):
            raise TypeError(
                "Rouchon steps the stochastic master equation of smesolve, which passes its operators as args; got "
                f"args of type {type(args).__name__}"
            )
        drift, diffusion = terms.terms
        dt = drift.contr(t0, t1)
        y1 = kraus_step(args, t0, dt, y0, diffusion.contr(t0, t1))
        return y1, None, {"y0": y0, "y1": y1}, None, diffrax.RESULTS.successful

    def func(self, terms, t0, y0, args) -> Any:
        return terms.vf(t0, y0, args)
