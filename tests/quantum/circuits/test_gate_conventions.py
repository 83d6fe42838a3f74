"""U3, Sdg, Tdg, SXdg, SingleExcitation, CY, CH, CSWAP against their closed-form matrices and textbook identities."""

import numpy as np
import pytest
import scipy.linalg

import difflab.quantum.circuits as qc

X = np.array([[0, 1], [1, 0]])
Y = np.array([[0, -1j], [1j, 0]])
H = np.array([[1, 1], [1, -1]]) / np.sqrt(2)


def rz(a):
    return np.diag([np.exp(-0.5j * a), np.exp(0.5j * a)])


def ry(a):
    return np.array([[np.cos(a / 2), -np.sin(a / 2)], [np.sin(a / 2), np.cos(a / 2)]])


def m(gate):
    return np.asarray(gate.matrix())


def test_u3_is_qiskits_matrix_and_euler_product():
    t, p, lam = 0.7, -1.3, 2.1
    want = [[np.cos(t / 2), -np.exp(1j * lam) * np.sin(t / 2)],
            [np.exp(1j * p) * np.sin(t / 2), np.exp(1j * (p + lam)) * np.cos(t / 2)]]  # fmt: skip
    np.testing.assert_allclose(m(qc.U3(t, p, lam, 0)), want, rtol=0, atol=1e-15)
    euler = np.exp(0.5j * (p + lam)) * rz(p) @ ry(t) @ rz(lam)
    np.testing.assert_allclose(m(qc.U3(t, p, lam, 0)), euler, rtol=0, atol=1e-15)


def test_pennylane_rot_is_u3_up_to_the_stated_phase():
    phi, theta, omega = 0.3, 1.9, -0.8
    rot = rz(omega) @ ry(theta) @ rz(phi)  # PennyLane's Rot(φ, θ, ω)
    u3 = m(qc.U3(theta, omega, phi, 0))
    np.testing.assert_allclose(rot, np.exp(-0.5j * (phi + omega)) * u3, rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    ("gate", "want"),
    [(qc.U3(0.6, -np.pi / 2, np.pi / 2, 0), qc.RX(0.6, 0)), (qc.U3(0.6, 0, 0, 0), qc.RY(0.6, 0)),
     (qc.U3(0, 0, 0.6, 0), qc.Phase(0.6, 0)), (qc.U3(np.pi, 0, np.pi, 0), qc.X(0)),
     (qc.U3(np.pi / 2, 0, np.pi, 0), qc.H(0))],
)  # fmt: skip
def test_u3_special_cases(gate, want):
    np.testing.assert_allclose(m(gate), m(want), rtol=0, atol=1e-15)


def test_dagger_gates():
    np.testing.assert_allclose(m(qc.Sdg(0)), np.diag([1, -1j]), atol=0)
    np.testing.assert_allclose(m(qc.Tdg(0)), np.diag([1, np.exp(-0.25j * np.pi)]), atol=1e-16)
    np.testing.assert_allclose(m(qc.SXdg(0)) @ m(qc.SXdg(0)), X, atol=1e-16)
    np.testing.assert_allclose(m(qc.SXdg(0)), m(qc.SX(0)).conj().T, atol=0)


def test_single_excitation_is_pennylanes_givens_rotation():
    theta = 0.9
    c, s = np.cos(theta / 2), np.sin(theta / 2)
    want = np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]])
    np.testing.assert_allclose(m(qc.SingleExcitation(theta, (0, 1))), want, rtol=0, atol=1e-16)
    # PennyLane's generator: G(θ) = exp(−iθ/2 · (Y⊗X − X⊗Y)/2)
    gen = 0.5 * (np.kron(Y, X) - np.kron(X, Y))
    np.testing.assert_allclose(want, scipy.linalg.expm(-0.5j * theta * gen), rtol=0, atol=1e-15)
    psi = qc.Circuit(2, [qc.X(1), qc.SingleExcitation(theta, (0, 1))]).statevector()  # |01>
    np.testing.assert_allclose(psi, [0, c, s, 0], rtol=0, atol=1e-16)


def controlled(u):
    k = len(u)
    return scipy.linalg.block_diag(np.eye(k), u)


@pytest.mark.parametrize(
    ("gate", "target"),
    [(qc.CY(0, 1), Y), (qc.CH(0, 1), H), (qc.CSWAP(0, 1, 2), np.eye(4)[[0, 2, 1, 3]])],
    ids=["CY", "CH", "CSWAP"],
)
def test_named_controlled_gates(gate, target):
    np.testing.assert_allclose(m(gate), controlled(target), rtol=0, atol=1e-16)
    # the first wire is the control: on |1 0…> the target acts, on |0…> nothing happens
    n = len(gate.wires)
    np.testing.assert_allclose(qc.Circuit(n, [gate]).unitary(), controlled(target), rtol=0, atol=1e-16)


def test_bad_gate_arguments_are_named():
    with pytest.raises(ValueError, match="lam must be a finite angle"):
        qc.U3(0.1, 0.2, float("nan"), 0)
    with pytest.raises(ValueError, match="wires of SingleExcitation must hold 2 wires"):
        qc.SingleExcitation(0.1, (0, 1, 2))
    with pytest.raises(ValueError, match="wire must be a single wire"):
        qc.U3(0.1, 0.2, 0.3, (0, 1))
