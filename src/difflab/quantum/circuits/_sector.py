r"""Full configuration interaction: the lowest energy of a qubit Hamiltonian at a fixed number of electrons.

A Jordan–Wigner Hamiltonian conserves the number of 1s (electrons) $N = \sum_p a_p^\dagger a_p$, so its matrix is
block diagonal over N, and the full-CI energy of an N-electron molecule is the lowest eigenvalue of the block of
the $\binom{n}{N}$ basis states with N ones: 495 states for LiH (4 electrons, 12 spin orbitals) instead of 4096.
The block is built term by term without any 2ⁿ × 2ⁿ matrix: a Pauli string is a signed permutation,
$P|b\rangle = i^{n_Y} (-1)^{|b \wedge z|}\, |b \oplus x\rangle$ (x: wires with X or Y, z: wires with Y or Z).
For an even N every spin multiplet has a member with as many up as down electrons, so this equals PySCF's
`fci.FCI` energy (which solves that sub-block) for a molecule's Hamiltonian.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

from ._pauli import PauliSum

#: Largest block diagonalised densely (LAPACK); larger ones go to the Lanczos solver `scipy.sparse.linalg.eigsh`.
DENSE_MAX_STATES = 4000


def fci_energy(hamiltonian: PauliSum, n_electrons: int) -> float:
    """The lowest eigenvalue of `hamiltonian` over the basis states with `n_electrons` ones (full CI).

    Args:
        hamiltonian: a number-conserving `PauliSum` (e.g. from `molecular_hamiltonian`), in hartree.
        n_electrons: the number of electrons, 0 to `hamiltonian.n_wires`.

    Returns:
        The energy in the units of the coefficients (hartree). OpenFermion's
        `jw_get_ground_state_at_particle_number` computes the same.

    For an operator that does not conserve the number of electrons this is the lowest eigenvalue of its
    compression to the block, not an eigenvalue of the operator.
    """
    if not isinstance(hamiltonian, PauliSum):
        raise TypeError(f"hamiltonian must be a PauliSum; got {type(hamiltonian).__name__}")
    n = hamiltonian.n_wires
    if isinstance(n_electrons, bool) or not isinstance(n_electrons, numbers.Integral) or not 0 <= n_electrons <= n:
        raise ValueError(f"n_electrons must be an integer from 0 to {n} (the number of spin orbitals, wires); "
                         f"got {n_electrons!r}")  # fmt: skip
    block = _block(hamiltonian, int(n_electrons))
    if block.shape[0] <= DENSE_MAX_STATES:
        return float(scipy.linalg.eigh(block.toarray(), eigvals_only=True, subset_by_index=[0, 0])[0])
    return float(scipy.sparse.linalg.eigsh(block, k=1, which="SA", return_eigenvectors=False)[0])


def _block(hamiltonian: PauliSum, n_electrons: int) -> scipy.sparse.csr_array:
    """The block of the basis states with `n_electrons` ones, as a sparse matrix."""
    n = hamiltonian.n_wires
    index = np.arange(2**n)
    states = index[np.bitwise_count(index).astype(int) == n_electrons]
    position = np.full(2**n, -1)
    position[states] = np.arange(states.size)
    rows, cols, values = [], [], []
    for c, string in zip(np.asarray(hamiltonian.coefficients), hamiltonian.strings, strict=True):
        x = sum(1 << (n - 1 - w) for w, letter in enumerate(string) if letter in "XY")
        z = sum(1 << (n - 1 - w) for w, letter in enumerate(string) if letter in "YZ")
        target = position[states ^ x]
        phase = 1j ** string.count("Y") * (1 - 2 * (np.bitwise_count(states & z).astype(int) & 1))
        inside = target >= 0
        rows.append(target[inside])
        cols.append(np.arange(states.size)[inside])
        values.append(c * phase[inside])
    return scipy.sparse.coo_array(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))), shape=(states.size,) * 2
    ).tocsr()
