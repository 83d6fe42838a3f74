r"""The objective of gate optimisation and the parametrisation that keeps the controls within their bounds.

**Bounds by construction.** The optimiser moves unbounded parameters; the amplitudes are

$$ u_{kj} = s_k\,\phi(z_{kj}), \qquad \phi = \tanh \text{ with an amplitude bound } s_k = u_{\max,k},
   \quad \phi(z) = z \text{ without one } (s_k = \pi/T), $$

so $|u_{kj}| < u_{\max,k}$ always. With a slew-rate bound $\sigma_k$ (rad/ns²) the $z$ are themselves a walk of
bounded steps, $z_{k,j+1} = z_{kj} + c_k \tanh(y_{kj})$ with $c_k = \sigma_k \Delta t / s_k$; since $|\phi'| \le 1$,
$|u_{k,j+1} - u_{kj}| \le s_k |z_{k,j+1} - z_{kj}| < \sigma_k \Delta t$: the slew bound holds exactly as well, with
no penalty weight to tune (the free parameters are then $z_{k0}$ and the $y_{kj}$).

**Objective.** For each detuning $\delta_e$ of the ensemble (default: only $\delta = 0$) the propagator of
$H_0 + \delta_e N + \sum_k u_k(t) H_k$ is the exact product of slice exponentials (`product_of_slices`); the loss is

$$ \mathcal{L} = \frac{1}{E}\sum_e \big[1 - F_\text{avg}(U_e)\big] + w_L \frac{1}{E}\sum_e L(U_e), $$

with $F_\text{avg}$ the average gate fidelity of the block on the computational subspace and $L$ its leakage
(`gate_fidelity`, `leakage`; Pedersen et al., Phys. Lett. A 367, 47 (2007)). $F_\text{avg}$ already counts leakage;
the weight $w_L$ pushes it further down than the fidelity alone would. The ensemble is vmapped.

**Open systems.** With jump operators the product is that of the slices' superoperators, the channel
(`channel_of_slices`), and $F_\text{avg}$, $L$ are the channel's (`channel_fidelity`, `channel_leakage`), which
equal the unitary ones when the rates vanish.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from ._channel_fidelity import channel_fidelity, channel_leakage
from ._fidelity import gate_fidelity, leakage
from ._piecewise_channel import channel_of_slices
from ._piecewise_controls import product_of_slices


class GateProblem(eqx.Module):
    """Everything the loss needs, as arrays (new values do not recompile); the structure is static."""

    H0: Array  # (n, n) complex, rad/ns
    operators: Array  # (k, n, n) complex
    target: Array  # (d, d) complex
    dt: Array  # (m,) ns
    detunings: Array  # (E,) rad/ns
    detuning_operator: Array  # (n, n) complex
    scale: Array  # (k, 1) rad/ns: u_max, or pi / T without a bound
    slew_step: Array | None  # (k, 1) c_k of the module docstring, None without a slew bound
    leakage_weight: Array
    dissipation: Array | None  # (n², n²) complex, 1/ns: the sum of the jump operators' dissipators; None if closed
    subspace: tuple[int, ...] | None = eqx.field(static=True)
    bounded: bool = eqx.field(static=True)


def amplitudes(params: dict[str, Array], problem: GateProblem) -> Float[Array, "controls slices"]:
    """The amplitudes $u_{kj}$ (rad/ns) of the free parameters (module docstring)."""
    if problem.slew_step is None:
        z = params["z"]
    else:
        walk = jnp.cumsum(problem.slew_step * jnp.tanh(params["y"]), axis=1)
        z = params["z0"] + jnp.concatenate([jnp.zeros_like(walk[:, :1]), walk], axis=1)
    return problem.scale * (jnp.tanh(z) if problem.bounded else z)


def parameters_of(u: Array, problem: GateProblem) -> dict[str, Array]:
    """The free parameters whose amplitudes are `u` (the inverse of `amplitudes`; `u` strictly within bounds)."""
    z = u / problem.scale
    z = jnp.arctanh(z) if problem.bounded else z
    if problem.slew_step is None:
        return {"z": z}
    return {"z0": z[:, :1], "y": jnp.arctanh(jnp.diff(z, axis=1) / problem.slew_step)}


def figures(u: Array, problem: GateProblem) -> tuple[Array, Array]:
    r"""Infidelity $1 - F_\text{avg}$ and leakage at each detuning of the ensemble, shape (E,) each."""

    def one(delta):
        H0 = problem.H0 + delta.astype(problem.H0.dtype) * problem.detuning_operator
        if problem.dissipation is None:
            U = product_of_slices(H0, problem.operators, u, problem.dt)
            return 1.0 - gate_fidelity(U, problem.target, problem.subspace), leakage_or_zero(U, problem.subspace)
        S = channel_of_slices(H0, problem.operators, u, problem.dt, problem.dissipation)
        leak = jnp.zeros((), S.real.dtype) if problem.subspace is None else channel_leakage(S, problem.subspace)
        return 1.0 - channel_fidelity(S, problem.target, problem.subspace), leak

    return jax.vmap(one)(problem.detunings)


def leakage_or_zero(U: Array, subspace: tuple[int, ...] | None) -> Array:
    """Leakage out of `subspace`; zero when the gate acts on the whole space."""
    if subspace is None:
        return jnp.zeros(U.shape[:-2], dtype=jnp.real(U).dtype)
    return leakage(U, subspace)


def loss(params: dict[str, Array], problem: GateProblem) -> tuple[Array, Array]:
    r"""$\mathcal{L}$ of the module docstring, and the mean infidelity (reported per step)."""
    infidelity, leak = figures(amplitudes(params, problem), problem)
    mean_infidelity = jnp.mean(infidelity)
    return mean_infidelity + problem.leakage_weight * jnp.mean(leak), mean_infidelity
