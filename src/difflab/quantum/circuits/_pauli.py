r"""Pauli sums $H = \sum_t c_t P_t$, given as coefficient/Pauli-string lists.

Here $P_t = \sigma^{(0)} \otimes \cdots \otimes \sigma^{(n-1)}$ with $\sigma \in \{I, X, Y, Z\}$; for example
`PauliSum([0.5, -1.0], ["ZZI", "IXI"])`.

Character j of a string acts on wire j (QuTiP order: the leftmost factor is wire 0). Coefficients are real (the sum is
Hermitian) and are an array leaf, so Hamiltonians of one structure with different coefficients (e.g. H₂ at several
bond lengths) batch with `jax.vmap`. Energies are in the units of the coefficients (hartree for H₂).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ._apply import apply_matrix, is_concrete
from ._gates import PAULIS

__all__ = ["PauliSum", "expectation"]

#: Largest wire count for which `PauliSum.matrix()` builds the dense 2ⁿ × 2ⁿ matrix (16 MiB at n = 10... 4 GiB at 14).
DENSE_MAX_WIRES = 14


class PauliSum(eqx.Module):
    """A real linear combination of Pauli strings of equal length n (the number of wires).

    Args:
        coefficients: real coefficients $c_t$, shape (T,) (units of energy, e.g. hartree).
        strings: T strings over "IXYZ", all of length n.
    """

    coefficients: Array
    strings: tuple[str, ...] = eqx.field(static=True)

    def __init__(self, coefficients: ArrayLike, strings: Sequence[str]):
        if isinstance(strings, str) or not all(isinstance(s, str) for s in strings):
            raise TypeError(f"`strings` must be a sequence of Pauli strings such as ['ZZ', 'XI']; got {strings!r}.")
        strings = tuple(s.upper() for s in strings)
        if not strings:
            raise ValueError("`strings` must hold at least one Pauli string; got none.")
        if np.shape(coefficients) != (len(strings),):
            raise ValueError(f"`coefficients` must have shape ({len(strings)},), one per string; "
                             f"got {np.shape(coefficients)}.")  # fmt: skip
        n = len(strings[0])
        for i, s in enumerate(strings):
            if len(s) != n:
                raise ValueError(f"`strings[{i}]` = {s!r} has length {len(s)}; every Pauli string must have the "
                                 f"length of the first, {n} (one letter per wire).")  # fmt: skip
            if n == 0 or set(s) - set("IXYZ"):
                raise ValueError(f"`strings[{i}]` = {s!r} must be a non-empty string over 'IXYZ'.")
        if is_concrete(coefficients) and np.iscomplexobj(np.asarray(coefficients)):
            if np.abs(np.imag(coefficients)).max() > 0:
                raise ValueError("`coefficients` must be real (a Hermitian Pauli sum); got complex values.")
            coefficients = np.real(coefficients)
        self.coefficients = jnp.asarray(coefficients, dtype=float)
        self.strings = strings

    @property
    def n_wires(self) -> int:
        return len(self.strings[0])

    def matrix(self) -> Array:
        """The dense 2ⁿ × 2ⁿ matrix (for exact diagonalisation at n ≤ `DENSE_MAX_WIRES`)."""
        if self.n_wires > DENSE_MAX_WIRES:
            raise ValueError(f"a dense matrix of {self.n_wires} wires is too large (limit {DENSE_MAX_WIRES}).")
        mats = [reduce(np.kron, [PAULIS[c] for c in s]) for s in self.strings]
        return jnp.einsum("t,tij->ij", self.coefficients.astype(complex), jnp.asarray(np.stack(mats)))

    def eigh(self) -> tuple[np.ndarray, np.ndarray]:
        """Exact diagonalisation (NumPy, float64): eigenvalues ascending and eigenvectors as columns."""
        return np.linalg.eigh(np.asarray(self.matrix()))

    def ground_energy(self) -> float:
        """The lowest eigenvalue by exact diagonalisation."""
        return float(self.eigh()[0][0])


def _z_expectation(probs: Array, string: str) -> Array:
    r"""$\sum_b p_b \prod_{w:\,Z} (-1)^{b_w}$ for a string over {I, Z}, summing out one wire at a time.

    Each pass folds the last wire: $p_0 + p_1$ for I, $p_0 - p_1$ for Z, so the work is 2ⁿ in all and no 2ⁿ table
    of signs is built (as a constant of the compiled program such a table costs compile time and memory: 3 GB at
    24 qubits).
    """
    p = probs.reshape(-1)
    for c in reversed(string):
        pairs = p.reshape(-1, 2)
        p = pairs[:, 0] - pairs[:, 1] if c == "Z" else pairs[:, 0] + pairs[:, 1]
    return p[0]


def _apply_string(tensor: Array, string: str, offset: int = 0) -> Array:
    for w, c in enumerate(string):
        if c != "I":
            tensor = apply_matrix(tensor, jnp.asarray(PAULIS[c]), [offset + w])
    return tensor


def expectation(observable: PauliSum, state: ArrayLike) -> Array:
    r"""The expectation value $\langle H\rangle$, real, in the coefficients' units.

    $\langle H\rangle = \sum_t c_t \langle\psi|P_t|\psi\rangle$ (state vector, shape (2ⁿ,)) or
    $\sum_t c_t \mathrm{Tr}(P_t\rho)$ (density matrix, shape (2ⁿ, 2ⁿ)).

    Strings over {I, Z} are summed from the probabilities at once; every other string costs one application of its
    Paulis to the state (no dense matrix).
    """
    if not isinstance(observable, PauliSum):
        raise TypeError(f"`observable` must be a PauliSum; got {type(observable).__name__}.")
    n = observable.n_wires
    density = np.ndim(state) == 2
    want = (2**n, 2**n) if density else (2**n,)
    if np.shape(state) not in ((2**n,), (2**n, 2**n)):
        raise ValueError(f"`state` must have shape {(2**n,)} or {(2**n, 2**n)} for Pauli strings of length {n}; "
                         f"got {np.shape(state)}.")  # fmt: skip
    state = jnp.asarray(state)
    tensor = state.reshape((2,) * (2 * n if density else n))
    probs = (jnp.real(jnp.diagonal(state)) if density else jnp.abs(state) ** 2).reshape((2,) * n)
    diagonal = [i for i, s in enumerate(observable.strings) if set(s) <= {"I", "Z"}]
    others = [i for i in range(len(observable.strings)) if i not in diagonal]
    values = [jnp.zeros(())] * len(observable.strings)
    for i in diagonal:
        values[i] = _z_expectation(probs, observable.strings[i])
    for i in others:
        moved = _apply_string(tensor, observable.strings[i])
        if density:
            values[i] = jnp.real(jnp.trace(moved.reshape(want)))
        else:
            values[i] = jnp.real(jnp.vdot(state, moved.reshape(want)))
    return jnp.dot(observable.coefficients, jnp.stack(values))
