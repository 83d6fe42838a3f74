"""The OpenQASM gate names difflab reads and writes, with their parameter and qubit counts.

Names are those of OpenQASM 2's `qelib1.inc` as Qiskit ships it and of OpenQASM 3's `stdgates.inc`, with the
same matrices as there; the qubit arguments come in the order of the difflab constructor (controls first). `U` and
`CX` are the languages' built-in gates. OpenQASM numbers qubits from 0 like difflab's wires, but Qiskit's state
vectors put qubit 0 in the least significant bit, difflab's in the most significant: the same circuit's amplitudes
are bit-reversed between the two.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _standard_gates as g
from ._gates import Controlled, Gate, PauliRotation, PhaseShift
from ._midcircuit import Conditional, Measure, register
from ._qasm_classical import condition_text, declarations, measure_lines, register_names
from ._relaxation import Reset
from ._u3 import U3

_Maker = Callable[..., Any]


def _u2(phi, lam, wire):
    return U3(np.pi / 2, phi, lam, wire)


#: name -> (number of parameters, number of qubits, constructor(*params, *wires)).
GATES: dict[str, tuple[int, int, _Maker]] = {
    "id": (0, 1, g.I), "x": (0, 1, g.X), "y": (0, 1, g.Y), "z": (0, 1, g.Z), "h": (0, 1, g.H), "s": (0, 1, g.S),
    "sdg": (0, 1, g.Sdg), "t": (0, 1, g.T), "tdg": (0, 1, g.Tdg), "sx": (0, 1, g.SX), "sxdg": (0, 1, g.SXdg),
    "rx": (1, 1, g.RX), "ry": (1, 1, g.RY), "rz": (1, 1, g.RZ), "p": (1, 1, g.Phase), "phase": (1, 1, g.Phase),
    "u1": (1, 1, g.Phase), "u2": (2, 1, _u2), "u3": (3, 1, U3), "u": (3, 1, U3), "U": (3, 1, U3),
    "cx": (0, 2, g.CNOT), "CX": (0, 2, g.CNOT), "cy": (0, 2, g.CY), "cz": (0, 2, g.CZ), "ch": (0, 2, g.CH),
    "swap": (0, 2, g.SWAP), "iswap": (0, 2, g.ISWAP), "crx": (1, 2, g.CRX), "cry": (1, 2, g.CRY),
    "crz": (1, 2, g.CRZ), "cp": (1, 2, g.CPhase), "cphase": (1, 2, g.CPhase), "cu1": (1, 2, g.CPhase),
    "rxx": (1, 2, g.XX), "ryy": (1, 2, g.YY), "rzz": (1, 2, g.ZZ), "ccx": (0, 3, g.Toffoli),
    "cswap": (0, 3, g.CSWAP), "reset": (0, 1, Reset),
}  # fmt: skip

#: The names each version's standard include defines (what `to_qasm` may write without a gate definition).
INCLUDED = {
    2: {"id", "x", "y", "z", "h", "s", "sdg", "t", "tdg", "sx", "sxdg", "rx", "ry", "rz", "p", "u1", "u2", "u3",
        "cx", "cy", "cz", "ch", "swap", "crx", "cry", "crz", "cp", "cu1", "rxx", "rzz", "ccx", "cswap", "reset"},
    3: {"id", "x", "y", "z", "h", "s", "sdg", "t", "tdg", "sx", "rx", "ry", "rz", "p", "u1", "u2", "u3", "cx",
        "cy", "cz", "ch", "swap", "crx", "cry", "crz", "cp", "ccx", "cswap", "reset"},
}  # fmt: skip
HEADER = {2: 'OPENQASM 2.0;\ninclude "qelib1.inc";', 3: 'OPENQASM 3.0;\ninclude "stdgates.inc";'}

_FIXED = {"I": "id", "X": "x", "Y": "y", "Z": "z", "H": "h", "S": "s", "Sdg": "sdg", "T": "t", "Tdg": "tdg",
          "SX": "sx", "SXdg": "sxdg", "SWAP": "swap", "ISWAP": "iswap"}  # fmt: skip
_CONTROLLED_FIXED = {("X", 1): "cx", ("Y", 1): "cy", ("Z", 1): "cz", ("H", 1): "ch", ("SWAP", 1): "cswap",
                     ("X", 2): "ccx"}  # fmt: skip


def qasm_name(op) -> tuple[str, list] | None:
    """The OpenQASM name and parameters (radians) of a difflab operation, or None when it has none."""
    if isinstance(op, Gate):
        return (_FIXED[op.name], []) if op.name in _FIXED else None
    if isinstance(op, Reset):
        return "reset", []
    if isinstance(op, U3):
        return "u3", [op.theta, op.phi, op.lam]
    if isinstance(op, PhaseShift):
        return "p", [op.phi]
    if isinstance(op, PauliRotation) and op.pauli in ("X", "Y", "Z", "XX", "YY", "ZZ"):
        return "r" + op.pauli.lower(), [op.theta]
    if isinstance(op, Controlled) and set(op.values) == {1}:
        base, k = op.base, len(op.controls)
        if isinstance(base, Gate) and (base.name, k) in _CONTROLLED_FIXED:
            return _CONTROLLED_FIXED[base.name, k], []
        if k == 1 and isinstance(base, PauliRotation) and base.pauli in ("X", "Y", "Z"):
            return "cr" + base.pauli.lower(), [base.theta]
        if k == 1 and isinstance(base, PhaseShift):
            return "cp", [base.phi]
    return None


def to_qasm(n_wires: int, operations, version: int) -> str:
    """OpenQASM `version` (2 or 3) text of `operations` on one register `q` of `n_wires` qubits.

    Angles are written with `repr`, which reads back to the same float64. An operation without a name in the
    version's standard include (ISWAP, PauliRotation on other words, excitations, Unitary, noise other than
    reset, ...) is refused by its position. Classical bits, `Measure` and `Conditional`: `_qasm_classical`.
    """
    if version not in HEADER:
        raise ValueError(f"version must be 2 or 3; got {version!r}")
    bits = register(operations)
    names = register_names(bits)
    lines = [HEADER[version], f"qreg q[{n_wires}];" if version == 2 else f"qubit[{n_wires}] q;"]
    lines += declarations(bits, version)
    for i, op in enumerate(operations):
        if isinstance(op, Measure):
            lines += measure_lines(op, names, version)
        elif isinstance(op, Conditional):
            condition = condition_text(op, names, version, f"operations[{i}]")
            body = [_gate_line(f"operations[{i}].ops[{j}]", g, version) for j, g in enumerate(op.ops)]
            if version == 2:
                lines += [f"{condition} {line}" for line in body]
            else:
                lines += [f"{condition} {{", *(f"  {line}" for line in body), "}"]
        else:
            lines.append(_gate_line(f"operations[{i}]", op, version))
    return "\n".join(lines) + "\n"


def _gate_line(where: str, op, version: int) -> str:
    """`name(params) q[a], q[b];` for one gate, refused by `where` when it has no name in the standard include."""
    named = qasm_name(op)
    if named is None or named[0] not in INCLUDED[version]:
        include = "qelib1.inc" if version == 2 else "stdgates.inc"
        raise ValueError(f"{where} ({type(op).__name__} on wires {op.wires}) has no OpenQASM {version} "
                         f"name in {include}; known: {', '.join(sorted(INCLUDED[version]))}")  # fmt: skip
    name, params = named
    try:
        values = [repr(float(np.asarray(p))) for p in params]
    except Exception:  # a traced angle has no value to write
        raise ValueError(f"{where} ({name}) holds a traced angle: export a concrete circuit") from None
    call = f"{name}({', '.join(values)})" if values else name
    return f"{call} {', '.join(f'q[{w}]' for w in op.wires)};"
