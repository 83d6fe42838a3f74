r"""Standard states as plain dense JAX arrays (kets are 1-D, density matrices 2-D).

Qubit convention as QuTiP and dynamiqs: `basis(2, 0)` is $|e\rangle = (1, 0)^T$, `basis(2, 1)` is $|g\rangle$.
Fock states of a cavity are `fock(N, n)` = $|n\rangle$, truncated to $N$ levels.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Complex, Num

from ._standard_operators import _check_dim, _constant, _dtype

__all__ = ["basis", "coherent", "fock", "fock_dm", "ket2dm"]


@_constant
def basis(dim: int, index: int) -> Complex[Array, " dim"]:
    r"""Basis ket $|index\rangle$ of a `dim`-level space (complex, unit norm)."""
    dim = _check_dim(dim)
    if not 0 <= index < dim:
        raise ValueError(f"`index` must lie in [0, {dim - 1}] for dim={dim}, got {index}.")
    return jnp.zeros(dim, dtype=_dtype()).at[index].set(1.0)


@_constant
def fock(dim: int, n: int) -> Complex[Array, " dim"]:
    r"""Fock ket $|n\rangle$ of a cavity truncated to `dim` levels (same as `basis`)."""
    return basis(dim, n)


@_constant
def fock_dm(dim: int, n: int) -> Complex[Array, "dim dim"]:
    r"""Fock density matrix $|n\rangle\langle n|$."""
    return ket2dm(fock(dim, n))


@_constant
def coherent(dim: int, alpha: complex | Num[Array, ""]) -> Complex[Array, " dim"]:
    r"""Truncated coherent state, renormalised to unit norm.

    $c_n = e^{-|\alpha|^2/2}\,\alpha^n/\sqrt{n!}$ for $n < dim$, then $c \leftarrow c/\lVert c\rVert$ (the
    convention of the reference data; QuTiP's `coherent(..., method="analytic")` is the same before
    renormalisation). `alpha` is dimensionless ($|\alpha|^2$ = mean photon number before truncation) and may be a
    traced value (the state is differentiable in `alpha`).
    """
    dim = _check_dim(dim)
    n = np.arange(dim)
    log_fact = np.array([math.lgamma(k + 1.0) for k in n])
    alpha = jnp.asarray(alpha, dtype=_dtype())
    # alpha**n with 0**0 = 1; amplitudes in log-space-free form are fine for dim up to a few hundred.
    powers = jnp.cumprod(jnp.concatenate([jnp.ones(1, _dtype()), jnp.full(dim - 1, alpha)]))
    c = powers * jnp.exp(-0.5 * log_fact) * jnp.exp(-0.5 * jnp.abs(alpha) ** 2)
    return c / jnp.linalg.norm(c)


def ket2dm(psi: Complex[Array, " dim"]) -> Complex[Array, "dim dim"]:
    r"""Density matrix $\rho = |\psi\rangle\langle\psi|$ of a ket (1-D array, or a column (dim, 1))."""
    psi = jnp.asarray(psi)
    if psi.ndim == 2 and psi.shape[1] == 1:
        psi = psi[:, 0]
    if psi.ndim != 1:
        raise ValueError(f"`psi` must be a ket (1-D array), got shape {psi.shape}.")
    return jnp.outer(psi, jnp.conj(psi))
