r"""Standard states as plain dense JAX arrays (kets are 1-D, density matrices 2-D).

Qubit convention as QuTiP and dynamiqs: `basis(2, 0)` is $|e\rangle = (1, 0)^T$, `basis(2, 1)` is $|g\rangle$.
Fock states of a cavity are `fock(N, n)` = $|n\rangle$, truncated to $N$ levels.
"""

from __future__ import annotations

import math
import numbers

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Complex, Float, Num

from ..core.internal import is_concrete
from ._complex import as_complex
from ._operator import check_numeric
from ._standard_operators import _check_dim, _constant, _dtype

#: Largest weight a truncated coherent state may drop before renormalising (its infidelity with the true state).
MAX_LOST_WEIGHT = 1e-6


@_constant
def basis(dim: int, index: int) -> Complex[Array, " dim"]:
    r"""Basis ket $|index\rangle$ of a `dim`-level space (complex, unit norm)."""
    return _basis(dim, index, "index")


def _basis(dim: int, index: int, name: str) -> Complex[Array, " dim"]:
    dim = _check_dim(dim)
    if isinstance(index, bool) or not isinstance(index, numbers.Integral):
        raise ValueError(f"{name} must be an integer level in [0, {dim - 1}]; got {type(index).__name__} {index!r}")
    if not 0 <= index < dim:
        raise ValueError(f"{name} must lie in [0, {dim - 1}] for dim={dim}; got {index}")
    return jnp.zeros(dim, dtype=_dtype()).at[index].set(1.0)


@_constant
def fock(dim: int, n: int) -> Complex[Array, " dim"]:
    r"""Fock ket $|n\rangle$ of a cavity truncated to `dim` levels (same as `basis`)."""
    return _basis(dim, n, "n")


@_constant
def fock_dm(dim: int, n: int) -> Complex[Array, "dim dim"]:
    r"""Fock density matrix $|n\rangle\langle n|$."""
    return ket2dm(fock(dim, n))


def coherent(
    dim: int, alpha: complex | Num[Array, ""], *, max_lost_weight: float = MAX_LOST_WEIGHT
) -> Complex[Array, " dim"]:
    r"""Truncated coherent state, renormalised to unit norm.

    $c_n = e^{-|\alpha|^2/2}\,\alpha^n/\sqrt{n!}$ for $n < dim$, then $c \leftarrow c/\lVert c\rVert$ (the
    convention of the reference data; QuTiP's `coherent(..., method="analytic")` is the same before
    renormalisation). `alpha` is dimensionless ($|\alpha|^2$ = mean photon number before truncation) and may be a
    traced value (the state is differentiable in `alpha`).

    The truncation drops the weight $1 - \sum_{n < dim} |c_n|^2$ (a Poisson tail of mean $|\alpha|^2$), and the
    renormalisation hides it: `coherent(5, 10.)` keeps 1e-37 of the state, so the result is nearly $|4\rangle$, not a
    coherent state. A loss above `max_lost_weight` (default 1e-6, the state's infidelity with the true coherent
    state) is refused, eagerly for a concrete `alpha` and by `eqx.error_if` for a traced one. A deliberate
    truncation (the Jaynes–Cummings reference data use `dim=10`, `alpha=2`, which loses 0.8 %) passes a larger
    `max_lost_weight`.
    """
    dim = _check_dim(dim)
    _check_alpha(alpha)
    if isinstance(max_lost_weight, bool) or not 0 <= max_lost_weight <= 1:  # NaN fails too
        raise ValueError(f"max_lost_weight must lie in [0, 1] (a weight); got {max_lost_weight!r}")
    state, kept = _coherent(dim, alpha)
    if is_concrete(kept):
        if not 1.0 - float(kept) <= max_lost_weight:  # NaN (an overflowing alpha) is refused too
            raise ValueError(_truncation_message(dim, alpha, float(kept), max_lost_weight))
        return state
    # outside `_constant`: eqx.error_if inside jax.ensure_compile_time_eval raises whatever its predicate
    too_much = ~(1.0 - kept <= max_lost_weight)
    return eqx.error_if(state, too_much, _truncation_message(dim, "traced", None, max_lost_weight))


@_constant
def _coherent(dim: int, alpha) -> tuple[Complex[Array, " dim"], Float[Array, ""]]:
    """The renormalised truncated coherent state and the weight `sum |c_n|^2` that the truncation kept."""
    n = np.arange(dim)
    log_fact = np.array([math.lgamma(k + 1.0) for k in n])
    alpha = jnp.asarray(alpha, dtype=_dtype())
    # alpha**n with 0**0 = 1; amplitudes in log-space-free form are fine for dim up to a few hundred.
    powers = jnp.cumprod(jnp.concatenate([jnp.ones(1, _dtype()), jnp.full(dim - 1, alpha)]))
    c = powers * as_complex(jnp.exp(-0.5 * log_fact - 0.5 * jnp.abs(alpha) ** 2), like=powers)
    return c / as_complex(jnp.linalg.norm(c), like=c), jnp.sum(jnp.abs(c) ** 2)


def _check_alpha(alpha) -> None:
    if not is_concrete(alpha):
        return
    if isinstance(alpha, str) or not np.issubdtype(np.asarray(alpha).dtype, np.number) or np.ndim(alpha) != 0:
        raise ValueError(f"alpha must be a complex scalar (dimensionless); got {type(alpha).__name__} {alpha!r}")
    if not np.isfinite(np.asarray(alpha)):
        raise ValueError(f"alpha must be finite; got {np.asarray(alpha).item()}")


def _truncation_message(dim: int, alpha, kept: float | None, limit: float) -> str:
    shown = "" if kept is None else f" (it keeps {kept:.3g} of the weight, drops {1.0 - kept:.3g})"
    return (
        f"coherent(N={dim}, alpha={alpha}): truncating to N={dim} levels drops more of the state's weight than "
        f"max_lost_weight={limit:g}{shown}, and renormalising would hide it; raise N (above |alpha|^2, the mean "
        "photon number, by several sqrt of it) or pass a larger max_lost_weight to accept the truncated state"
    )


def ket2dm(psi: Complex[Array, " dim"]) -> Complex[Array, "dim dim"]:
    r"""Density matrix $\rho = |\psi\rangle\langle\psi|$ of a ket (1-D array, or a column (dim, 1))."""
    if is_concrete(psi):
        check_numeric(psi, "psi", "a ket: a numeric array of shape (n,) or (n, 1)")
    psi = jnp.asarray(psi)
    if psi.ndim == 2 and psi.shape[1] == 1:
        psi = psi[:, 0]
    if psi.ndim != 1:
        raise ValueError(f"psi must be a ket (1-D array); got shape {psi.shape}")
    return jnp.outer(psi, jnp.conj(psi))
