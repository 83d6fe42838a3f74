"""Inverse circuits: every gate's `adjoint()` undoes it to round-off (1e-14), channels and leaky pulses are refused."""

import jax
import numpy as np
import pytest

import difflab.quantum.circuits as qc

RNG = np.random.default_rng(7)
_Q, _ = np.linalg.qr(RNG.normal(size=(4, 4)) + 1j * RNG.normal(size=(4, 4)))

GATES = [
    qc.I(0), qc.X(1), qc.Y(2), qc.Z(3), qc.H(0), qc.S(1), qc.Sdg(2), qc.T(3), qc.Tdg(0), qc.SX(1), qc.SXdg(2),
    qc.SWAP(3, 0), qc.ISWAP(1, 2), qc.RX(0.3, 0), qc.RY(-1.1, 1), qc.RZ(2.2, 2), qc.Phase(0.7, 3),
    qc.XX(-0.9, 1, 3), qc.YY(1.3, 0, 1), qc.ZZ(0.4, 2, 0), qc.PauliRotation(0.8, "XZY", (2, 0, 3)),
    qc.U3(0.4, -1.2, 2.5, 1), qc.SingleExcitation(0.9, (3, 1)), qc.DoubleExcitation(0.8, (3, 1, 0, 2)),
    qc.CNOT(0, 2), qc.CY(1, 3), qc.CZ(2, 0), qc.CH(3, 1), qc.CRX(0.5, 0, 1), qc.CRY(-0.6, 1, 2),
    qc.CRZ(1.7, 2, 3), qc.CPhase(0.9, 3, 0), qc.Toffoli(0, 1, 2), qc.CSWAP(3, 0, 2),
    qc.Controlled(qc.U3(0.2, 0.3, 0.4, 2), (0, 3), values=(0, 1)), qc.Unitary(_Q, (2, 0)),
]  # fmt: skip


@pytest.mark.parametrize("gate", GATES, ids=lambda g: type(g).__name__)
def test_every_gate_times_its_adjoint_is_the_identity(gate):
    u, v = np.asarray(gate.matrix()), np.asarray(gate.adjoint().matrix())
    np.testing.assert_allclose(v @ u, np.eye(len(u)), rtol=0, atol=1e-14)
    np.testing.assert_allclose(v, u.conj().T, rtol=0, atol=1e-15)
    assert type(gate.adjoint()) is type(gate) and gate.adjoint().wires == gate.wires


def test_parametrised_gates_negate_their_angle_and_fixed_gates_name_their_inverse():
    assert float(qc.RX(0.3, 0).adjoint().theta) == -0.3
    assert float(qc.Phase(0.7, 0).adjoint().phi) == -0.7
    u = qc.U3(0.4, -1.2, 2.5, 0).adjoint()
    assert (float(u.theta), float(u.phi), float(u.lam)) == (-0.4, -2.5, 1.2)
    assert [qc.Gate(n, 0).adjoint().name for n in ("S", "Sdg", "T", "Tdg", "SX", "SXdg", "H")] == [
        "Sdg", "S", "Tdg", "T", "SXdg", "SX", "H"]  # fmt: skip


def test_inverse_circuit_times_circuit_is_the_identity():
    circuit = qc.Circuit(4, GATES)
    u = np.asarray(circuit.unitary())
    np.testing.assert_allclose(np.asarray(circuit.inverse().unitary()) @ u, np.eye(16), rtol=0, atol=1e-14)
    psi = circuit.statevector()
    back = circuit.adjoint().statevector(psi)
    np.testing.assert_allclose(back, np.eye(16)[0], rtol=0, atol=1e-14)


def test_gradients_flow_through_the_inverse():
    # <0|RX(a)† Z RX(a)|0> through the inverse of RX(−a): cos(a), derivative −sin(a).
    def z(a):
        psi = qc.Circuit(1, [qc.RX(-a, 0)]).inverse().statevector()
        return qc.expectation(qc.PauliSum([1.0], ["Z"]), psi)

    np.testing.assert_allclose(jax.grad(z)(0.7), -np.sin(0.7), rtol=0, atol=1e-14)


def test_channels_and_leaky_pulses_have_no_inverse():
    with pytest.raises(ValueError, match=r"operations\[1\] is a noise channel \(Depolarizing\)"):
        qc.Circuit(1, [qc.H(0), qc.Depolarizing(0.1, 0)]).inverse()
    with pytest.raises(ValueError, match=r"operations\[0\] \(PulseGate\) is not unitary"):
        qc.Circuit(1, [qc.PulseGate(0.1, 0)]).adjoint()
    with pytest.raises(TypeError, match="PulseGate has no adjoint gate"):
        qc.PulseGate(0.1, 0).adjoint()
