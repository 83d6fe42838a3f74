"""plot.circuit: the wire diagram of a circuit with matplotlib, the same layout as the text drawing."""

import numpy as np
import pytest
from matplotlib.figure import Figure

import difflab.quantum.circuits as qc
from difflab import plot

from ._render import render


def test_circuit_draws_boxes_controls_and_wires():
    c = qc.Circuit(3, [qc.H(0), qc.CNOT(0, 1), qc.RX(np.pi / 2, 2), qc.CSWAP(2, 0, 1), qc.Depolarizing(0.01, 1)])
    ax = plot.circuit(c)
    render(ax.figure)
    assert sorted(t.get_text() for t in ax.texts) == ["DP(0.01)", "H", "RX(π/2)"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["q0", "q1", "q2"]
    lines = ax.get_lines()
    # 3 wires; CNOT: link, control dot, ⊕ (circle and plus); CSWAP: link, dot, two crosses
    assert len(lines) == 3 + 4 + 4
    # the text diagram has the same columns: H and RX share the first, then CNOT, CSWAP, the channel
    assert [len(col) for col in c.moments()] == [2, 1, 1, 1]


def test_circuit_into_given_axes_and_bad_input():
    ax = Figure().add_subplot()
    assert plot.circuit(qc.Circuit(1, [qc.X(0)]), ax=ax) is ax
    with pytest.raises(TypeError, match=r"circuit must be a difflab\.quantum\.circuits\.Circuit; got list"):
        plot.circuit([qc.X(0)])
