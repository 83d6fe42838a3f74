"""Bad input is refused eagerly with a message naming the argument, the expectation and what was received."""

import numpy as np
import pytest

import difflab.quantum.circuits as qc


def test_wire_out_of_range_names_the_operation():
    with pytest.raises(ValueError, match=r"operations\[1\]\.wires.*range\(0, 2\).*\(0, 2\).*Controlled"):
        qc.Circuit(2, [qc.H(0), qc.CNOT(0, 2)])


def test_bad_wires():
    with pytest.raises(ValueError, match="wires must be distinct wires; got \\(1, 1\\)"):
        qc.SWAP(1, 1)
    with pytest.raises(ValueError, match="wires must be non-negative wire indices; got \\(-1,\\)"):
        qc.X(-1)
    with pytest.raises(ValueError, match=r"wires must be one or more integer wire indices; got 0\.5"):
        qc.RX(0.1, 0.5)
    with pytest.raises(ValueError, match="controls \\(1,\\) must not overlap the target wires \\(1,\\)"):
        qc.CNOT(1, 1)
    with pytest.raises(ValueError, match="n_wires must be a positive integer; got 0"):
        qc.Circuit(0, [])


def test_non_unitary_matrix_is_refused():
    with pytest.raises(ValueError, match=r"matrix must be unitary: max \|U†U − 1\| = 0\.21"):
        qc.Unitary(np.diag([1.0, 1.1]), 0)
    with pytest.raises(ValueError, match=r"matrix must have shape \(4, 4\) for 2 wire\(s\); got \(2, 2\)"):
        qc.Unitary(np.eye(2), (0, 1))


def test_kraus_set_not_summing_to_identity_is_refused():
    ops = np.array([[[1, 0], [0, 0.9]], [[0, 0.3], [0, 0]]])
    with pytest.raises(ValueError, match=r"operators must satisfy Σ K†K = 1.*max \|Σ K†K − 1\| = 0\.1"):
        qc.Kraus(ops, 0)
    with pytest.raises(ValueError, match=r"operators must have shape \(K, 2, 2\) for 1 wire\(s\); got \(2, 2\)"):
        qc.Kraus(np.eye(2), 0)
    with pytest.raises(ValueError, match=r"gamma must be a probability in \[0, 1\]; got 1\.5"):
        qc.AmplitudeDamping(1.5, 0)


def test_pauli_strings_of_wrong_length_or_letters():
    with pytest.raises(ValueError, match=r"strings\[1\] = 'ZZZ' has length 3; .* length of the first, 2"):
        qc.PauliSum([1.0, 2.0], ["XX", "ZZZ"])
    with pytest.raises(ValueError, match=r"strings\[0\] = 'XA' must be a non-empty string over 'IXYZ'"):
        qc.PauliSum([1.0], ["XA"])
    with pytest.raises(ValueError, match=r"coefficients must have shape \(2,\), one per string; got \(3,\)"):
        qc.PauliSum([1.0, 2.0, 3.0], ["XX", "ZZ"])
    with pytest.raises(ValueError, match=r"state must have shape \(8,\) or \(8, 8\) for Pauli strings of length 3"):
        qc.expectation(qc.PauliSum([1.0], ["ZZZ"]), np.ones(4) / 2)


def test_noisy_circuit_refuses_statevector_and_bad_states():
    noisy = qc.Circuit(1, [qc.H(0), qc.Dephasing(0.1, 0)])
    with pytest.raises(ValueError, match=r"operations\[1\] is a noise channel \(Dephasing\).*density_matrix"):
        noisy.statevector()
    with pytest.raises(ValueError, match="psi0 must be normalised; got norm 2"):
        qc.Circuit(1, [qc.H(0)]).statevector(np.array([2.0, 0.0]))
    with pytest.raises(ValueError, match=r"psi0 must have shape \(4,\) for 2 wires; got \(2,\)"):
        qc.Circuit(2, [qc.H(0)]).statevector(np.array([1.0, 0.0]))


def test_bad_hamiltonian_and_measurement_arguments():
    with pytest.raises(ValueError, match=r"bond_length must be one of the tabulated values .*; got 0\.75"):
        qc.h2_hamiltonian(0.75)
    with pytest.raises(ValueError, match=r"edges\[1\] must lie in range\(0, 3\)"):
        qc.maxcut_hamiltonian([(0, 1), (1, 3)], 3)
    with pytest.raises(ValueError, match="shots must be a positive integer; got 0"):
        qc.sample(None, np.array([1.0, 0.0]), 0)
    with pytest.raises(ValueError, match=r"key must be a jax\.random key when shots > 0"):
        qc.measure(np.array([1.0, 0.0]), shots=10)
    with pytest.raises(TypeError, match=r"key must be one JAX random key, made by jax\.random\.key.*; got int 3"):
        qc.measure(np.array([1.0, 0.0]), shots=10, key=3)
    with pytest.raises(ValueError, match=r"state must be a state vector \(2ⁿ,\) or a density matrix"):
        qc.probabilities(np.ones(3))


def test_unphysical_starting_states_nan_angles_and_coefficients_are_refused():
    """Each had run: a non-positive rho0 gave probabilities [1.455, -0.455], NaN angles and coefficients gave NaN."""
    circuit = qc.Circuit(1, [qc.H(0)])
    negative = np.array([[1.2, 0.0], [0.0, -0.2]])  # Hermitian, unit trace, one negative eigenvalue
    with pytest.raises(ValueError, match=r"rho0 must be positive semidefinite; its lowest eigenvalue is -0.2"):
        circuit.density_matrix(negative)
    with pytest.raises(ValueError, match=r"rho0 must be finite"):
        circuit.density_matrix(np.array([[np.nan, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match=r"psi0 must be finite"):
        circuit.statevector(np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match=r"theta must be a finite angle \(radians\); got nan"):
        qc.RX(np.nan, 0)
    with pytest.raises(ValueError, match=r"phi must be a finite angle"):
        qc.Phase(np.inf, 0)
    with pytest.raises(ValueError, match=r"coefficients must be finite"):
        qc.PauliSum([1.0, np.nan], ["Z", "X"])


def test_traced_non_unitary_gates_bad_probabilities_and_angles_are_flagged():
    """Under jit the same checks run in the compiled program (eqx.error_if) instead of returning 4 or NaN."""
    import jax
    import jax.numpy as jnp

    def probabilities(ops):
        return qc.probabilities(qc.Circuit(1, ops).density_matrix())

    with pytest.raises(Exception, match=r"matrix must be unitary"):
        jax.jit(lambda s: probabilities([qc.Unitary(s * jnp.eye(2), 0)]))(2.0).block_until_ready()
    with pytest.raises(Exception, match=r"p must be a probability in \[0, 1\]"):
        jax.jit(lambda p: probabilities([qc.H(0), qc.Depolarizing(p, 0)]))(1.5).block_until_ready()
    with pytest.raises(Exception, match=r"theta must be a finite angle"):
        jax.jit(lambda t: probabilities([qc.RX(t, 0)]))(jnp.nan).block_until_ready()
    good = jax.jit(lambda p: probabilities([qc.H(0), qc.Depolarizing(p, 0)]))(0.3)
    np.testing.assert_allclose(good, [0.5, 0.5], atol=1e-12)
