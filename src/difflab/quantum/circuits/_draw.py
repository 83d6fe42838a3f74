"""Wire diagrams of circuits: the operations placed in columns (moments) and a glyph per wire, drawn as text.

An operation takes the first column in which every wire between its lowest and highest wire is free (and which
follows the last use of its classical bits), so gates on disjoint wires share a column and the order of the
operations on any wire or bit is kept. Glyphs: a box label for a gate ("H", "RX(π/2)", "U3(0.1,0.2,0.3)"), ● / ○
for a control on 1 / 0, ⊕ for a controlled X's target, × for the two ends of a swap, labels for channels
("DP(0.01)", "|0⟩" for a reset), "M→c" for a measurement into the bit c ("M→c|0⟩" with reset) and a gate's glyph
followed by its condition for a conditional gate ("X[c=1]"). Angles that are multiples of π/8 show as such; others
with 3 significant digits; traced ones as θ. `difflab.plot.circuit` draws the same layout with matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ._apply import is_concrete
from ._channels import AmplitudeDamping, Dephasing, Depolarizing, ReadoutError, TwoQubitDepolarizing
from ._gates import Controlled, Gate, PauliRotation, PhaseShift, Unitary
from ._givens import DoubleExcitation, SingleExcitation
from ._midcircuit import Conditional, Measure
from ._relaxation import Reset, ThermalRelaxation
from ._u3 import U3

_CHANNELS: dict[type, tuple[str, str]] = {
    AmplitudeDamping: ("AD", "gamma"), Dephasing: ("PD", "gamma"), Depolarizing: ("DP", "p"),
    TwoQubitDepolarizing: ("DP", "p"), ThermalRelaxation: ("TR", "time"),
}  # fmt: skip
_GATE_NAMES = {"ISWAP": "iSWAP", "ISWAPdg": "iSWAP†", "Sdg": "S†", "Tdg": "T†", "SXdg": "√X†", "SX": "√X"}


def angle(value) -> str:
    """An angle (radians) as text: π fractions down to π/8, else 3 significant digits; "θ" when traced."""
    if not is_concrete(value):
        return "θ"
    x = float(np.asarray(value))
    eighths = x / (math.pi / 8)
    if x != 0 and abs(eighths - round(eighths)) < 1e-9 and abs(eighths) <= 64:
        k, d = round(eighths), 8
        g = math.gcd(k, d)
        k, d = k // g, d // g
        top = {1: "π", -1: "-π"}.get(k, f"{k}π")
        return top if d == 1 else f"{top}/{d}"
    return f"{x:.3g}"


def _label(name: str, *angles) -> str:
    return f"{name}({','.join(angle(a) for a in angles)})" if angles else name


def glyphs(op) -> dict[int, str]:
    """The glyph of `op` on each of its wires."""
    if isinstance(op, Controlled):
        base = op.base
        out = {c: "●" if v else "○" for c, v in zip(op.controls, op.values, strict=True)}
        target = {base.wires[0]: "⊕"} if isinstance(base, Gate) and base.name == "X" else glyphs(base)
        return {**out, **target}
    if isinstance(op, Measure):
        return {op.wires[0]: f"M→{op.bit}" + ("|0⟩" if op.reset else "")}
    if isinstance(op, Conditional):
        condition = ",".join(f"{b}={v}" for b, v in zip(op.bits, op.values, strict=True))
        inner: dict[int, str] = {}
        for gate in op.ops:
            for w, g in glyphs(gate).items():
                inner[w] = f"{inner[w]}·{g}" if w in inner else g
        return {w: f"{g}[{condition}]" for w, g in inner.items()}
    if isinstance(op, Gate) and op.name == "SWAP":
        return dict.fromkeys(op.wires, "×")
    if isinstance(op, Gate):
        return dict.fromkeys(op.wires, _GATE_NAMES.get(op.name, op.name))
    named: dict[type, Callable[[Any], str]] = {
        PauliRotation: lambda g: _label(f"R{g.pauli}", g.theta), PhaseShift: lambda g: _label("P", g.phi),
        U3: lambda g: _label("U3", g.theta, g.phi, g.lam), SingleExcitation: lambda g: _label("G", g.theta),
        DoubleExcitation: lambda g: _label("G2", g.theta), Unitary: lambda g: "U", Reset: lambda g: "|0⟩",
        ReadoutError: lambda g: "RO",
    }  # fmt: skip
    if type(op) in named:
        return dict.fromkeys(op.wires, named[type(op)](op))
    if type(op) in _CHANNELS:
        name, field = _CHANNELS[type(op)]
        value = getattr(op, field)
        return dict.fromkeys(op.wires, f"{name}({float(value):.3g})" if is_concrete(value) else name)
    return dict.fromkeys(op.wires, type(op).__name__)


def moments(operations) -> list[list[int]]:
    """The indices of `operations` in each column of the diagram (see the module docstring)."""
    free: dict[int, int] = {}  # wire -> first free column
    free_bit: dict[object, int] = {}  # classical bit -> first free column (a condition after its measurement)
    columns: list[list[int]] = []
    for i, op in enumerate(operations):
        span = range(min(op.wires), max(op.wires) + 1)
        bits = (op.bit,) if isinstance(op, Measure) else op.bits if isinstance(op, Conditional) else ()
        column = max([free.get(w, 0) for w in span] + [free_bit.get(b, 0) for b in bits])
        if column == len(columns):
            columns.append([])
        columns[column].append(i)
        for w in span:
            free[w] = column + 1
        for b in bits:
            free_bit[b] = column + 1
    return columns


def draw_text(n_wires: int, operations) -> str:
    """The wire diagram as text: one line per wire (q0 first) and a connector line between neighbouring wires."""
    names = [f"q{w}: " for w in range(n_wires)]
    width = max(map(len, names))
    rows = [name.rjust(width) + "─" for name in names]
    links = [" " * (width + 1) for _ in range(n_wires - 1)]
    for column in moments(operations):
        cells: dict[int, str] = {}
        spans = []
        for i in column:
            cells.update(glyphs(operations[i]))
            spans.append((min(operations[i].wires), max(operations[i].wires)))
        size = max(len(g) for g in cells.values()) + 2
        for w in range(n_wires):
            inside = any(lo < w < hi for lo, hi in spans)
            rows[w] += cells[w].center(size, "─") if w in cells else ("┼" if inside else "─").center(size, "─")
        for w in range(n_wires - 1):
            linked = any(lo <= w < hi for lo, hi in spans)
            links[w] += ("│" if linked else " ").center(size)
    lines = []
    for w in range(n_wires):
        lines.append(rows[w] + "─")
        if w < n_wires - 1:
            lines.append(links[w].rstrip())
    return "\n".join(lines)
