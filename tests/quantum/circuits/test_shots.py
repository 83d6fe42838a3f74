"""Shot estimates against exact expectation values (fixed keys), standard errors against sqrt(Var/shots);
Hermitian and Projector observables against dense matrices."""

import jax
import numpy as np
import pytest

import difflab.quantum.circuits as qc

KEY = jax.random.key(20261204)


def dense_on(matrix, wires, n):
    """The 2ⁿ × 2ⁿ operator of `matrix` on `wires` (in that order)."""
    k = len(wires)
    rest = [w for w in range(n) if w not in wires]
    full = np.kron(matrix, np.eye(2 ** (n - k))).reshape((2,) * (2 * n))
    order = list(wires) + rest
    perm = [order.index(w) for w in range(n)]
    return full.transpose(perm + [n + p for p in perm]).reshape(2**n, 2**n)


def random_state(n, seed):
    rng = np.random.default_rng(seed)
    psi = rng.normal(size=2**n) + 1j * rng.normal(size=2**n)
    return psi / np.linalg.norm(psi)


def test_single_pauli_standard_error_is_the_binomial_one():
    theta, shots = 1.1, 20000
    psi = qc.Circuit(1, [qc.RY(theta, 0)]).statevector()
    e = qc.estimate_expectation(qc.PauliSum([1.0], ["Z"]), psi, shots, key=KEY)
    # <Z> = cos θ, Var(Z) = 1 − cos² θ = sin² θ
    np.testing.assert_allclose(e.exact_standard_error, np.sin(theta) / np.sqrt(shots), rtol=1e-12)
    assert abs(e.value - np.cos(theta)) < 4 * e.standard_error
    np.testing.assert_allclose(e.standard_error, e.exact_standard_error, rtol=0.03)


def test_groups_share_a_basis_and_their_variances_add():
    h = qc.PauliSum([1.0, 1.0, 1.0, 0.5], ["XI", "IZ", "ZZ", "II"])
    assert qc.qubitwise_groups(h) == [[0, 1], [2]]
    psi = qc.Circuit(2, [qc.H(0)]).statevector()  # |+>|0>: XI and IZ are certain (+1), ZZ is ±1 at random
    e = qc.estimate_expectation(h, psi, 4000, key=KEY)
    np.testing.assert_allclose(e.exact_standard_error, 1 / np.sqrt(4000), rtol=1e-12)
    assert abs(e.value - 2.5) < 4 * e.standard_error and e.groups == ((0, 1), (2,))


def test_h2_energy_from_shots_within_four_standard_errors():
    h = qc.h2_hamiltonian(0.7414)
    psi = qc.h2_ansatz(0.2).statevector()
    groups = qc.qubitwise_groups(h)
    seen = sorted(t for g in groups for t in g)
    assert seen == [t for t, s in enumerate(h.strings) if set(s) != {"I"}]
    for g in groups:  # on every wire the group's strings hold one letter (or I)
        for w in range(4):
            assert len({h.strings[t][w] for t in g} - {"I"}) <= 1
    e = qc.estimate_expectation(h, psi, 20000, key=KEY)
    exact = float(qc.expectation(h, psi))
    assert abs(e.value - exact) < 4 * e.standard_error
    np.testing.assert_allclose(e.standard_error, e.exact_standard_error, rtol=0.05)


def test_readout_error_biases_the_estimate_as_the_confusion_matrix_says():
    rho = np.diag([1.0, 0.0]).astype(complex)
    e = qc.estimate_expectation(qc.PauliSum([1.0], ["Z"]), rho, 10000, key=KEY,
                                readout=[qc.ReadoutError(0.1, wire=0)])  # fmt: skip
    # read 1 from |0> with probability 0.1: <Z> = 0.8, Var = 1 − 0.64
    np.testing.assert_allclose(e.exact_standard_error, 0.6 / np.sqrt(10000), rtol=1e-12)
    assert abs(e.value - 0.8) < 4 * e.standard_error


def test_hermitian_and_projector_expectations_against_dense_matrices():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4))
    a = a + a.conj().T
    psi = random_state(3, 4)
    full = dense_on(a, [2, 0], 3)
    obs = qc.Hermitian(a, (2, 0))
    np.testing.assert_allclose(qc.expectation(obs, psi), np.vdot(psi, full @ psi).real, rtol=0, atol=1e-13)
    rho = np.outer(psi, psi.conj())
    np.testing.assert_allclose(qc.expectation(obs, rho), np.trace(full @ rho).real, rtol=0, atol=1e-13)
    # a basis-state projector is the probability of its bits: wire 1 in 1, wire 2 in 0
    p = np.abs(psi.reshape(2, 2, 2)) ** 2
    np.testing.assert_allclose(qc.expectation(qc.Projector([1, 0], (1, 2)), psi), p[:, 1, 0].sum(), atol=1e-15)
    phi = np.array([1, 1j]) / np.sqrt(2)
    want = np.vdot(psi, dense_on(np.outer(phi, phi.conj()), [1], 3) @ psi).real
    np.testing.assert_allclose(qc.expectation(qc.Projector(phi, 1), psi), want, rtol=0, atol=1e-15)
    # shots: the exact standard error is sqrt(<A²> − <A>²)/sqrt(N)
    e = qc.estimate_expectation(obs, psi, 20000, key=KEY)
    mean = np.vdot(psi, full @ psi).real
    var = np.vdot(psi, full @ full @ psi).real - mean**2
    np.testing.assert_allclose(e.exact_standard_error, np.sqrt(var / 20000), rtol=1e-10)
    assert abs(e.value - mean) < 4 * e.standard_error


def test_measure_adds_estimates_for_its_observables():
    psi = qc.Circuit(2, [qc.H(0), qc.CNOT(0, 1)]).statevector()
    obs = {"zz": qc.PauliSum([1.0], ["ZZ"]), "p11": qc.Projector([1, 1], (0, 1))}
    ds = qc.measure(psi, obs, shots=1000, key=KEY)
    np.testing.assert_allclose(ds.expectation, [1.0, 0.5], atol=1e-15)
    assert ds.estimate.values[0] == 1.0 and ds.standard_error.values[0] == 0.0  # ZZ is certain on a Bell pair
    np.testing.assert_allclose(ds.exact_standard_error.values[1], 0.5 / np.sqrt(1000), rtol=1e-12)
    assert abs(ds.estimate.values[1] - 0.5) < 4 * ds.standard_error.values[1]


def test_bad_observables_and_shots_are_refused():
    with pytest.raises(ValueError, match="matrix must be Hermitian"):
        qc.Hermitian([[0, 1], [0, 0]], 0)
    with pytest.raises(ValueError, match=r"matrix must have shape \(4, 4\)"):
        qc.Hermitian(np.eye(2), (0, 1))
    with pytest.raises(ValueError, match=r"state must be 2 bits \(0/1\) or a state vector of length 4"):
        qc.Projector([1, 2], (0, 1))
    with pytest.raises(ValueError, match="state must be normalised"):
        qc.Projector([1, 1], 0)
    psi = np.array([1, 0], dtype=complex)
    with pytest.raises(ValueError, match="shots must be an integer >= 2"):
        qc.estimate_expectation(qc.PauliSum([1.0], ["Z"]), psi, 1, key=KEY)
    with pytest.raises(TypeError, match=r"key must be one JAX random key, .*; got NoneType None"):
        qc.estimate_expectation(qc.PauliSum([1.0], ["Z"]), psi, 10, key=None)
    with pytest.raises(ValueError, match=r"observable\.wires must lie in range\(0, 1\)"):
        qc.expectation(qc.Projector([1], 3), psi)
    with pytest.raises(TypeError, match="observable must be a PauliSum, Hermitian or Projector; got ndarray"):
        qc.expectation(np.eye(2), psi)
