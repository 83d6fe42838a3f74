"""UCCSD on H2 and on LiH in an active space: excitation counts, the Hartree-Fock state, VQE to full CI.

One optimiser and one ansatz object per molecule, so that each VQE program compiles once in this module.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import difflab.quantum.circuits as qc

CHEMICAL_ACCURACY = 1.6e-3  # hartree
ADAM = optax.adam(0.1)
H2_ANSATZ = functools.partial(qc.uccsd, n_electrons=2, n_qubits=4)
LIH_ANSATZ = functools.partial(qc.uccsd, n_electrons=2, n_qubits=8)


def test_excitations_follow_pennylane():
    # qml.qchem.excitations(2, 4) and (4, 12): PennyLane 0.45.1
    assert qc.excitations(2, 4) == ([(0, 2), (1, 3)], [(0, 1, 2, 3)])
    singles, doubles = qc.excitations(4, 12)
    assert (len(singles), len(doubles)) == (16, 76)
    assert all((p - r) % 2 == 0 for r, p in singles)
    singles, doubles = qc.excitations(2, 8)
    assert (len(singles), len(doubles)) == (6, 9)
    np.testing.assert_array_equal(qc.hartree_fock_state(2, 4), [1, 1, 0, 0])


def test_uccsd_at_zero_is_hartree_fock_and_conserves_electrons():
    psi = qc.uccsd(jnp.zeros(3), 2, 4).statevector()
    assert abs(abs(complex(psi[0b1100])) - 1) < 1e-14
    psi = qc.uccsd(jnp.linspace(0.1, 1.5, 15), 2, 8).statevector()
    weights = np.abs(np.asarray(psi)) ** 2
    ones = np.array([bin(b).count("1") for b in range(256)])
    up = np.array([bin(b & 0b10101010).count("1") for b in range(256)])  # wires 0, 2, 4, 6 (spin up)
    assert abs(weights[ones == 2].sum() - 1) < 1e-12
    assert abs(weights[(ones == 2) & (up == 1)].sum() - 1) < 1e-12  # one electron of each spin


def test_uccsd_gradient_is_finite_difference():
    ham = qc.molecular_integrals("H2", 1.5).hamiltonian()

    def energy(theta):
        return qc.energy(ham, H2_ANSATZ(theta))

    theta = jnp.array([0.1, -0.2, 0.3])
    grad = jax.grad(energy)(theta)
    step = 1e-6
    for k in range(3):
        e = jnp.zeros(3).at[k].set(step)
        fd = (energy(theta + e) - energy(theta - e)) / (2 * step)
        assert abs(float(grad[k] - fd)) < 1e-8


@pytest.mark.parametrize("bond_length", [0.7414, 1.1, 3.0])
def test_uccsd_vqe_reaches_h2_full_ci(bond_length):
    mol = qc.molecular_integrals("H2", bond_length)
    result = qc.vqe(mol.hamiltonian(), H2_ANSATZ, jnp.zeros((1, 3)), optimizer=ADAM, steps=200)
    assert abs(result.best_value - mol.fci_energy) < 1e-6
    assert result.best_value - mol.fci_energy > -1e-10  # variational


def test_uccsd_vqe_on_lih_active_space():
    # 2 electrons in orbitals 1-4 above the frozen Li 1s: 8 qubits, 6 singles + 9 doubles
    mol = qc.molecular_integrals("LiH", 1.5957)
    ham = mol.hamiltonian(core=[0], active=[1, 2, 3, 4])
    casci = float(qc.molecule_data("LiH").casci_energy.sel(bond_length=1.5957))
    result = qc.vqe(ham, LIH_ANSATZ, jnp.zeros((1, 15)), optimizer=ADAM, steps=200)
    assert abs(result.best_value - casci) < CHEMICAL_ACCURACY
    assert abs(result.best_value - casci) < 1e-6  # reached here: 4e-12 Ha
    assert result.best_value < mol.hf_energy - 1e-3


def test_bad_counts_are_refused_by_name():
    with pytest.raises(ValueError, match="n_electrons must be even"):
        qc.uccsd(jnp.zeros(3), 3, 4)
    with pytest.raises(ValueError, match="n_electrons must be a positive even integer"):
        qc.excitations(-2, 4)
    with pytest.raises(ValueError, match="n_electrons = 6 exceeds the 4 spin orbitals"):
        qc.hartree_fock_state(6, 4)
    with pytest.raises(ValueError, match="n_qubits must be an even integer"):
        qc.excitations(2, 5)
    with pytest.raises(ValueError, match=r"params must have shape \(3,\): 2 singles and 1 doubles"):
        qc.uccsd(jnp.zeros(4), 2, 4)
