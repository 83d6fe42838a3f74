"""The text wire diagram: exact strings for small circuits, columns shared by disjoint gates, angles as π fractions."""

import jax
import numpy as np

import difflab.quantum.circuits as qc


def test_bell_diagram():
    assert str(qc.Circuit(2, [qc.H(0), qc.CNOT(0, 1)])) == "q0: ──H──●──\n         │\nq1: ─────⊕──"


def test_diagram_of_controls_swaps_channels_and_crossings():
    c = qc.Circuit(3, [qc.RX(np.pi / 2, 1), qc.Controlled(qc.Y(2), 0, values=[0]), qc.SWAP(0, 2), qc.Reset(1)])
    want = "\n".join([
        "q0: ───────────○──×───────",
        "               │  │",
        "q1: ──RX(π/2)──┼──┼──|0⟩──",
        "               │  │",
        "q2: ───────────Y──×───────",
    ])  # fmt: skip
    assert c.draw() == want


def test_disjoint_gates_share_a_column_and_order_is_kept():
    c = qc.Circuit(4, [qc.H(0), qc.H(3), qc.CNOT(1, 2), qc.X(0), qc.ZZ(0.3, 0, 3), qc.S(1)])
    position = {id(op): i for i, op in enumerate(c.operations)}
    # H(0), H(3), CNOT(1, 2) together; X(0); ZZ(0, 3) spans wires 0-3, so S(1) comes after it
    assert [[position[id(op)] for op, _ in col] for col in c.moments()] == [[0, 1, 2], [3], [4], [5]]


def test_angles_as_pi_fractions_and_traced_angles():
    assert qc.Circuit(1, [qc.U3(-3 * np.pi / 4, np.pi, 0.1234, 0)]).draw() == "q0: ──U3(-3π/4,π,0.123)──"

    drawn = []

    def f(theta):  # drawn while tracing: the angle has no value yet
        drawn.append(qc.Circuit(1, [qc.RY(theta, 0)]).draw())
        return theta

    jax.jit(f)(0.5)
    assert drawn == ["q0: ──RY(θ)──"]
