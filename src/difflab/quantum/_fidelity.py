r"""Figures of merit of a propagator: average gate fidelity and leakage out of a computational subspace.

With $V = P U P$ the block of the propagator $U$ ($n \times n$) on a subspace of $d$ levels ($P$ its projector;
the whole space when no subspace is given) and a unitary target $W$ ($d \times d$),

$$ F_\text{avg} = \frac{\mathrm{Tr}(M M^\dagger) + |\mathrm{Tr}\,M|^2}{d(d+1)}, \qquad M = W^\dagger V, $$

Nielsen's formula for the fidelity averaged over Haar-random pure states (Nielsen, Phys. Lett. A 303, 249
(2002)), in the form of Pedersen, Møller & Mølmer (Phys. Lett. A 367, 47 (2007)) that holds for a leaky,
non-unitary block; for unitary $V$ it is $(d + |\mathrm{Tr}\,W^\dagger V|^2)/(d(d+1))$. It ignores a global phase.
The leakage is the population that leaves the subspace, averaged over its states,

$$ L = 1 - \frac{1}{d}\,\mathrm{Tr}(V^\dagger V) \quad \in [0, 1] $$

(Wood & Gambetta, Phys. Rev. A 97, 032306 (2018), eq. 9 for a unitary $U$). Both are differentiable and broadcast
over leading axes of `U` (e.g. the time axis of `sepropagator(...).propagators`).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex, Float

from ._complex import as_complex


def subspace_block(U: Complex[ArrayLike, "... n n"], subspace: Sequence[int] | None) -> Complex[Array, "... d d"]:
    r"""The block $\langle j|U|k\rangle$, $j, k$ in `subspace` (level indices); all of `U` when `subspace` is None."""
    U = jnp.asarray(U)
    if U.ndim < 2 or U.shape[-1] != U.shape[-2]:
        raise ValueError(f"U must be a square propagator (..., n, n); got shape {U.shape}")
    if subspace is None:
        return U
    n = U.shape[-1]
    index = np.asarray(subspace)
    if (
        index.ndim != 1
        or index.size == 0
        or not np.issubdtype(index.dtype, np.integer)
        or index.min() < 0
        or index.max() >= n
        or len(set(index.tolist())) != index.size
    ):
        raise ValueError(
            f"subspace must be distinct level indices in [0, {n}) (the computational levels of U); got {subspace!r}"
        )
    return U[..., index[:, None], index[None, :]]


def gate_fidelity(
    U: Complex[ArrayLike, "... n n"],
    target: Complex[ArrayLike, "d d"],
    subspace: Sequence[int] | None = None,
) -> Float[Array, "..."]:
    r"""Average gate fidelity of the propagator `U` (restricted to `subspace`) against the unitary `target`.

    Args:
        U: propagator (..., n, n), e.g. `sepropagator(H, ts).propagators[-1]`.
        target: the ideal gate (d, d) on the subspace.
        subspace: the d level indices of the computational subspace (default: all n levels, so d = n).

    Returns:
        $F_\text{avg}$ (module docstring), shape `U.shape[:-2]`, in [0, 1]; leakage out of the subspace lowers it.
    """
    V = subspace_block(U, subspace)
    V = as_complex(V, V)
    W = as_complex(target, V)
    d = V.shape[-1]
    if W.shape != (d, d):
        raise ValueError(f"target must be a ({d}, {d}) gate on the subspace of U; got shape {W.shape}")
    M = jnp.conj(W).T @ V
    frobenius = jnp.sum(jnp.abs(M) ** 2, axis=(-2, -1))
    trace = jnp.trace(M, axis1=-2, axis2=-1)
    return (frobenius + jnp.abs(trace) ** 2) / (d * (d + 1))


def leakage(U: Complex[ArrayLike, "... n n"], subspace: Sequence[int]) -> Float[Array, "..."]:
    r"""Average population that `U` takes out of `subspace` (level indices): $1 - \mathrm{Tr}(V^\dagger V)/d$."""
    V = subspace_block(U, subspace)
    return 1.0 - jnp.sum(jnp.abs(V) ** 2, axis=(-2, -1)) / V.shape[-1]
