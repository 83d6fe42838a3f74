r"""Figures of merit of a channel: average gate fidelity and leakage of a superoperator on a computational subspace.

The channel $\mathcal{E}$ is given by its superoperator $S$ ($n^2 \times n^2$, columns stacked,
$\mathrm{vec}(\rho)_{i + nj} = \rho_{ij}$, as `mepropagator` and `liouvillian`). On a subspace of $d$ levels
(projector $P$) it acts as the map $\rho \mapsto P\,\mathcal{E}(\rho)\,P$ of $d \times d$ matrices, whose
superoperator $S_P$ ($d^2 \times d^2$) holds the rows and columns of $S$ with both levels in the subspace. Against
a unitary target $W$ ($d \times d$), with $S_W = \overline{W} \otimes W$ ($\mathrm{vec}(W\rho W^\dagger)$),

$$ F_\text{pro} = \frac{\mathrm{Tr}(S_W^\dagger S_P)}{d^2}, \qquad
   L = 1 - \frac1d\,\mathrm{Tr}\big(P\,\mathcal{E}(P)\big), \qquad
   F_\text{avg} = \frac{d\,F_\text{pro} + 1 - L}{d + 1}. $$

$F_\text{pro}$ is the process (entanglement) fidelity and $L$ the leakage, the population that leaves the subspace
averaged over its states (Wood & Gambetta, Phys. Rev. A 97, 032306 (2018)). For a map that keeps the subspace's
trace ($L = 0$) $F_\text{avg}$ is Horodecki's $(d F_\text{pro} + 1)/(d + 1)$ (Horodecki et al., Phys. Rev. A 60,
1888 (1999); Nielsen, Phys. Lett. A 303, 249 (2002)). With leakage the Haar average of
$\langle\psi|W^\dagger P\mathcal{E}(\psi)P\,W|\psi\rangle$ over the Kraus operators $K_k$ of the restricted map is
$(\sum_k |\mathrm{Tr}\,W^\dagger K_k|^2 + \sum_k \mathrm{Tr}\,K_k^\dagger K_k)/(d(d+1))$, which is the formula above:
the "1" becomes $1 - L$. For a unitary channel $S = \overline{U} \otimes U$ it is exactly `gate_fidelity`'s
$(\mathrm{Tr}\,MM^\dagger + |\mathrm{Tr}\,M|^2)/(d(d+1))$ (Pedersen et al., Phys. Lett. A 367, 47 (2007)), and
$L$ is `leakage`'s $1 - \mathrm{Tr}(V^\dagger V)/d$.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex, Float

from ._complex import as_complex
from ._fidelity import subspace_block


def levels_of(S: Array) -> int:
    r"""n, the dimension of the space whose superoperator ($n^2 \times n^2$) is `S`."""
    if S.ndim < 2 or S.shape[-1] != S.shape[-2] or math.isqrt(S.shape[-1]) ** 2 != S.shape[-1]:
        raise ValueError(f"S must be a superoperator (..., n², n²) (columns stacked); got shape {S.shape}")
    return math.isqrt(S.shape[-1])


def subspace_superoperator(S: Complex[ArrayLike, "... m m"], subspace: Sequence[int] | None) -> Complex[Array, "..."]:
    r"""$S_P$ ($d^2 \times d^2$, columns stacked): the entries of `S` between $|i\rangle\langle j|$ of `subspace`."""
    S = jnp.asarray(S)
    n = levels_of(S)
    subspace_block(np.zeros((n, n)), subspace)  # refuses a bad `subspace` by name
    levels = np.arange(n) if subspace is None else np.asarray(subspace)
    index = (levels[:, None] + n * levels[None, :]).T.reshape(-1)  # vec index i + n j, i fastest
    return S[..., index[:, None], index[None, :]]


def _kept(SP: Array, d: int) -> Array:
    r"""$\mathrm{Tr}(P\mathcal{E}(P))/d$: the entries of $S_P$ from $|k\rangle\langle k|$ to $|i\rangle\langle i|$."""
    diagonal = np.arange(d) * (d + 1)  # vec index of |i><i| in d dimensions
    return jnp.sum(SP[..., diagonal[:, None], diagonal[None, :]], axis=(-2, -1)).real / d


def channel_fidelity(
    S: Complex[ArrayLike, "... m m"],
    target: Complex[ArrayLike, "d d"],
    subspace: Sequence[int] | None = None,
) -> Float[Array, "..."]:
    r"""Average gate fidelity of the channel with superoperator `S` (restricted to `subspace`) against `target`.

    Args:
        S: superoperator (..., n², n²), columns stacked, e.g. `mepropagator(H, ts, jump_ops=...).propagators[-1]`
            or `piecewise_channel(...)`.
        target: the ideal gate (d, d), unitary, on the subspace.
        subspace: the d level indices of the computational subspace (default: all n levels, so d = n).

    Returns:
        $F_\text{avg}$ (module docstring), shape `S.shape[:-2]`; for a unitary channel it equals `gate_fidelity`.
    """
    SP = subspace_superoperator(S, subspace)
    SP = as_complex(SP, SP)
    W = as_complex(target, SP)
    d = math.isqrt(SP.shape[-1])
    if W.shape != (d, d):
        raise ValueError(f"target must be a ({d}, {d}) gate on the subspace of S; got shape {W.shape}")
    SW = jnp.kron(jnp.conj(W), W)
    process = jnp.sum(jnp.conj(SW) * SP, axis=(-2, -1)).real / d**2
    return (d * process + _kept(SP, d)) / (d + 1)


def channel_leakage(S: Complex[ArrayLike, "... m m"], subspace: Sequence[int]) -> Float[Array, "..."]:
    r"""Average population that the channel takes out of `subspace`: $1 - \mathrm{Tr}(P\mathcal{E}(P))/d$."""
    SP = subspace_superoperator(S, subspace)
    return 1.0 - _kept(SP, math.isqrt(SP.shape[-1]))
