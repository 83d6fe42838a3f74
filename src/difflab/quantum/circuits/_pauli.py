r"""Pauli sums $H = \sum_t c_t P_t$, given as coefficient/Pauli-string lists.

Here $P_t = \sigma^{(0)} \otimes \cdots \otimes \sigma^{(n-1)}$ with $\sigma \in \{I, X, Y, Z\}$; for example
`PauliSum([0.5, -1.0], ["ZZI", "IXI"])`.

Hamiltonians written for Qiskit, OpenFermion or PennyLane are read by `PauliSum.from_qiskit`, `from_openfermion` and
`from_pennylane` (conventions: `_pauli_formats`).

Character j of a string acts on wire j (QuTiP order: the leftmost factor is wire 0). Coefficients are real (the sum is
Hermitian) and are an array leaf, so Hamiltonians of one structure with different coefficients (e.g. H₂ at several
bond lengths) batch with `jax.vmap`. Energies are in the units of the coefficients (hartree for H₂).
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Sequence
from functools import reduce

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ._apply import is_concrete, view_shape
from ._gates import PAULIS
from ._matrix_observables import AbstractMatrixObservable
from ._pauli_formats import openfermion_terms, pennylane_terms, qiskit_terms, text_terms, to_openfermion_text

#: Z strings are summed by one product with a sign table over this many trailing wires (2⁸ × T entries).
Z_LOW_WIRES = 8
#: Strings with at most this many non-identity letters are reduced from 2ᵏ slices of the state in one fused pass.
SLICED_LETTERS = 4
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
            raise TypeError(f"strings must be a sequence of Pauli strings such as ['ZZ', 'XI']; got {strings!r}")
        strings = tuple(s.upper() for s in strings)
        if not strings:
            raise ValueError("strings must hold at least one Pauli string; got none")
        if np.shape(coefficients) != (len(strings),):
            raise ValueError(f"coefficients must have shape ({len(strings)},), one per string; "
                             f"got {np.shape(coefficients)}")  # fmt: skip
        n = len(strings[0])
        for i, s in enumerate(strings):
            if len(s) != n:
                raise ValueError(f"strings[{i}] = {s!r} has length {len(s)}; every Pauli string must have the "
                                 f"length of the first, {n} (one letter per wire)")  # fmt: skip
            if n == 0 or set(s) - set("IXYZ"):
                raise ValueError(f"strings[{i}] = {s!r} must be a non-empty string over 'IXYZ'")
        if is_concrete(coefficients) and np.iscomplexobj(np.asarray(coefficients)):
            if np.abs(np.imag(coefficients)).max() > 0:
                raise ValueError("coefficients must be real (a Hermitian Pauli sum); got complex values")
            coefficients = np.real(coefficients)
        if is_concrete(coefficients) and not np.all(np.isfinite(np.asarray(coefficients))):
            raise ValueError("coefficients must be finite; got NaN/inf values")
        self.coefficients = jnp.asarray(coefficients, dtype=float)
        if not is_concrete(coefficients):
            self.coefficients = eqx.error_if(
                self.coefficients, ~jnp.all(jnp.isfinite(self.coefficients)), "coefficients must be finite"
            )
        self.strings = strings

    @property
    def n_wires(self) -> int:
        return len(self.strings[0])

    @classmethod
    def from_terms(cls, terms, n_wires: int | None = None) -> PauliSum:
        """From text terms, `{"X0 Z3": 0.5, "": -1.0}` or a list of such pairs (`""` the identity).

        Each term is letters with wire indices, as inside OpenFermion's brackets; `n_wires` defaults to one past the
        highest wire named. Equal strings are summed; complex coefficients are refused unless their imaginary parts
        are round-off (`_pauli_formats.IMAG_TOLERANCE`, 1e-12 of the largest coefficient).
        """
        return cls(*text_terms(terms, n_wires))

    @classmethod
    def from_qiskit(cls, op) -> PauliSum:
        """From a Qiskit `SparsePauliOp` (read through `op.to_list()`) or such a list `[(label, coeff)]`.

        Qiskit's labels are little-endian: the last character acts on qubit 0, so `("ZIIX", 0.5)` is difflab's
        `"XIIZ"`, and Qiskit's `to_matrix()` is `matrix()` with the bits of every basis index reversed.
        """
        return cls(*qiskit_terms(op))

    @classmethod
    def from_openfermion(cls, op, n_wires: int | None = None) -> PauliSum:
        r"""From an OpenFermion `QubitOperator` (read through `op.terms`) or its text, `"0.5 [X0 Z3] +\n-0.2 [Y1]"`.

        OpenFermion's qubit 0 is difflab's wire 0 and, in `get_sparse_operator`, the most significant bit, as here.
        `n_wires` defaults to one past the highest qubit named.
        """
        return cls(*openfermion_terms(op, n_wires))

    @classmethod
    def from_pennylane(cls, op, n_wires: int | None = None, wire_order=None) -> PauliSum:
        """From a PennyLane `PauliSentence` or an operator with one as `.pauli_rep` (`qml.Hamiltonian`, `qml.sum`).

        Wire labels that are not integers are placed by their position in `wire_order` (its first label is wire 0,
        the most significant bit, as in `qml.matrix(op, wire_order=wire_order)`); `n_wires` defaults to
        `len(wire_order)` or to one past the highest integer wire.
        """
        return cls(*pennylane_terms(op, n_wires, wire_order))

    def to_qiskit_list(self) -> list[tuple[str, float]]:
        """`[(label, coeff)]` with Qiskit's little-endian labels, for `SparsePauliOp.from_list`."""
        return [(s[::-1], float(c)) for s, c in zip(self.strings, np.asarray(self.coefficients), strict=True)]

    def to_openfermion_string(self) -> str:
        r"""The text of `str(QubitOperator)`, `"0.5 [X0 Z3] +\n-0.2 [Y1]"`, which `QubitOperator(text)` reads."""
        return to_openfermion_text(np.asarray(self.coefficients), self.strings)

    def matrix(self) -> Array:
        """The dense 2ⁿ × 2ⁿ matrix (for exact diagonalisation at n ≤ `DENSE_MAX_WIRES`)."""
        if self.n_wires > DENSE_MAX_WIRES:
            raise ValueError(f"a dense matrix of {self.n_wires} wires is too large (limit {DENSE_MAX_WIRES})")
        mats = [reduce(np.kron, [PAULIS[c] for c in s]) for s in self.strings]
        return jnp.einsum("t,tij->ij", self.coefficients.astype(complex), jnp.asarray(np.stack(mats)))

    def eigh(self) -> tuple[np.ndarray, np.ndarray]:
        """Exact diagonalisation (NumPy, float64): eigenvalues ascending and eigenvectors as columns."""
        return np.linalg.eigh(np.asarray(self.matrix()))

    def ground_energy(self) -> float:
        """The lowest eigenvalue by exact diagonalisation."""
        return float(self.eigh()[0][0])


def _z_expectation(probs: Array, string: str) -> Array:
    r"""$\sum_b p_b \prod_{w:\,Z} (-1)^{b_w}$ for a string over {I, Z}, on the view that keeps its Z wires.

    The signs are per-axis multiplies by $(1, -1)$ on the view $(g_0, 2, g_1, \dots)$ (`view_shape`), so no 2ⁿ
    table of signs is ever a constant of the compiled program (3 GB at 24 qubits). Folding the wires one at a time
    (pairwise sums and differences) avoids the table in the value too, but not in the derivative: when the
    coefficients and the incoming cotangent are constants, as under `jax.grad`, XLA folds the transposed sums into
    2ⁿ constants (at 24 qubits a first call of minutes and GiBs); the transpose of a multiply by a broadcast is a
    broadcast, which XLA does not fold.
    """
    letters = [w for w, c in enumerate(string) if c == "Z"]
    view = probs.reshape(view_shape((2,) * len(string), letters))
    if len(letters) <= SLICED_LETTERS:
        return jnp.sum(_signed_slices(view, [(bits, (-1.0) ** sum(bits)) for bits in _bit_tuples(len(letters))]))
    for i in range(len(letters)):
        view = view * _axis_vector(_PHASES["Z"], view.ndim, 2 * i + 1)
    return jnp.sum(view)


def _bit_tuples(k: int) -> list[tuple[int, ...]]:
    return list(itertools.product((0, 1), repeat=k))


def _slice(view: Array, bits: tuple[int, ...]) -> Array:
    """The slice of a `view_shape` view with its kept axes (1, 3, 5, ...) at `bits`."""
    index: list[slice | int] = [slice(None)] * view.ndim
    for i, b in enumerate(bits):
        index[2 * i + 1] = b
    return view[tuple(index)]


def _signed_slices(view: Array, terms) -> Array:
    r"""$\sum_i s_i\, v_i$ over the slices $v_i$ of `view` at the bit tuples i, with weights $s_i$ (`terms`).

    XLA fuses the slices, weights and sum into one elementwise pass, and a full reduction of it is the fastest
    reduction its CPU backend emits (a reduction over several axes of a broadcast product ran 2–5× slower).
    """
    return functools.reduce(operator.add, [_weighted(_slice(view, bits), weight) for bits, weight in terms])


def _weighted(x: Array, weight) -> Array:
    return x if weight == 1 else x * weight


def _axis_vector(values: np.ndarray, ndim: int, axis: int) -> np.ndarray:
    """`values` (length 2) shaped to broadcast along `axis` of an `ndim`-dimensional view (same rank)."""
    shape = [1] * ndim
    shape[axis] = 2
    return values.reshape(shape)


#: Phase of each Pauli on the flipped (X, Y) or kept (Z) axis, by output bit: $Y|b\rangle = i(-1)^b|1-b\rangle$.
_PHASES = {"Y": np.array([-1j, 1j]), "Z": np.array([1.0, -1.0])}


def apply_string(tensor: Array, string: str, offset: int = 0) -> Array:
    r"""$P\,T$ for a Pauli string $P$ acting on the axes `offset + j` of `tensor` (character j on axis offset + j).

    A Pauli string is a signed permutation: on the view that keeps only its non-identity axes (`view_shape`), X and
    Y reverse their axis and Y and Z multiply it by the two phases $(-i, i)$ and $(1, -1)$ of the output bit. XLA
    fuses the reversals and the per-axis multiplies into one pass; no 2ⁿ table of signs is built (as a constant of
    the compiled program such a table costs compile time and memory: 3 GB at 24 qubits), and no 2 × 2 matrix
    multiply-add is spent on the zeros of a Pauli matrix.
    """
    letters = [(offset + w, c) for w, c in enumerate(string) if c != "I"]
    if not letters:
        return tensor
    view = tensor.reshape(view_shape(tensor.shape, [a for a, _ in letters]))
    flips = tuple(2 * i + 1 for i, (_, c) in enumerate(letters) if c in "XY")
    if flips:
        view = jnp.flip(view, axis=flips)
    for i, (_, c) in enumerate(letters):
        if c in _PHASES:
            view = view * _axis_vector(_PHASES[c], view.ndim, 2 * i + 1).astype(view.dtype)
    return view.reshape(tensor.shape)


def apply_sum(observable: PauliSum, tensor: Array) -> Array:
    r"""$H\,T = \sum_t c_t P_t T$ on a ket tensor of shape (2,)*n (each term a fused signed permutation).

    The terms are stacked and summed over the stacking axis: one reduction pass, whose result XLA keeps in memory.
    As a chain of additions the sum is fused into every consumer instead and recomputed there (four times, for
    the first gate of the adjoint backward pass).
    """
    terms = [
        (apply_string(tensor, s) * observable.coefficients[t].astype(tensor.dtype)).reshape(-1)
        for t, s in enumerate(observable.strings)
    ]
    return jnp.sum(jnp.stack(terms), axis=0).reshape(tensor.shape)


def _ket_products(view: Array, letters: list[str]) -> Array:
    r"""$\phi_i\, \overline{v_i}\, v_{i \oplus m}$ summed over the slices $v_i$ of a ket's view, elementwise.

    Its sum over all entries is $\langle P\rangle$. Here m flips the X and Y axes and $\phi_i$ is the product of
    the letters' phases at the output bits i (Y: $(-i, i)$, Z: $(1, -1)$), so that
    $(P\psi)_i = \phi_i\,\psi_{i\oplus m}$.
    """
    terms = []
    for bits in _bit_tuples(len(letters)):
        partner = tuple(b ^ (c in "XY") for b, c in zip(bits, letters, strict=True))
        phase = complex(np.prod([_PHASES[c][b] if c in _PHASES else 1 for b, c in zip(bits, letters, strict=True)]))
        terms.append(_weighted(jnp.conj(_slice(view, bits)) * _slice(view, partner), phase))
    return functools.reduce(operator.add, terms)


def term_values(observable: PauliSum, state: Array) -> Array:
    r"""$\langle P_t\rangle$ for every string of `observable`, shape (T,): the expectation is their dot with $c_t$.

    Strings over {I, Z} come together from the probabilities $p_b$ (`_z_values`); every other string costs one
    fused pass, $\mathrm{Re}\sum_b \overline{\psi_b}(P\psi)_b$ for a ket or $\mathrm{Re}\,\mathrm{Tr}(P\rho)$
    for a density matrix.
    """
    n = observable.n_wires
    density = state.ndim == 2
    diagonal = [i for i, s in enumerate(observable.strings) if set(s) <= {"I", "Z"}]
    values: list = [None] * len(observable.strings)
    if diagonal:
        probs = jnp.real(jnp.diagonal(state)) if density else jnp.square(state.real) + jnp.square(state.imag)
        z = _z_values(probs, [observable.strings[i] for i in diagonal])
        for j, i in enumerate(diagonal):
            values[i] = z[j]
    tensor = state.reshape((2,) * (2 * n if density else n))
    if not density:
        for indices in _flip_groups(observable.strings, values):
            for i, value in zip(indices, _shared_flip_values(tensor, [observable.strings[i] for i in indices]),
                                strict=True):  # fmt: skip
                values[i] = value
    for i, string in enumerate(observable.strings):
        if values[i] is not None:
            continue
        if density:
            values[i] = jnp.real(jnp.trace(apply_string(tensor, string).reshape(state.shape)))
        else:
            values[i] = _ket_value(state.reshape(-1), string)
    return jnp.stack(values)


def _flip_groups(strings: Sequence[str], done: Sequence) -> list[list[int]]:
    """Indices of the strings not yet `done` that share their X/Y wires with another such string, by those wires.

    A molecular Hamiltonian's strings fall into few such groups (LiH in 12 qubits: 552 non-diagonal strings, 84
    flip patterns); a string alone in its group keeps its own pass (`_ket_value`).
    """
    groups: dict[tuple[bool, ...], list[int]] = {}
    for i, string in enumerate(strings):
        if done[i] is None:
            groups.setdefault(tuple(c in "XY" for c in string), []).append(i)
    return [indices for indices in groups.values() if len(indices) > 1]


def _shared_flip_values(tensor: Array, strings: Sequence[str]) -> list[Array]:
    r"""$\langle\psi|P_t|\psi\rangle$ of strings that flip the same wires m, from one pass over the ket.

    With $(P\psi)_b = (-i)^{y}\, s(b)\, \psi_{b\oplus m}$ ($y$ the string's number of Y, $s(b) = \prod(-1)^{b_w}$
    over its Y and Z wires), $\langle P\rangle = \mathrm{Re}[(-i)^{y} \sum_b s(b)\, u_b]$ with
    $u_b = \overline{\psi_b}\,\psi_{b\oplus m}$, the same $u$ for the whole group. The signed sums of $\mathrm{Re}\,u$
    (even $y$) and $\mathrm{Im}\,u$ (odd $y$) are those of Z strings (`_z_values`). Compiling one pass per group
    instead of one per string takes LiH's energy (631 strings) from 17.5 s to a few.
    """
    flips = tuple(w for w, c in enumerate(strings[0]) if c in "XY")
    u = jnp.conj(tensor) * jnp.flip(tensor, axis=flips)
    z_strings = ["".join("Z" if c in "YZ" else "I" for c in s) for s in strings]
    turns = [s.count("Y") % 4 for s in strings]
    parts = {}
    for odd, part in ((False, u.real), (True, u.imag)):
        chosen = [t for t, k in enumerate(turns) if (k % 2 == 1) == odd]
        if chosen:
            sums = _z_values(part.reshape(-1), [z_strings[t] for t in chosen])
            parts.update({t: sums[j] for j, t in enumerate(chosen)})
    # (-i)^y (A + iB): real part A, B, -A, -B for y = 0, 1, 2, 3 (mod 4)
    return [parts[t] if turns[t] in (0, 1) else -parts[t] for t in range(len(strings))]


def _z_values(probs: Array, strings: Sequence[str]) -> Array:
    r"""$\sum_b p_b\, s_t(b)$ for strings over {I, Z}, $s_t(b) = \prod_{w:\,Z}(-1)^{b_w}$, all at once.

    The sign factorises over the last $\ell = \min(n, 8)$ wires and the others,
    $s_t(b) = s^{\rm high}_t(b_{\rm high})\, s^{\rm low}_t(b_{\rm low})$, so with the probabilities as a
    $2^{n-\ell} \times 2^\ell$ matrix one matrix product with the small sign table $(2^\ell, T)$ does all the
    work, $Y = P S^{\rm low}$; each term then sums $s^{\rm high}_t$ times its column of $Y$ (`_z_expectation`,
    2ⁿ⁻ˡ entries). A reduction of strided slices of the state on XLA's CPU backend ran at a third of the speed for
    wires near the end.
    """
    n = len(strings[0])
    low = min(n, Z_LOW_WIRES)
    table = np.array([[np.prod([(-1.0) ** ((b >> (low - 1 - j)) & 1) for j, c in enumerate(s[n - low :]) if c == "Z"])
                       for s in strings] for b in range(2**low)])  # fmt: skip
    y = probs.reshape(2 ** (n - low), 2**low) @ table
    if low == n:
        return y[0]
    return jnp.stack([_z_expectation(y[:, t], s[: n - low]) for t, s in enumerate(strings)])


def _ket_value(psi: Array, string: str) -> Array:
    r"""$\langle\psi|P|\psi\rangle = \mathrm{Re}\sum_b \overline{\psi_b}\,(P\psi)_b$ (P Hermitian) for a flat ket.

    Computed on the string's own view $(g_0, 2, g_1, \dots)$, so the reduction runs over 2k + 1 axes rather than n.
    """
    letters = [w for w, c in enumerate(string) if c != "I"]
    view = psi.reshape(view_shape((2,) * len(string), letters))
    if len(letters) <= SLICED_LETTERS:
        return jnp.sum(jnp.real(_ket_products(view, [string[w] for w in letters])))
    on_view = ["I"] * view.ndim
    for i, w in enumerate(letters):
        on_view[2 * i + 1] = string[w]
    return jnp.sum(jnp.real(jnp.conj(view) * apply_string(view, "".join(on_view))))


def expectation(observable: PauliSum | AbstractMatrixObservable, state: ArrayLike) -> Array:
    r"""The expectation value $\langle H\rangle$, real, in the coefficients' units (or of a `Hermitian`/`Projector`).

    $\langle H\rangle = \sum_t c_t \langle\psi|P_t|\psi\rangle$ (state vector, shape (2ⁿ,)) or
    $\sum_t c_t \mathrm{Tr}(P_t\rho)$ (density matrix, shape (2ⁿ, 2ⁿ)).

    Strings over {I, Z} are summed from the probabilities at once; every other string costs one fused pass over the
    state (`apply_string`: reversals and phases, no dense matrix). See `term_values`.
    """
    if isinstance(observable, AbstractMatrixObservable):
        if np.ndim(state) not in (1, 2):
            raise ValueError(f"state must be a state vector or a density matrix; got shape {np.shape(state)}")
        return observable.expectation(jnp.asarray(state))
    if not isinstance(observable, PauliSum):
        raise TypeError(f"observable must be a PauliSum, Hermitian or Projector; got {type(observable).__name__}")
    n = observable.n_wires
    if np.shape(state) not in ((2**n,), (2**n, 2**n)):
        raise ValueError(f"state must have shape {(2**n,)} or {(2**n, 2**n)} for Pauli strings of length {n}; "
                         f"got {np.shape(state)}")  # fmt: skip
    return jnp.dot(observable.coefficients, term_values(observable, jnp.asarray(state)))
