r"""OpenQASM text for classical bits: declarations, mid-circuit measurements and conditions, written and read.

Written: every classical bit is its own one-bit register, named by the bit when it is a name (a str identifier),
`c<k>` for the int bit k: OpenQASM 2 `creg a[1];`, `measure q[0] -> a[0];`, `if (a==1) x q[2];` (a condition
compares one register, so only single-bit conditions can be written in version 2); OpenQASM 3 `bit a;`,
`a = measure q[0];`, `if (a && !b) { x q[2]; }`. A measurement with reset is followed by `reset q[w];`.

Read: `creg c[n];` / `bit[n] c;` / `bit c;` declare n bits, named `c[i]` (or `c` for a one-bit register);
`measure q[i] -> c[j];`, `c[j] = measure q[i];` and whole registers paired element by element; version 2's
`if (c==v) gate ...;` (c[0] the least significant bit of v, as in Qiskit) and version 3's `if (cond) { gates }` or
`if (cond) gate;` with cond made of `c[j]`, `!c[j]`, `c[j] == v`, `c == v` joined by `&&`. `else`, other operators
and conditioned measurements or resets are refused by `_qasm` with their line.
"""

from __future__ import annotations

import re

from ._midcircuit import Bit, Conditional, Measure

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_BLOCK = re.compile(r"\bif\s*\(([^(){};]*)\)\s*\{([^{}]*)\}")
_TERM = re.compile(r"^(!)?\s*([A-Za-z_]\w*)\s*(?:\[\s*(\d+)\s*\])?\s*(?:==\s*(\d+))?$")


def register_names(bits: tuple[Bit, ...]) -> dict[Bit, str]:
    """The one-bit register written for each bit: the bit's own name when it is an identifier, else `c<k>`."""
    names = {b: b if isinstance(b, str) and _IDENTIFIER.fullmatch(b) and b != "q" else f"c{b}" for b in bits}
    if len(set(names.values())) != len(names) or "q" in names.values():
        raise ValueError(f"the classical bits {list(bits)} do not map to distinct OpenQASM register names")
    if any(isinstance(b, str) and names[b] != b for b in bits):
        bad = [b for b in bits if isinstance(b, str) and names[b] != b]
        raise ValueError(f"classical bit names {bad} are not OpenQASM identifiers (letters, digits, _)")
    return names


def declarations(bits: tuple[Bit, ...], version: int) -> list[str]:
    names = register_names(bits)
    return [f"creg {names[b]}[1];" if version == 2 else f"bit {names[b]};" for b in bits]


def measure_lines(op: Measure, names: dict[Bit, str], version: int) -> list[str]:
    q, c = f"q[{op.wires[0]}]", names[op.bit]
    lines = [f"measure {q} -> {c}[0];" if version == 2 else f"{c} = measure {q};"]
    return lines + ([f"reset {q};"] if op.reset else [])


def condition_text(op: Conditional, names: dict[Bit, str], version: int, where: str) -> str:
    """`if (...)` for the condition of `op` (version 2 only for one bit, as it compares one register)."""
    if version == 2:
        if len(op.bits) != 1:
            raise ValueError(f"{where} conditions on {len(op.bits)} bits: OpenQASM 2 compares one register "
                             "(write version=3)")  # fmt: skip
        return f"if ({names[op.bits[0]]}=={op.values[0]})"
    terms = [("" if v else "!") + names[b] for b, v in zip(op.bits, op.values, strict=True)]
    return f"if ({' && '.join(terms)})"


def unfold_blocks(text: str) -> str:
    """`if (cond) { a; b; }` as `if (cond) a; if (cond) b;`, keeping every newline (and so the line numbers)."""

    def unfold(m: re.Match) -> str:
        pieces = m.group(2).split(";")
        out = []
        for piece in pieces[:-1]:
            body = piece.lstrip()
            out.append(piece[: len(piece) - len(body)] + (f"if ({m.group(1)}) {body}" if body else ""))
        return ";".join(out) + ";" + pieces[-1] if out else pieces[-1]

    return _BLOCK.sub(unfold, text)


class ClassicalBits:
    """The classical registers of a program as it is read, and the bits its measurements have written."""

    def __init__(self):
        self.registers: dict[str, int] = {}
        self.written: set[str] = set()

    def declare(self, name: str, size: int, where: str) -> None:
        if name in self.registers:
            raise ValueError(f"{where}: classical register {name!r} is declared twice")
        self.registers[name] = size

    def bits(self, argument: str, where: str) -> list[str]:
        """The bit names of `c[j]` (one) or `c` (the whole register, c[0] first)."""
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*(?:\[\s*(\d+)\s*\])?", argument.strip())
        if not m or m.group(1) not in self.registers:
            raise ValueError(f"{where}: {argument.strip()!r} is not a declared classical bit or register")
        name, size = m.group(1), self.registers[m.group(1)]
        if m.group(2) is not None and int(m.group(2)) >= size:
            raise ValueError(f"{where}: index {m.group(2)} is out of range for register {name}[{size}]")
        indices = range(size) if m.group(2) is None else [int(m.group(2))]
        return [name if size == 1 else f"{name}[{i}]" for i in indices]

    def condition(self, text: str, where: str) -> tuple[list[str], list[int]]:
        """The bits and values of a condition (see the module docstring)."""
        bits: list[str] = []
        values: list[int] = []
        for term in text.split("&&"):
            m = _TERM.match(term.strip())
            if not m or (m.group(1) and m.group(4)):
                raise ValueError(f"{where}: cannot read the condition {text.strip()!r} (supported: c[j], !c[j], "
                                 "c[j] == v, c == v, joined by &&)")  # fmt: skip
            target = m.group(2) + (f"[{m.group(3)}]" if m.group(3) else "")
            names = self.bits(target, where)
            value = int(m.group(4)) if m.group(4) else 0 if m.group(1) else 1
            if value >= 2 ** len(names):
                raise ValueError(f"{where}: value {value} does not fit the {len(names)} bit(s) of {target!r}")
            bits += names
            values += [(value >> i) & 1 for i in range(len(names))]  # c[0] least significant
        unwritten = [b for b in bits if b not in self.written]
        if unwritten:
            raise ValueError(f"{where}: the condition reads {unwritten}, never measured before")
        return bits, values
