"""OpenQASM 2/3: hand-written programs against their known states, random round trips, refusals by line number."""

from pathlib import Path

import numpy as np
import pytest

import difflab.quantum.circuits as qc

HERE = Path(__file__).parent / "qasm"
S2 = 1 / np.sqrt(2)

KNOWN = {
    "bell.qasm": {0: S2, 3: S2},
    "ghz3.qasm": {0: S2, 7: S2},
    "registers.qasm": {4: -0.5, 5: -0.5j, 6: -0.5, 7: -0.5j},
    "euler.qasm": {2: (1 + 1j) / 2, 3: (1 - 1j) / 2},
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_hand_written_programs_give_their_known_states(name):
    circuit = qc.from_qasm(HERE / name)
    want = np.zeros(2**circuit.n_wires, dtype=complex)
    for index, amplitude in KNOWN[name].items():
        want[index] = amplitude
    np.testing.assert_allclose(circuit.statevector(), want, rtol=0, atol=1e-15)


def _random_circuit(seed: int, version: int, n: int = 4, depth: int = 40) -> qc.Circuit:
    rng = np.random.default_rng(seed)
    one = [qc.X, qc.Y, qc.Z, qc.H, qc.S, qc.Sdg, qc.T, qc.Tdg, qc.SX, qc.I]
    rot = [qc.RX, qc.RY, qc.RZ, qc.Phase]
    two = [qc.CNOT, qc.CY, qc.CZ, qc.CH, qc.SWAP]
    crot = [qc.CRX, qc.CRY, qc.CRZ, qc.CPhase] + ([qc.ZZ, qc.XX] if version == 2 else [])
    ops = []
    for _ in range(depth):
        w = [int(x) for x in rng.permutation(n)]
        a = float(rng.uniform(-2 * np.pi, 2 * np.pi))
        kind = rng.integers(7)
        if kind == 0:
            ops.append(one[rng.integers(len(one))](w[0]))
        elif kind == 1:
            ops.append(rot[rng.integers(len(rot))](a, w[0]))
        elif kind == 2:
            ops.append(qc.U3(a, *rng.uniform(-np.pi, np.pi, 2), w[0]))
        elif kind == 3:
            ops.append(two[rng.integers(len(two))](w[0], w[1]))
        elif kind == 4:
            ops.append(crot[rng.integers(len(crot))](a, w[0], w[1]))
        else:
            ops.append([qc.Toffoli, qc.CSWAP][kind - 5](w[0], w[1], w[2]))
    return qc.Circuit(n, ops)


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_circuits_round_trip(version, seed):
    circuit = _random_circuit(seed, version)
    text = circuit.to_qasm(version=version)
    back = qc.from_qasm(text)
    assert back.n_wires == circuit.n_wires and len(back.operations) == len(circuit.operations)
    # gate by gate: a random circuit has no repeated layers for `scan` to find, and compiles slowly as one program
    np.testing.assert_allclose(back.statevector(scan=False), circuit.statevector(scan=False), rtol=0, atol=1e-12)
    assert back.to_qasm(version=version) == text  # angles written with repr read back bit for bit


def test_reset_round_trips_and_acts_on_the_density_matrix():
    circuit = qc.from_qasm("OPENQASM 2.0;\nqreg q[2];\nh q[0];\ncx q[0],q[1];\nreset q[0];\n")
    assert isinstance(circuit.operations[-1], qc.Reset)
    # a Bell pair with wire 0 reset: |0><0| ⊗ I/2
    np.testing.assert_allclose(circuit.density_matrix(), np.diag([0.5, 0.5, 0, 0]), rtol=0, atol=1e-15)
    assert "reset q[0];" in circuit.to_qasm()


BAD = [
    ("OPENQASM 2.0;\nqreg q[2];\nfoo q[0];", "line 3: unknown gate 'foo'"),
    ("OPENQASM 2.0;\nqreg q[1];\n\nrx(theta) q[0];", "line 4 \\(rx\\): unknown parameter name 'theta'"),
    ("OPENQASM 2.0;\nqreg q[1];\nrx(1, 2) q[0];", "line 3: gate 'rx' takes 1 parameter\\(s\\); got 2"),
    ("OPENQASM 2.0;\nqreg q[2];\ncx q[0];", "line 3: gate 'cx' acts on 2 qubit\\(s\\); got 1"),
    ("OPENQASM 2.0;\nqreg q[2];\nx q[2];", "line 3: index 2 is out of range for register q\\[2\\]"),
    ("OPENQASM 2.0;\nqreg q[2];\nx r[0];", "line 3: 'r\\[0\\]' is not a declared qubit"),
    ("OPENQASM 2.0;\nqreg q[2];\ngate g a { x a; }", "line 3: 'gate' statements are not supported"),
    ("OPENQASM 3.0;\nqubit[2] q;\nctrl @ x q[0], q[1];", "line 3: 'ctrl' statements are not supported"),
    ("OPENQASM 3.0;\nqubit[1] q;\nmeasure q[0];\nx q[0];", "line 4: gate 'x' on a qubit after"),
    ("OPENQASM 2.0;\nqreg q[1];\nx q[0]", "line 3: statement 'x q\\[0\\]' does not end with ';'"),
    ("OPENQASM 2.0;\nqreg q[1];\nrx(sinh(1)) q[0];", "line 3 \\(rx\\): unknown function 'sinh'"),
    ("OPENQASM 2.0;\nx q[0];", "line 2: 'x q\\[0\\]' comes before any quantum register"),
    ("OPENQASM 2.0;\nqreg q[2];\ncx q[1], q[1];", "line 3: controls \\(1,\\) must not overlap the target wires"),
    ("OPENQASM 2.0;", "declares no quantum register"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_programs_are_refused_by_line(text, message):
    with pytest.raises(ValueError, match=message):
        qc.from_qasm(text)


def test_export_refuses_what_has_no_standard_name():
    with pytest.raises(ValueError, match=r"operations\[1\] \(Gate on wires \(0, 1\)\) has no OpenQASM 2 name"):
        qc.Circuit(2, [qc.H(0), qc.ISWAP(0, 1)]).to_qasm()
    with pytest.raises(ValueError, match=r"operations\[0\] \(PauliRotation .*\) has no OpenQASM 3 name"):
        qc.Circuit(2, [qc.ZZ(0.1, 0, 1)]).to_qasm(version=3)
    with pytest.raises(ValueError, match=r"operations\[0\] \(Depolarizing"):
        qc.Circuit(1, [qc.Depolarizing(0.1, 0)]).to_qasm()
    with pytest.raises(ValueError, match="version must be 2 or 3; got 4"):
        qc.Circuit(1, [qc.H(0)]).to_qasm(version=4)
