"""Kraus channels against their closed forms; invariants of the density matrix (trace 1, Hermitian, positive)."""

import jax
import numpy as np
import pytest

import difflab.quantum.circuits as qc

PLUS = np.array([1, 1]) / np.sqrt(2)


def evolve(ops, psi0):
    return np.asarray(qc.Circuit(1, ops).density_matrix(psi0))


def test_amplitude_damping_closed_form():
    g = 0.37
    rho = evolve([qc.AmplitudeDamping(g, 0)], np.array([0, 1.0]))
    np.testing.assert_allclose(rho, np.diag([g, 1 - g]), atol=1e-15)
    rho = evolve([qc.AmplitudeDamping(g, 0)], PLUS)
    np.testing.assert_allclose(rho, [[(1 + g) / 2, np.sqrt(1 - g) / 2], [np.sqrt(1 - g) / 2, (1 - g) / 2]], atol=1e-15)


def test_dephasing_shrinks_coherence_only():
    g = 0.2
    rho = evolve([qc.Dephasing(g, 0)], PLUS)
    np.testing.assert_allclose(rho, [[0.5, np.sqrt(1 - g) / 2], [np.sqrt(1 - g) / 2, 0.5]], atol=1e-15)


def test_depolarizing_shrinks_the_bloch_vector():
    p = 0.3
    psi = qc.Circuit(1, [qc.RY(0.9, 0), qc.RZ(0.4, 0)]).statevector()
    rho = evolve([qc.Depolarizing(p, 0)], np.asarray(psi))
    pure = np.outer(psi, np.conj(psi))
    np.testing.assert_allclose(rho, (1 - 4 * p / 3) * pure + (2 * p / 3) * np.eye(2), atol=1e-15)


def test_user_kraus_equals_builtin():
    g = 0.25
    ops = np.array([[[1, 0], [0, np.sqrt(1 - g)]], [[0, np.sqrt(g)], [0, 0]]])
    a = evolve([qc.H(0), qc.Kraus(ops, 0)], None)
    b = evolve([qc.H(0), qc.AmplitudeDamping(g, 0)], None)
    np.testing.assert_allclose(a, b, atol=1e-15)


def test_noisy_circuit_keeps_a_valid_density_matrix():
    ops = [qc.H(0), qc.CNOT(0, 1), qc.RX(0.4, 2), qc.Depolarizing(0.1, 1), qc.Toffoli(0, 1, 2),
           qc.AmplitudeDamping(0.3, 2), qc.Dephasing(0.5, 0), qc.CRY(1.2, 2, 0),
           qc.ReadoutError(0.02, 0.05, wire=1)]  # fmt: skip
    rho = np.asarray(qc.Circuit(3, ops).density_matrix())
    assert abs(np.trace(rho) - 1) < 1e-14
    np.testing.assert_allclose(rho, rho.conj().T, atol=1e-15)
    assert np.linalg.eigvalsh(rho).min() > -1e-14


def test_readout_error_confusion_matrix():
    ro = qc.ReadoutError(0.1, 0.3, wire=1)
    psi = qc.Circuit(2, [qc.X(0)]).statevector()  # |10>
    np.testing.assert_allclose(qc.probabilities(psi, readout=[ro]), [0, 0, 0.9, 0.1], atol=1e-15)
    psi = qc.Circuit(2, [qc.X(1)]).statevector()  # |01>: wire 1 reads 0 with p10 = 0.3
    np.testing.assert_allclose(qc.probabilities(psi, readout=[ro]), [0.3, 0.7, 0, 0], atol=1e-15)


def test_sampled_shots_follow_the_probabilities():
    psi = qc.Circuit(2, [qc.RY(2 * np.arcsin(np.sqrt(0.3)), 0), qc.CNOT(0, 1)]).statevector()  # 0.7|00> + 0.3|11>
    shots = np.asarray(qc.sample(jax.random.key(7), psi, 20_000))
    assert shots.shape == (20_000, 2)
    assert set(map(tuple, shots)) <= {(0, 0), (1, 1)}
    # Binomial standard error at 20 000 shots is 0.0032: five of them.
    assert abs(shots[:, 0].mean() - 0.3) < 0.016


def test_measure_returns_labelled_dataset():
    psi = qc.Circuit(2, [qc.H(0), qc.CNOT(0, 1)]).statevector()
    ds = qc.measure(psi, {"zz": qc.PauliSum([1.0], ["ZZ"]), "x0": qc.PauliSum([1.0], ["XI"])}, shots=100,
                    key=jax.random.key(0), wire_names=["a", "b"])  # fmt: skip
    assert list(ds.bitstring.values) == ["00", "01", "10", "11"]
    np.testing.assert_allclose(ds.probability.values, [0.5, 0, 0, 0.5], atol=1e-15)
    np.testing.assert_allclose(ds.p1.sel(wire="b"), 0.5, atol=1e-15)
    np.testing.assert_allclose(ds.expectation.sel(observable="zz"), 1.0, atol=1e-15)
    np.testing.assert_allclose(ds.expectation.sel(observable="x0"), 0.0, atol=1e-15)
    assert int(ds.counts.sum()) == 100 and int(ds.counts.sel(bitstring="01")) == 0
    assert ds.shots.dims == ("shot", "wire")


@pytest.mark.parametrize("make", [qc.AmplitudeDamping, qc.Dephasing, qc.Depolarizing])
def test_channels_are_trace_preserving(make):
    k = np.asarray(make(0.4, 0).kraus())
    np.testing.assert_allclose(np.einsum("kji,kjl->il", k.conj(), k), np.eye(2), atol=1e-15)


def test_the_quantum_channel_base_has_its_own_name():
    """`AbstractQuantumChannel` (a Kraus map) is told apart from `difflab.neuron.AbstractChannel` (an ion channel)."""
    import difflab.neuron
    import difflab.quantum.circuits as qc

    assert issubclass(qc.Depolarizing, qc.AbstractQuantumChannel)
    assert not issubclass(qc.Depolarizing, difflab.neuron.AbstractChannel)
    with pytest.warns(DeprecationWarning, match=r"AbstractChannel is deprecated .* AbstractQuantumChannel"):
        assert qc.AbstractChannel is qc.AbstractQuantumChannel
