"""Fermionic operators, the Jordan-Wigner map and molecular Hamiltonians from integrals.

References: the shipped PySCF 2.14.0 integrals and full-CI / CASCI energies (datasets/quantum/circuits/
molecule_*_sto3g.nc, made by generate_molecules.py) and the shipped PennyLane 0.45.1 H2 table (h2_sto3g_jw.nc).
"""

import sys
from math import comb

import numpy as np
import pytest

import difflab.quantum.circuits as qc

F = qc.FermionSum


def test_anticommutation_relations_on_matrices():
    n = 4
    a = [qc.jordan_wigner_matrix(F.annihilation(p), n) for p in range(n)]
    ad = [qc.jordan_wigner_matrix(F.creation(p), n) for p in range(n)]
    eye = np.eye(2**n)
    for p in range(n):
        np.testing.assert_array_equal(ad[p], a[p].conj().T)
        for q in range(n):
            np.testing.assert_array_equal(a[p] @ ad[q] + ad[q] @ a[p], (p == q) * eye)
            np.testing.assert_array_equal(a[p] @ a[q] + a[q] @ a[p], 0 * eye)


def test_anticommutation_relations_by_normal_ordering():
    for p in range(3):
        for q in range(3):
            anti = (F.annihilation(p) * F.creation(q) + F.creation(q) * F.annihilation(p)).normal_ordered()
            assert anti.terms == ({(): 1.0} if p == q else {})
    # a_1 a_2† a_0 = -a_2† a_1 a_0, ordered by descending mode within each kind
    assert (F.annihilation(1) * F.creation(2) * F.annihilation(0)).normal_ordered().terms == {
        ((2, 1), (1, 0), (0, 0)): -1.0
    }
    assert F({"0^ 1": 2j}).adjoint().terms == {((1, 1), (0, 0)): -2j}
    assert (2 * F({"1^ 1": 1.0}) - F({"1^ 1": 0.5}) + 1).terms == {((1, 1), (1, 0)): 1.5, (): 1.0}


def test_number_operator_spectrum_and_occupied_wire_is_one():
    n = 5
    number = sum((F.creation(p) * F.annihilation(p) for p in range(n)), F())
    ham = qc.jordan_wigner(number)
    values = np.round(np.linalg.eigvalsh(np.asarray(ham.matrix()))).astype(int)
    assert [int(np.sum(values == k)) for k in range(n + 1)] == [comb(n, k) for k in range(n + 1)]
    # a_0† a_0 = (1 - Z_0)/2: the occupied mode is |1> on wire 0, the most significant bit
    n0 = qc.jordan_wigner(F({"0^ 0": 1.0}), 2)
    assert sorted(zip(n0.strings, np.asarray(n0.coefficients).tolist())) == [("II", 0.5), ("ZI", -0.5)]


def test_hopping_term_matches_openfermion():
    # OpenFermion 1.8.1: jordan_wigner(FermionOperator("0^ 2", 0.5) + FermionOperator("2^ 0", 0.5))
    # = 0.25 [X0 Z1 X2] + 0.25 [Y0 Z1 Y2]
    ham = qc.jordan_wigner(F({"0^ 2": 0.5, "2^ 0": 0.5}))
    assert dict(zip(ham.strings, np.asarray(ham.coefficients).tolist())) == {"XZX": 0.25, "YZY": 0.25}


def pauli_dict(ham):
    return dict(zip(ham.strings, np.asarray(ham.coefficients).tolist()))


@pytest.mark.parametrize("bond_length", [0.7414, 0.9, 2.0])
def test_h2_from_integrals_matches_the_shipped_table_and_pyscf_fci(bond_length):
    mol = qc.molecular_integrals("H2", bond_length)
    ours = pauli_dict(mol.hamiltonian())
    table = pauli_dict(qc.h2_hamiltonian(bond_length))
    assert set(ours) == set(table)
    # the table comes from PennyLane's own integrals, which differ from PySCF's by ~1e-8 Ha (at most 1.4e-8)
    assert max(abs(ours[s] - table[s]) for s in ours) < 3e-8
    assert abs(mol.hamiltonian().ground_energy() - mol.fci_energy) < 1e-8
    assert abs(qc.h2_hamiltonian(bond_length).ground_energy() - mol.fci_energy) < 3e-9


@pytest.mark.parametrize("bond_length", [0.65, 1.1, 3.0])
def test_h2_at_untabulated_bond_lengths(bond_length):
    mol = qc.molecular_integrals("H2", bond_length)
    ham = mol.hamiltonian()
    assert ham.n_wires == 4
    assert abs(qc.fci_energy(ham, 2) - mol.fci_energy) < 1e-8
    hf = np.zeros(16, dtype=complex)
    hf[0b1100] = 1.0
    assert abs(float(qc.expectation(ham, hf)) - mol.hf_energy) < 1e-8


@pytest.mark.parametrize("bond_length", [1.2, 1.5957, 2.0])
def test_lih_full_ci_and_frozen_core_casci(bond_length):
    mol = qc.molecular_integrals("LiH", bond_length)
    ham = mol.hamiltonian()
    assert ham.n_wires == 12 and mol.n_electrons == 4
    assert abs(qc.fci_energy(ham, 4) - mol.fci_energy) < 1e-8
    casci = float(qc.molecule_data("LiH").casci_energy.sel(bond_length=bond_length))
    active = mol.hamiltonian(core=[0], active=[1, 2, 3, 4])
    assert active.n_wires == 8
    assert abs(qc.fci_energy(active, 2) - casci) < 1e-8


def test_two_body_index_order():
    # One orbital, two electrons: E = 2 h + (00|00) + E_nuc; a swapped index order would still pass this, so also
    # check a two-orbital case where (01|10) (exchange) and (00|11) (Coulomb) differ.
    h = np.array([[-1.0]])
    g = np.full((1, 1, 1, 1), 0.6)
    assert abs(qc.fci_energy(qc.molecular_hamiltonian(h, g, 0.2), 2) - (-2 + 0.6 + 0.2)) < 1e-14
    h = np.diag([-1.0, -0.5])
    g = np.zeros((2, 2, 2, 2))
    g[0, 0, 1, 1] = g[1, 1, 0, 0] = 0.4  # Coulomb J
    g[0, 1, 1, 0] = g[1, 0, 0, 1] = g[0, 1, 0, 1] = g[1, 0, 1, 0] = 0.1  # exchange K
    g[0, 0, 0, 0], g[1, 1, 1, 1] = 0.7, 0.6
    ham = qc.molecular_hamiltonian(h, g)
    # |0up 1up> (wires 0 and 2): E = h00 + h11 + J - K
    state = np.zeros(16, dtype=complex)
    state[0b1010] = 1.0
    assert abs(float(qc.expectation(ham, state)) - (-1.5 + 0.4 - 0.1)) < 1e-14


def test_pyscf_path_matches_shipped_integrals():
    pytest.importorskip("pyscf")
    fresh = qc.pyscf_integrals("H 0 0 -0.45; H 0 0 0.45", basis="sto-3g", fci=True)
    shipped = qc.molecular_integrals("H2", 0.9)
    assert abs(fresh.fci_energy - shipped.fci_energy) < 1e-8
    assert abs(fresh.hf_energy - shipped.hf_energy) < 1e-8
    ours, ref = pauli_dict(fresh.hamiltonian()), pauli_dict(shipped.hamiltonian())
    assert set(ours) == set(ref) and max(abs(ours[s] - ref[s]) for s in ours) < 1e-8
    assert abs(fresh.hamiltonian().ground_energy() - shipped.fci_energy) < 1e-8
    with pytest.raises(ValueError, match="basis 'no-such-basis' is unknown to PySCF"):
        qc.pyscf_integrals("H 0 0 0; H 0 0 0.74", basis="no-such-basis")
    with pytest.raises(ValueError, match=r"even number of electrons.*give 3"):
        qc.pyscf_integrals("H 0 0 0; H 0 0 0.74; H 0 0 1.48")


def test_missing_pyscf_gives_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyscf.gto", None)
    with pytest.raises(ImportError, match=r"pyscf_integrals needs pyscf: pip install 'difflab\[chemistry\]'"):
        qc.pyscf_integrals("H 0 0 0; H 0 0 0.74")


def test_bad_integrals_are_refused_by_name():
    mol = qc.molecular_integrals("H2", 0.7414)
    h, g = mol.one_body, mol.two_body
    with pytest.raises(ValueError, match=r"one_body must be a square matrix"):
        qc.molecular_hamiltonian(h[:1], g)
    with pytest.raises(ValueError, match=r"two_body must have shape \(2, 2, 2, 2\)"):
        qc.molecular_hamiltonian(h, g[:, :, :, :1])
    bad = h.copy()
    bad[0, 1] += 0.1
    with pytest.raises(ValueError, match="one_body must be symmetric"):
        qc.molecular_hamiltonian(bad, g)
    bad = g.copy()
    bad[0, 0, 0, 1] += 0.1
    with pytest.raises(ValueError, match=r"two_body must be \(pq\|rs\) in chemists' notation"):
        qc.molecular_hamiltonian(h, bad)
    bad = h.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="one_body must be finite"):
        qc.molecular_hamiltonian(bad, g)
    with pytest.raises(ValueError, match="nuclear_repulsion must be finite"):
        qc.molecular_hamiltonian(h, g, float("inf"))
    with pytest.raises(TypeError, match="one_body must be a real array"):
        qc.molecular_hamiltonian(h + 0j, g)
    with pytest.raises(ValueError, match="core and active must not share orbitals"):
        qc.molecular_hamiltonian(h, g, core=[0], active=[0, 1])
    with pytest.raises(ValueError, match=r"active must hold distinct orbitals in range\(0, 2\)"):
        qc.molecular_hamiltonian(h, g, active=[0, 2])
    with pytest.raises(ValueError, match="bond_length must be one of the stored H2 bond lengths"):
        qc.molecular_integrals("H2", 0.8)
    with pytest.raises(ValueError, match="molecule must be one of"):
        qc.molecular_integrals("BeH2", 1.0)


def test_bad_operators_are_refused_by_name():
    with pytest.raises(ValueError, match="op must be Hermitian"):
        qc.jordan_wigner(F({"0^ 1": 1.0}))
    with pytest.raises(ValueError, match="n_qubits = 2 is too small"):
        qc.jordan_wigner(F({"3^ 3": 1.0}), 2)
    with pytest.raises(ValueError, match="'2x' must be a mode index"):
        F({"2x 0": 1.0})
    with pytest.raises(ValueError, match="must be finite"):
        F({"0^ 0": float("nan")})
    with pytest.raises(ValueError, match="n_electrons must be an integer from 0 to 4"):
        qc.fci_energy(qc.h2_hamiltonian(0.7414), 5)
