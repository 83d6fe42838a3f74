r"""Test Hamiltonians as `PauliSum`s: H₂ in a minimal basis, the transverse-field Ising chain, MaxCut costs.

- H₂, STO-3G, Jordan–Wigner, 4 qubits (spin orbitals 0↑ 0↓ 1↑ 1↓ on wires 0–3): coefficients shipped in
  `datasets/quantum/circuits/h2_sto3g_jw.nc` at 15 bond lengths (0.3–2.5 Å), generated with PennyLane 0.45.1
  `qml.qchem.molecular_hamiltonian` (restricted Hartree–Fock, nuclear repulsion in the identity term). The
  equilibrium (0.7414 Å) ground energy is −1.137270 Ha, the STO-3G full-CI value of O'Malley et al.,
  Phys. Rev. X 6, 031007 (2016) and Kandala et al., Nature 549, 242 (2017). Energies in hartree.
- TFIM: $H = -J\sum_i Z_i Z_{i+1} - h\sum_i X_i$ (open or periodic chain); $J$, $h$ in any energy unit (rad/ns in
  difflab's quantum convention).
- MaxCut of a graph with edges $E$ and weights $w_{ij}$ (default 1): $H = -C$,
  $C = \sum_{(i,j)\in E} w_{ij} \tfrac12 (1 - Z_i Z_j)$ the (weighted) cut, so the ground energy is minus the
  maximum cut (Farhi, Goldstone & Gutmann, arXiv:1411.4028).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ... import datasets
from ._apply import as_wires
from ._pauli import PauliSum

H2_DATASET = "quantum/circuits/h2_sto3g_jw.nc"


def h2_data():
    """The shipped H₂ dataset (`xarray.Dataset`).

    It holds `coefficient` (bond_length, term), coordinate `pauli` (term), `exact_energy` and `hf_energy`
    (bond_length) in hartree; bond lengths in Å.
    """
    return datasets.load(H2_DATASET)


def h2_hamiltonian(bond_length: float) -> PauliSum:
    """The 4-qubit H₂ Hamiltonian (hartree) at `bond_length` (Å), one of the 15 tabulated values."""
    ds = h2_data()
    lengths = ds.bond_length.values
    match = np.flatnonzero(np.isclose(lengths, bond_length, rtol=0, atol=1e-9))
    if match.size != 1:
        raise ValueError(f"bond_length must be one of the tabulated values {lengths.tolist()} Å; "
                         f"got {bond_length!r}")  # fmt: skip
    return PauliSum(ds.coefficient.values[match[0]], [str(s) for s in ds.pauli.values])


def tfim_hamiltonian(n_wires: int, J: float = 1.0, h: float = 1.0, *, periodic: bool = False) -> PauliSum:
    r"""Transverse-field Ising chain $-J\sum Z_iZ_{i+1} - h\sum X_i$ on `n_wires` ≥ 2 qubits."""
    if isinstance(n_wires, bool) or not isinstance(n_wires, int) or n_wires < 2:
        raise ValueError(f"n_wires must be an integer >= 2; got {n_wires!r}")
    bonds = [(i, i + 1) for i in range(n_wires - 1)] + ([(n_wires - 1, 0)] if periodic and n_wires > 2 else [])
    strings = [_word(n_wires, {i: "Z", j: "Z"}) for i, j in bonds] + [_word(n_wires, {i: "X"}) for i in range(n_wires)]
    coefficients = [-J] * len(bonds) + [-h] * n_wires
    return PauliSum(np.asarray(coefficients, dtype=float), strings)


def maxcut_hamiltonian(
    edges: Sequence[tuple[int, int]], n_wires: int, *, weights: Sequence[float] | None = None
) -> PauliSum:
    """$-C$ for the cut $C$ of the graph with `edges` (and `weights`, one per edge) on `n_wires` vertices (qubits)."""
    edges = _check_edges(edges, n_wires)
    w = check_weights(weights, len(edges))
    strings = ["I" * n_wires] + [_word(n_wires, {i: "Z", j: "Z"}) for i, j in edges]
    return PauliSum(np.concatenate([[-0.5 * w.sum()], 0.5 * w]), strings)


def maxcut_brute_force(
    edges: Sequence[tuple[int, int]], n_wires: int, *, weights: Sequence[float] | None = None
) -> tuple[float, list[str]]:
    """The maximum (weighted) cut and every bit string that reaches it, by enumerating all 2ⁿ partitions.

    Cuts within 1e-12 of the best (relative) count as reaching it.
    """
    edges = _check_edges(edges, n_wires)
    w = check_weights(weights, len(edges))
    cuts = {}
    for bits in itertools.product("01", repeat=n_wires):
        cuts["".join(bits)] = float(sum(wk for wk, (i, j) in zip(w, edges, strict=True) if bits[i] != bits[j]))
    best = max(cuts.values())
    tolerance = 1e-12 * max(1.0, abs(best))
    return best, [b for b, cut in cuts.items() if cut >= best - tolerance]


def check_weights(weights, n_edges: int) -> np.ndarray:
    """Edge `weights` as a float array of shape (n_edges,) (default all 1), refused by name unless real and finite."""
    if weights is None:
        return np.ones(n_edges)
    w = np.asarray(weights)
    if w.shape != (n_edges,) or not np.isrealobj(w) or not np.all(np.isfinite(w.astype(float))):
        raise ValueError(f"weights must be {n_edges} finite real numbers, one per edge; got {weights!r}")
    return w.astype(float)


def _word(n: int, letters: dict[int, str]) -> str:
    return "".join(letters.get(w, "I") for w in range(n))


def _check_edges(edges, n_wires: int) -> list[tuple[int, int]]:
    out = []
    for k, edge in enumerate(edges):
        pair = as_wires(f"edges[{k}]", edge, n_wires)
        if len(pair) != 2:
            raise ValueError(f"edges[{k}] must join two vertices; got {edge!r}")
        out.append(pair)
    if not out:
        raise ValueError("edges must hold at least one edge; got none")
    return out
