"""Reset, two-qubit depolarising and thermal relaxation against their closed forms (Qiskit's definitions)."""

import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum.circuits as qc


def random_density(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(2**n, 2**n)) + 1j * rng.normal(size=(2**n, 2**n))
    rho = a @ a.conj().T
    return rho / np.trace(rho)


def completeness(channel):
    k = np.asarray(channel.kraus())
    return np.abs(np.einsum("kji,kjl->il", k.conj(), k) - np.eye(k.shape[1])).max()


def test_reset_sends_the_wire_to_zero_and_keeps_the_rest():
    rho = random_density(2, 0)
    out = np.asarray(qc.Circuit(2, [qc.Reset(0)]).density_matrix(rho))
    reduced = np.einsum("aiaj->ij", rho.reshape(2, 2, 2, 2))  # trace over wire 0
    np.testing.assert_allclose(out, np.kron(np.diag([1, 0]), reduced), rtol=0, atol=1e-15)
    assert completeness(qc.Reset(0)) == 0


@pytest.mark.parametrize("p", [0.0, 0.2, 0.9375, 1.0])
def test_two_qubit_depolarizing_is_qiskits_with_lambda_16p_over_15(p):
    rho = random_density(3, 1)
    out = np.asarray(qc.Circuit(3, [qc.TwoQubitDepolarizing(p, (2, 0))]).density_matrix(rho))
    lam = 16 * p / 15
    r = rho.reshape((2,) * 6)
    kept = np.einsum("aibajb->ij", r)  # wire 1 alone (wires 0 and 2 traced out)
    mixed = np.einsum("ij,ac,bd->aibcjd", kept, np.eye(2) / 2, np.eye(2) / 2).reshape(8, 8)
    np.testing.assert_allclose(out, (1 - lam) * rho + lam * mixed, rtol=0, atol=1e-15)
    assert completeness(qc.TwoQubitDepolarizing(p, (0, 1))) < 1e-15


def test_one_qubit_depolarizing_is_qiskits_with_lambda_4p_over_3():
    rho, p = random_density(1, 2), 0.3
    out = np.asarray(qc.Circuit(1, [qc.Depolarizing(p, 0)]).density_matrix(rho))
    lam = 4 * p / 3
    np.testing.assert_allclose(out, (1 - lam) * rho + lam * np.eye(2) / 2, rtol=0, atol=1e-15)


@pytest.mark.parametrize(("t1", "t2"), [(50.0, 30.0), (50.0, 80.0), (50.0, 100.0)])
def test_thermal_relaxation_closed_form(t1, t2):
    rho, t = random_density(1, 3), 12.5
    out = np.asarray(qc.Circuit(1, [qc.ThermalRelaxation(t1, t2, t, 0)]).density_matrix(rho))
    p1, p2 = np.exp(-t / t1), np.exp(-t / t2)
    want = [[rho[0, 0] + (1 - p1) * rho[1, 1], p2 * rho[0, 1]], [p2 * rho[1, 0], p1 * rho[1, 1]]]
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-15)
    assert completeness(qc.ThermalRelaxation(t1, t2, t, 0)) < 1e-15


def test_thermal_relaxation_inside_a_circuit_and_under_jit():
    # T1 decay of |1> on wire 1 of a Bell pair: <Z1> goes from 0 to 1 − e^{−t/T1}
    def z1(t):
        c = qc.Circuit(2, [qc.H(0), qc.CNOT(0, 1), qc.ThermalRelaxation(40.0, 20.0, t, 1)])
        return qc.expectation(qc.PauliSum([1.0], ["IZ"]), c.density_matrix())

    np.testing.assert_allclose(z1(10.0), 1 - np.exp(-10 / 40), rtol=0, atol=1e-15)
    np.testing.assert_allclose(jnp.asarray(z1(jnp.asarray(10.0))), 1 - np.exp(-10 / 40), rtol=0, atol=1e-15)


def test_bad_channel_arguments_are_named():
    with pytest.raises(ValueError, match=r"t2 must be <= 2 t1 = 100 .*; got t2 = 101"):
        qc.ThermalRelaxation(50.0, 101.0, 1.0, 0)
    with pytest.raises(ValueError, match="t1 must be a finite scalar time > 0"):
        qc.ThermalRelaxation(0.0, 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="time must be a finite scalar time >= 0"):
        qc.ThermalRelaxation(50.0, 40.0, -1.0, 0)
    with pytest.raises(ValueError, match="p must be a probability"):
        qc.TwoQubitDepolarizing(1.5, (0, 1))
    with pytest.raises(ValueError, match="wires of TwoQubitDepolarizing must hold 2 wires"):
        qc.TwoQubitDepolarizing(0.1, 0)
