r"""Phase-space functions of a single mode: the Wigner function and the Husimi Q function.

Coordinates follow QuTiP: a point $(x, y)$ is the coherent amplitude $\alpha = g\,(x + i y)/2$, with $g = \sqrt 2$
by default ($\hbar = 2/g^2 = 1$ in $[x, y] = i\hbar$), and both functions are densities in $(x, y)$, so
$\iint W\,dx\,dy = \iint Q\,dx\,dy = 1$ (since $d^2\alpha = (g^2/4)\,dx\,dy$).

**Wigner.** $W(\alpha) = \tfrac{2}{\pi}\,\mathrm{Tr}[\rho\,D(\alpha) P D(\alpha)^\dagger]$ per unit $d^2\alpha$, with
$P = (-1)^{a^\dagger a}$ the parity (Royer, Phys. Rev. A 15, 449 (1977)). In the Fock basis, for $d \ge 0$
(Cahill & Glauber, Phys. Rev. 177, 1882 (1969)),

$$ \langle m{+}d|\,D P D^\dagger|m\rangle = E_m^d(\alpha) = (-1)^m \sqrt{\tfrac{m!}{(m+d)!}}\,(2\alpha)^d
   e^{-2|\alpha|^2} L_m^{(d)}(4|\alpha|^2), $$

so $W = \tfrac{2}{\pi}\,\mathrm{Re}\sum_{d \ge 0} (2 - \delta_{d0}) \sum_m \rho_{m, m+d}\,E_m^d$. The explicit
formula multiplies Laguerre values that grow like $t^m/m!$ by a Gaussian $e^{-t/2}$, which overflow and underflow
on their own for large $N$ and $|\alpha|$ ($t = 4|\alpha|^2$); instead the
$E_m^d$ themselves, matrix elements of a unitary and so bounded by 1, are run up in $m$ by the Laguerre recurrence
(Abramowitz & Stegun 22.7.12) in normalised form:

$$ E_{m+1}^d = -\frac{(2m + d + 1 - t)\,E_m^d + \sqrt{m(m+d)}\,E_{m-1}^d}{\sqrt{(m+1)(m+d+1)}}, \qquad
   E_0^d = e^{-t/2}\,\frac{(2\alpha)^d}{\sqrt{d!}}, $$

diagonal by diagonal. Writing $E_m^d = e^{id\theta} R_m^d$ ($\alpha = |\alpha| e^{i\theta}$), the coefficients are
real, so the recurrence runs on real $R$, started at $R_0^d = e^{-t/2}\,t^{d/2}/\sqrt{d!}$ (a Poisson amplitude,
by a running product over $d$), and the phase $e^{id\theta}$ turns by $\theta$ from one diagonal to the next. It
costs $N(N+1)/2$ steps of a few operations per point, as QuTiP's default `clenshaw` method, and is pure
`jax.numpy`: jit-able, vmap-able and differentiable. Reverse-mode gradients keep every step's values,
$\sim 3 N^2/2$ numbers per point: take gradients on small grids.

**Husimi Q.** $Q(\alpha) = \langle\alpha|\rho|\alpha\rangle/\pi$ per unit $d^2\alpha$, with
$\langle n|\alpha\rangle = e^{-|\alpha|^2/2}\alpha^n/\sqrt{n!}$ (Husimi, Proc. Phys.-Math. Soc. Jpn. 22, 264
(1940)); in $(x, y)$ units both carry the factor $g^2/4$, as QuTiP's `wigner` and `qfunc` do.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex, Float

from ..core.internal import is_concrete
from ._complex import as_complex, complex_dtype
from ._operator import check_numeric
from ._qutip import from_qutip, is_qobj

#: Largest |trace − 1| (|norm² − 1| for a ket) accepted: above a solver's drift at usual tolerances, far below a
#: state that was never normalised.
TRACE_ATOL = 1e-6
#: Largest max|ρ − ρ†| accepted, relative to max|ρ| (the Wigner function of a non-Hermitian matrix is not real).
HERMITIAN_RTOL = 1e-8

_STATE = "a ket (N,) or (N, 1) or a density matrix (N, N) in the Fock basis"


def wigner(
    state: Complex[ArrayLike, " N"] | Complex[ArrayLike, "N N"],
    xvec: Float[ArrayLike, " nx"],
    yvec: Float[ArrayLike, " ny"],
    *,
    g: float = math.sqrt(2.0),
) -> Float[Array, "ny nx"]:
    r"""Wigner function of a single-mode state on the grid `xvec` × `yvec` (QuTiP's `wigner`).

    Args:
        state: a ket (N,) or (N, 1), or a density matrix (N, N), in the Fock basis $|0\rangle \dots |N-1\rangle$
            (a QuTiP `Qobj` is converted); unit norm or trace.
        xvec: 1-D $x$ coordinates (dimensionless); the point $(x, y)$ is $\alpha = g\,(x + iy)/2$.
        yvec: 1-D $y$ coordinates (dimensionless).
        g: scale of the coordinates, $> 0$; $\hbar = 2/g^2$ (default $\sqrt 2$, $\hbar = 1$).

    Returns:
        `W[j, k]` at `(xvec[k], yvec[j])`, shape (len(yvec), len(xvec)), real, normalised to
        $\iint W\,dx\,dy = 1$; the vacuum gives $W = e^{-(x^2+y^2)}/\pi$ at $g = \sqrt 2$.

    Raises:
        ValueError: a state of another shape, not finite, non-Hermitian or of trace (norm) far from 1; `xvec` or
            `yvec` not 1-D or not finite; `g` not positive. Traced inputs (under `jit`, `vmap`, `grad`) are checked
            for shape only.
        TypeError: `state`, `xvec`, `yvec` or `g` is not numeric.

    Example:
        >>> import difflab.quantum as q, numpy as np
        >>> x = np.linspace(-3, 3, 61)
        >>> W = q.wigner(q.fock(10, 1), x, x)   # negative at the origin: W(0) = -1/π
    """
    rho, xs, ys, scale = _checked("wigner", state, xvec, yvec, g)
    return _wigner(rho, xs, ys, scale)


def qfunc(
    state: Complex[ArrayLike, " N"] | Complex[ArrayLike, "N N"],
    xvec: Float[ArrayLike, " nx"],
    yvec: Float[ArrayLike, " ny"],
    *,
    g: float = math.sqrt(2.0),
) -> Float[Array, "ny nx"]:
    r"""Husimi Q function $\frac{g^2}{4}\langle\alpha|\rho|\alpha\rangle/\pi$ on the grid (QuTiP's `qfunc`).

    Arguments, shape, orientation and errors as [`wigner`][difflab.quantum.wigner]; $Q \ge 0$ and
    $\iint Q\,dx\,dy = 1$. A coherent state $|\beta\rangle$ gives $Q = \frac{g^2}{4\pi} e^{-|\alpha - \beta|^2}$.
    """
    rho, xs, ys, scale = _checked("qfunc", state, xvec, yvec, g)
    return _qfunc(rho, xs, ys, scale)


@jax.jit
def _wigner(rho: Array, xvec: Array, yvec: Array, g: Array) -> Array:
    n = rho.shape[-1]
    x, y = (v.ravel() for v in jnp.meshgrid(0.5 * g * xvec, 0.5 * g * yvec))  # α = x + iy
    t = 4.0 * (x**2 + y**2)
    positive = t > 0
    root = jnp.where(positive, jnp.sqrt(jnp.where(positive, t, 1.0)), 0.0)  # sqrt with a finite gradient at 0
    safe = jnp.where(positive, root, 1.0)
    unit = (jnp.where(positive, 2.0 * x / safe, 1.0), jnp.where(positive, 2.0 * y / safe, 0.0))  # cos θ, sin θ
    m, d, coefficients = _triangle(n, t.dtype)
    # ρ_{m, m+d}, doubled for d > 0: the term of ρ_{m+d, m} = conj(ρ_{m, m+d}) is the conjugate, the real part the same
    entries = rho[m, m + d] * as_complex(np.where(d == 0, 1.0, 2.0), like=rho)

    def diagonal(state, k):
        """Start diagonal d = k: R_0^d = R_0^{d-1} sqrt(t/d), the phase e^{idθ} turned on by θ."""
        head, cos, sin, _, _ = state
        head = head * root / jnp.sqrt(k)
        cos, sin = cos * unit[0] - sin * unit[1], sin * unit[0] + cos * unit[1]
        return head, cos, sin, jnp.zeros_like(head), head

    def step(carry, inputs):
        state, w = carry
        k, start, c, rho_mn = inputs
        state = jax.lax.cond(start, diagonal, lambda s, _: s, state, k)
        head, cos, sin, previous, current = state
        w = w + (jnp.real(rho_mn) * cos - jnp.imag(rho_mn) * sin) * current
        following = -((c[0] - t * c[1]) * current + c[2] * previous)
        return ((head, cos, sin, current, following), w), None

    head = jnp.exp(-t / 2)
    zeros = jnp.zeros_like(t)
    state = (head, jnp.ones_like(t), zeros, zeros, head)
    inputs = (d.astype(t.dtype), (m == 0) & (d > 0), coefficients, entries)
    (_, w), _ = jax.lax.scan(step, (state, zeros), inputs)
    return ((g**2 / (2.0 * jnp.pi)) * w).reshape(yvec.shape[0], xvec.shape[0])


def _triangle(n: int, dtype) -> tuple[np.ndarray, np.ndarray, Array]:
    r"""The pairs (m, d), m + d < n, diagonal by diagonal, and the recurrence's coefficients for each step.

    From $E_m^d$ to $E_{m+1}^d$: $E_{m+1} = -[(c_0 - t\,c_1) E_m + c_2 E_{m-1}]$ with
    $c_0 = (2m + d + 1)/s$, $c_1 = 1/s$, $c_2 = \sqrt{m(m+d)}/s$, $s = \sqrt{(m+1)(m+d+1)}$.
    """
    d = np.concatenate([np.full(n - k, k) for k in range(n)])
    m = np.concatenate([np.arange(n - k) for k in range(n)])
    s = np.sqrt((m + 1.0) * (m + d + 1.0))
    coefficients = np.stack([(2.0 * m + d + 1.0) / s, 1.0 / s, np.sqrt(m * (m + d)) / s], axis=1)
    return m, d, jnp.asarray(coefficients, dtype=dtype)


@jax.jit
def _qfunc(rho: Array, xvec: Array, yvec: Array, g: Array) -> Array:
    n = rho.shape[-1]
    alpha = _alphas(xvec, yvec, g, rho)
    k = jnp.arange(1, n, dtype=xvec.dtype)[:, None]
    # ⟨n|α⟩ = e^{-|α|²/2} α^n / sqrt(n!) by a running product over n
    steps = alpha[None, :] / as_complex(jnp.sqrt(k), like=rho)
    ket = as_complex(jnp.exp(-0.5 * jnp.abs(alpha) ** 2), like=rho)[None, :] * jnp.cumprod(
        jnp.concatenate([jnp.ones_like(alpha)[None, :], steps]), axis=0
    )
    inner = jnp.real(jnp.sum(jnp.conj(ket) * (rho @ ket), axis=0))
    q = (g**2 / (4.0 * jnp.pi)) * inner
    return q.reshape(yvec.shape[0], xvec.shape[0])


def _alphas(xvec: Array, yvec: Array, g: Array, like: Array) -> Complex[Array, " points"]:
    """α = g (x + iy)/2 at every grid point, row-major over (y, x) as `numpy.meshgrid(xvec, yvec)`."""
    x, y = jnp.meshgrid(xvec, yvec)
    return as_complex(0.5 * g * x.ravel(), like=like) + 1j * as_complex(0.5 * g * y.ravel(), like=like)


def _checked(caller: str, state, xvec, yvec, g) -> tuple[Array, Array, Array, Array]:
    """The state as a density matrix and the coordinates as arrays, after the checks named in `wigner`."""
    rho = _density(caller, state)
    real = jnp.finfo(complex_dtype(rho)).dtype
    coords = [_coordinate(caller, v, name, real) for v, name in ((xvec, "xvec"), (yvec, "yvec"))]
    if is_concrete(g):
        check_numeric(g, "g", "a positive real scale (default sqrt(2))")
        if np.ndim(g) != 0 or np.iscomplexobj(g) or not float(g) > 0 or not np.isfinite(float(g)):
            raise ValueError(f"{caller}: g must be a finite real scale > 0 (α = g (x + iy)/2); got {g!r}")
    return rho, coords[0], coords[1], jnp.asarray(g, dtype=real)


def _coordinate(caller: str, v, name: str, dtype) -> Array:
    if is_concrete(v):
        check_numeric(v, name, "a 1-D array of real coordinates")
        if np.iscomplexobj(v):
            raise ValueError(f"{caller}: {name} must be real coordinates (1-D); got a complex array")
    if np.ndim(v) != 1 or np.shape(v)[0] == 0:
        raise ValueError(f"{caller}: {name} must be a non-empty 1-D array of coordinates; got shape {np.shape(v)}")
    if is_concrete(v) and not np.all(np.isfinite(np.asarray(v))):
        raise ValueError(f"{caller}: {name} must be finite; found {int((~np.isfinite(np.asarray(v))).sum())} NaN/inf")
    return jnp.asarray(v, dtype=dtype)


def _density(caller: str, state) -> Array:
    """`state` as a complex (N, N) density matrix; a ket becomes |ψ⟩⟨ψ|."""
    if is_qobj(state):
        state = from_qutip(state)
    if is_concrete(state):
        check_numeric(state, "state", _STATE)
    shape = tuple(np.shape(state))
    if len(shape) == 2 and shape[1] == 1 and shape[0] > 1:
        state, shape = jnp.reshape(state, shape[:1]), shape[:1]
    if not (len(shape) == 1 or (len(shape) == 2 and shape[0] == shape[1])) or shape[0] == 0:
        raise ValueError(f"{caller}: state must be {_STATE}; got shape {shape}")
    ket = len(shape) == 1
    if is_concrete(state):
        _check_values(caller, np.asarray(state, dtype=complex), ket)
    v = as_complex(state)
    return jnp.outer(v, jnp.conj(v)) if ket else v


def _check_values(caller: str, v: np.ndarray, ket: bool) -> None:
    bad = ~np.isfinite(v)
    if bad.any():
        raise ValueError(f"{caller}: state must be finite; found {int(bad.sum())} NaN/inf entries, first at index "
                         f"{np.argwhere(bad)[0].tolist()}")  # fmt: skip
    if ket:
        norm2 = float(np.vdot(v, v).real)
        if abs(norm2 - 1.0) > TRACE_ATOL:
            raise ValueError(f"{caller}: state (a ket) must have unit norm; got norm² {norm2:.12g} "
                             f"(|norm² − 1| > {TRACE_ATOL:g}); normalise it first")  # fmt: skip
        return
    err = np.abs(v - v.conj().T).max()
    if err > HERMITIAN_RTOL * max(1.0, np.abs(v).max()):
        raise ValueError(f"{caller}: state (a density matrix) must be Hermitian; max |ρ − ρ†| = {err:.3g}")
    trace = np.trace(v)
    if abs(trace - 1.0) > TRACE_ATOL:
        raise ValueError(f"{caller}: state (a density matrix) must have trace 1; got trace {trace.real:.12g} "
                         f"(|trace − 1| > {TRACE_ATOL:g}); normalise it first")  # fmt: skip
