r"""The Jordan–Wigner map from fermionic modes to qubits: mode p is wire p, occupied = $|1\rangle$.

$$a_p = \tfrac12 (X_p + iY_p)\, Z_{p-1} \cdots Z_0, \qquad a_p^\dagger = \tfrac12 (X_p - iY_p)\, Z_{p-1} \cdots Z_0,$$

so $a_p^\dagger a_p = \tfrac12 (1 - Z_p)$ counts an electron in mode p when wire p is $|1\rangle$. The parity string
runs over the wires *before* p, as in OpenFermion's `jordan_wigner` (and PennyLane's). Wire 0 is the most
significant bit of a basis index (difflab's and OpenFermion's `get_sparse_operator` order), so the Hartree–Fock
state of N electrons is $|1\cdots10\cdots0\rangle$. References: P. Jordan and E. Wigner, Z. Phys. 47, 631 (1928);
J. T. Seeley, M. J. Richard and P. J. Love, J. Chem. Phys. 137, 224109 (2012).

Products are taken in the binary symplectic form $P = c\, X^{x} Z^{z}$ (bit masks x, z over wires), where
$X^{x_1} Z^{z_1} X^{x_2} Z^{z_2} = (-1)^{|z_1 \wedge x_2|} X^{x_1 \oplus x_2} Z^{z_1 \oplus z_2}$ and a wire with
both bits holds $XZ = -iY$: each word of k ladder operators costs $2^k$ integer products, no matrices.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._fermion import FermionSum
from ._pauli import PauliSum
from ._pauli_formats import IMAG_TOLERANCE

#: Pauli terms whose |coefficient| is at most this fraction of the largest one are round-off of cancelled terms.
ROUND_OFF = 1e-14
#: Largest number of qubits for `jordan_wigner_matrix` (a dense 2ⁿ × 2ⁿ complex matrix: 256 MiB at 12).
MATRIX_MAX_QUBITS = 12


def jordan_wigner(op: FermionSum, n_qubits: int | None = None) -> PauliSum:
    r"""The qubit operator of a Hermitian `FermionSum` under the Jordan–Wigner map (mode p on wire p).

    Args:
        op: the fermionic operator; it must be Hermitian (a `PauliSum` has real coefficients).
        n_qubits: number of wires, at least `op.n_modes` (the default).

    Returns:
        The `PauliSum`, equal strings summed; terms below `ROUND_OFF` (1e-14) of the largest coefficient, which
        cancellation leaves, are dropped. Same operator as OpenFermion's `jordan_wigner(op)` with qubit k = wire k.

    Raises:
        ValueError: `op` is not Hermitian (an imaginary part above 1e-12 of the largest coefficient), or a mode lies
            at or beyond `n_qubits`.
    """
    n = _n_qubits(op, n_qubits)
    terms = _letter_terms(_xz_terms(op), n)
    scale = max((abs(c) for c in terms.values()), default=0.0)
    for string, c in terms.items():
        if abs(c.imag) > IMAG_TOLERANCE * max(scale, 1e-300):
            raise ValueError(f"op must be Hermitian to map to a PauliSum: the coefficient of {string!r} is {c} "
                             "(use jordan_wigner_matrix for other operators)")  # fmt: skip
    kept = {s: c.real for s, c in terms.items() if abs(c) > ROUND_OFF * scale}
    if not kept:
        kept = {"I" * n: 0.0}
    return PauliSum(np.array(list(kept.values()), dtype=float), list(kept))


def jordan_wigner_matrix(op: FermionSum, n_qubits: int | None = None) -> np.ndarray:
    """The dense 2ⁿ × 2ⁿ complex matrix of any `FermionSum` (Hermitian or not) under the Jordan–Wigner map.

    Wire 0 is the most significant bit, as in `PauliSum.matrix()` and OpenFermion's
    `get_sparse_operator(op, n_qubits).toarray()`. At most `MATRIX_MAX_QUBITS` (12) wires.
    """
    n = _n_qubits(op, n_qubits)
    if n > MATRIX_MAX_QUBITS:
        raise ValueError(f"n_qubits must be at most {MATRIX_MAX_QUBITS} for a dense matrix; got {n}")
    index = np.arange(2**n)
    out = np.zeros((2**n, 2**n), dtype=complex)
    for (x, z), c in _xz_terms(op).items():
        sign = 1 - 2 * (np.bitwise_count(index & _index_mask(z, n)).astype(int) & 1)
        np.add.at(out, (index ^ _index_mask(x, n), index), c * sign)
    return out


def _n_qubits(op: FermionSum, n_qubits) -> int:
    if not isinstance(op, FermionSum):
        raise TypeError(f"op must be a FermionSum; got {type(op).__name__}")
    if n_qubits is None:
        return max(op.n_modes, 1)
    if isinstance(n_qubits, bool) or not isinstance(n_qubits, numbers.Integral) or n_qubits < 1:
        raise ValueError(f"n_qubits must be a positive integer; got {n_qubits!r}")
    if op.n_modes > n_qubits:
        raise ValueError(f"n_qubits = {n_qubits} is too small: op acts on mode {op.n_modes - 1} "
                         f"(modes 0 to n_qubits - 1 map to wires)")  # fmt: skip
    return int(n_qubits)


def _ladder(p: int, action: int) -> dict[tuple[int, int], complex]:
    r"""$a_p$ or $a_p^\dagger$ in symplectic form: $\tfrac12 X_p Z_{<p} \mp \tfrac12 X_p Z_p Z_{<p}$ ($iY = -XZ$)."""
    low = (1 << p) - 1
    return {(1 << p, low): 0.5, (1 << p, low | 1 << p): 0.5 if action else -0.5}


def _xz_terms(op: FermionSum) -> dict[tuple[int, int], complex]:
    """The operator as {(x mask, z mask): coefficient} of $X^x Z^z$ (bit j of a mask is wire j)."""
    out: dict[tuple[int, int], complex] = {}
    for word, c in op.terms.items():
        product = {(0, 0): c}
        for p, action in word:
            nxt: dict[tuple[int, int], complex] = {}
            for (x1, z1), c1 in product.items():
                for (x2, z2), c2 in _ladder(p, action).items():
                    key = (x1 ^ x2, z1 ^ z2)
                    sign = -1.0 if (z1 & x2).bit_count() & 1 else 1.0
                    nxt[key] = nxt.get(key, 0.0) + sign * c1 * c2
            product = nxt
        for key, value in product.items():
            out[key] = out.get(key, 0.0) + value
    return out


def _letter_terms(xz: dict[tuple[int, int], complex], n: int) -> dict[str, complex]:
    """Pauli strings (character j on wire j) from symplectic terms: a wire with both bits is $XZ = -iY$."""
    out: dict[str, complex] = {}
    for (x, z), c in xz.items():
        letters = "".join("IXZY"[((x >> w) & 1) | (((z >> w) & 1) << 1)] for w in range(n))
        string_c = c * (-1j) ** (x & z).bit_count()
        out[letters] = out.get(letters, 0.0) + string_c
    return out


def _index_mask(mask: int, n: int) -> int:
    """A wire mask (bit j = wire j) as a mask of basis indices, where wire 0 is the most significant bit."""
    return sum(1 << (n - 1 - w) for w in range(n) if (mask >> w) & 1)
