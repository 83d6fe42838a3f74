r"""The deferred-measurement form of a circuit: measurements moved to the end, conditions turned into controls.

When a measured qubit is not touched after its measurement except as a condition, measuring it later gives the
same joint distribution, and a gate conditioned on its outcome k equals the gate controlled by the qubit in state
$|k\rangle$ (Nielsen & Chuang §4.4, the principle of deferred measurement). The circuit without its `Measure`s and
with each `Conditional` replaced by `Controlled` gates is then unitary: its state vector gives exact results and
exact gradients, and the classical bits are the Z-basis values of their measured wires at the end (the branch
weights of `_branching` are the marginal probabilities of those wires). Refused, naming the operation: a
measurement with reset, a bit written twice, a wire used after its measurement, a conditional gate on a measured
wire. Reference: Nielsen & Chuang, *Quantum Computation and Quantum Information*, §4.4.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._gates import AbstractGate, Controlled
from ._midcircuit import Bit, Conditional, Measure


def _controlled(gate: AbstractGate, controls: tuple[int, ...], values: tuple[int, ...]) -> Controlled:
    """`gate` controlled by `controls` at `values`; a controlled gate gains the new controls beside its own."""
    if isinstance(gate, Controlled):
        return Controlled(gate.base, controls + gate.controls, values + gate.values)
    return Controlled(gate, controls, values)


def deferred_operations(operations: Sequence) -> list:
    """The operations of the deferred-measurement circuit (see the module docstring); the rest are kept."""
    wire_of: dict[Bit, int] = {}
    out: list = []
    for i, op in enumerate(operations):
        measured = set(wire_of.values())
        if isinstance(op, Measure):
            if op.reset:
                raise ValueError(f"operations[{i}] measures with reset=True: the wire is used again, so the "
                                 "measurement cannot be deferred")  # fmt: skip
            if op.bit in wire_of:
                raise ValueError(f"operations[{i}] writes bit {op.bit!r} a second time: cannot be deferred")
        if measured & set(op.wires):
            raise ValueError(f"operations[{i}] ({type(op).__name__}) acts on the measured wire(s) "
                             f"{sorted(measured & set(op.wires))}: the measurement cannot be deferred")  # fmt: skip
        if isinstance(op, Measure):
            wire_of[op.bit] = op.wires[0]
        elif isinstance(op, Conditional):
            controls = tuple(wire_of[b] for b in op.bits)
            out.extend(_controlled(gate, controls, op.values) for gate in op.ops)
        else:
            out.append(op)
    return out
