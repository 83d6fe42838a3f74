r"""Mid-circuit measurement into classical bits, and operations conditioned on those bits.

- `Measure(wire, bit=...)`: a projective measurement of `wire` in the Z basis whose outcome $k \in \{0, 1\}$ is
  written to the classical bit `bit` (Qiskit's `measure(qubit, clbit)`, PennyLane's `qml.measure(wire)`). The state
  goes to $P_k\rho P_k / p_k$ with $P_k = |k\rangle\langle k|$ on the wire and $p_k = \mathrm{Tr}(P_k\rho)$;
  `reset=True` then sends the wire back to $|0\rangle$ (PennyLane's `measure(wire, reset=True)`), i.e. the
  operators are $|0\rangle\langle k|$.
- `Conditional(ops, bits=..., values=...)`: the gates `ops` applied only when each of `bits` holds its entry of
  `values` (Qiskit's `c_if` / `if_test`, PennyLane's `qml.cond`).

Classical bits are named by an int or a str; a circuit's classical register (`register`) holds them in the order of
their first measurement, the first one the most significant bit of a register value (as wire 0 is of a basis
state). Bits start at 0, as in Qiskit, but a condition on a bit that no earlier measurement writes is refused: it
is almost always a wrong name. How these circuits are simulated: `_branching` (exact, density matrix),
`_sampled` (shots, state vector) and `_deferred` (controlled gates).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import equinox as eqx
import numpy as np

from ._apply import as_wires
from ._gates import AbstractGate

Bit = int | str


def _bit(value, name: str) -> Bit:
    """A classical bit's name: an int >= 0 or a non-empty str."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int | np.integer) and not isinstance(value, bool) and value >= 0:
        return int(value)
    raise ValueError(f"{name} must name a classical bit (an int >= 0 or a non-empty str); got {value!r}")


class Measure(eqx.Module):
    """A Z-basis measurement of `wire` into the classical bit `bit` (default: the wire's index), then `reset`.

    Args:
        wire: the measured qubit.
        bit: the classical bit written with the outcome 0 or 1 (an int or a str).
        reset: re-prepare the wire in |0⟩ after the measurement (the outcome is still recorded).
    """

    wires: tuple[int, ...] = eqx.field(static=True)
    bit: Bit = eqx.field(static=True)
    reset: bool = eqx.field(static=True)
    unitary: ClassVar[bool] = False  # read by the adjoint-gradient check, which then refuses the circuit

    def __init__(self, wire: int, bit: Bit | None = None, *, reset: bool = False):
        wires = as_wires("wire", wire)
        if len(wires) != 1:
            raise ValueError(f"wire must be a single wire; got {wires!r}")
        self.wires = wires
        self.bit = _bit(wires[0] if bit is None else bit, "bit")
        if not isinstance(reset, bool):
            raise ValueError(f"reset must be True or False; got {reset!r}")
        self.reset = reset

    def kraus(self, outcome: int) -> np.ndarray:
        r"""The operator of `outcome` on the wire: $|k\rangle\langle k|$, or $|0\rangle\langle k|$ with `reset`."""
        out = np.zeros((2, 2), dtype=complex)
        out[0 if self.reset else outcome, outcome] = 1
        return out


class Conditional(eqx.Module):
    """The gates `ops` (one gate or a sequence) applied when every bit of `bits` holds its entry of `values`.

    Args:
        ops: a gate or a sequence of gates (noise and measurements cannot be conditioned).
        bits: one classical bit name, or a sequence of them.
        values: 0 or 1 for each bit (default all 1); an int for a single bit.
    """

    ops: tuple
    bits: tuple[Bit, ...] = eqx.field(static=True)
    values: tuple[int, ...] = eqx.field(static=True)
    unitary: ClassVar[bool] = False

    def __init__(self, ops: AbstractGate | Sequence[AbstractGate], bits: Bit | Sequence[Bit], values=None):
        gates: tuple = tuple(ops) if isinstance(ops, list | tuple) else (ops,)
        if not gates:
            raise ValueError("ops must hold at least one gate; got an empty sequence")
        for i, op in enumerate(gates):
            if not isinstance(op, AbstractGate):
                raise TypeError(f"ops[{i}] must be a gate; got {type(op).__name__} (only gates can be conditioned)")
        self.ops = gates
        names = (bits,) if isinstance(bits, str | int | np.integer) else tuple(bits)
        self.bits = tuple(_bit(b, f"bits[{i}]") for i, b in enumerate(names))
        if not self.bits or len(set(self.bits)) != len(self.bits):
            raise ValueError(f"bits must be one or more distinct classical bits; got {bits!r}")
        given = (1,) * len(self.bits) if values is None else values
        given = (given,) if isinstance(given, int | np.integer) and not isinstance(given, bool) else given
        if not isinstance(given, Sequence | np.ndarray) or len(given) != len(self.bits):
            raise ValueError(f"values must give 0 or 1 for each of the {len(self.bits)} bit(s) {self.bits}; "
                             f"got {values!r}")  # fmt: skip
        if any(isinstance(v, bool) or v not in (0, 1) for v in given):
            raise ValueError(f"values must be 0 or 1 for each bit; got {values!r}")
        self.values = tuple(int(v) for v in given)

    @property
    def wires(self) -> tuple[int, ...]:
        """The wires of all the conditioned gates, in order of first use."""
        return tuple(dict.fromkeys(w for op in self.ops for w in op.wires))


def is_midcircuit(op) -> bool:
    """True for the operations that read or write classical bits."""
    return isinstance(op, Measure | Conditional)


def register(operations: Sequence) -> tuple[Bit, ...]:
    """The classical bits written by the `Measure`s of `operations`, in order of first measurement.

    Raises `ValueError` naming the operation when a `Conditional` reads a bit that no earlier `Measure` writes.
    """
    bits: dict[Bit, None] = {}
    for i, op in enumerate(operations):
        if isinstance(op, Measure):
            bits.setdefault(op.bit, None)
        elif isinstance(op, Conditional):
            unknown = [b for b in op.bits if b not in bits]
            if unknown:
                raise ValueError(f"operations[{i}].bits reads {unknown!r}, never written by an earlier Measure; "
                                 f"bits written so far: {list(bits)}")  # fmt: skip
    return tuple(bits)


def condition_mask(op: Conditional, bits: Sequence[Bit]) -> np.ndarray:
    """For each register value (first bit most significant), whether `op`'s condition holds: shape (2ᵐ,)."""
    m = len(bits)
    values = (np.arange(2**m)[:, None] >> np.arange(m - 1, -1, -1)[None, :]) & 1
    ok = np.ones(2**m, dtype=bool)
    for b, v in zip(op.bits, op.values, strict=True):
        ok &= values[:, bits.index(b)] == v
    return ok
