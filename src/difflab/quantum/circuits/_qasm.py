r"""OpenQASM 2 and 3 text for circuits: `Circuit.to_qasm` writes it, `from_qasm` reads it.

Read: `OPENQASM 2.0; include "qelib1.inc";` with `qreg`/`creg`, or the common OpenQASM 3 subset `OPENQASM 3.0;
include "stdgates.inc";` with `qubit[n] q;`/`bit[n] c;`; gate calls with parameter expressions over numbers, `pi`
(`π`), + − × ÷ ^ and sin, cos, tan, exp, ln, sqrt; a gate applied to whole registers is applied qubit by qubit;
`reset`; `barrier` (ignored). A measurement into a classical bit becomes a `Measure` when the program uses its
qubit or its bit afterwards, and conditions on measured bits become `Conditional`s (the forms read and written:
`_qasm_classical`); a final measurement, used by nothing after it, is not kept: a difflab circuit is measured
afterwards (`measure`, `sample`), so such a program still runs as a state vector. A measurement without a target
bit cannot be followed by a gate on its qubit. Several quantum registers become consecutive wires in the order
declared. Gate definitions, `else`, gate modifiers and loops are refused, as is every unknown name, each with its
line number. Gate names and matrices: `_qasm_gates`.
Reference: Cross et al., arXiv:1707.03429 (OpenQASM 2); Cross et al., ACM TQC 3, 12 (2022) (OpenQASM 3).
"""

from __future__ import annotations

import ast
import math
import operator
import os
import re

from ._circuit import Circuit
from ._midcircuit import Conditional, Measure
from ._qasm_classical import ClassicalBits, unfold_blocks
from ._qasm_gates import GATES

_FUNCTIONS = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp, "ln": math.log,
              "sqrt": math.sqrt}  # fmt: skip
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow}  # fmt: skip
_CONSTANTS = {"pi": math.pi, "π": math.pi, "tau": math.tau, "τ": math.tau, "euler": math.e}
_CALL = re.compile(r"^([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*(.*)$", re.S)
_REGISTER = {
    "qreg": re.compile(r"^qreg\s+([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]$"),
    "qubit": re.compile(r"^qubit\s*(?:\[\s*(\d+)\s*\])?\s+([A-Za-z_]\w*)$"),
}
_CLASSICAL = {
    "creg": re.compile(r"^creg\s+([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]$"),
    "bit": re.compile(r"^bit\s*(?:\[\s*(\d+)\s*\])?\s+([A-Za-z_]\w*)$"),
}
_IGNORED = re.compile(r"^(OPENQASM\s+[23](\.\d+)?|include\s+\".*\"|barrier(\s.*)?)$")
_MEASURE = re.compile(r"^(?:measure\s+(.+?)(?:\s*->\s*(.+))?|(.+?)\s*=\s*measure\s+(.+))$")
_IF = re.compile(r"^if\s*\(([^()]*)\)\s*(.+)$")


def _strip_comments(text: str) -> str:
    """`text` without `/* */` and `//` comments, every newline kept (so line numbers stay)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _statements(text: str):
    """(line number, statement) for each `;`-terminated statement, comments removed."""
    text = _strip_comments(text)
    line, start = 1, 0
    for i, ch in enumerate(text):
        if ch == ";":
            chunk = text[start:i]
            first = line + chunk[: len(chunk) - len(chunk.lstrip())].count("\n")
            if chunk.strip():
                yield first, " ".join(chunk.split())
            line += chunk.count("\n")
            start = i + 1
    if text[start:].strip():
        rest = text[start:]
        first = line + rest[: len(rest) - len(rest.lstrip())].count("\n")
        raise ValueError(f"line {first}: statement {' '.join(rest.split())!r} does not end with ';'")


def _evaluate(node: ast.AST, where: str) -> float:
    """The value of a parameter expression (numbers, constants, + − × ÷ ^, unary −, the functions above)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise ValueError(f"{where}: unknown parameter name {node.id!r} (known: pi, π, tau, euler)")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand, where)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return float(_BINARY[type(node.op)](_evaluate(node.left, where), _evaluate(node.right, where)))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords:
        if node.func.id not in _FUNCTIONS:
            raise ValueError(f"{where}: unknown function {node.func.id!r} (known: {', '.join(_FUNCTIONS)})")
        return float(_FUNCTIONS[node.func.id](_evaluate(node.args[0], where)))
    raise ValueError(f"{where}: cannot evaluate the parameter expression {ast.unparse(node)!r}")


def _parameters(text: str, where: str) -> list[float]:
    if not text.strip():
        return []
    try:
        tree = ast.parse(f"({text.replace('^', '**')},)", mode="eval")
    except SyntaxError:
        raise ValueError(f"{where}: cannot read the parameters {text!r}") from None
    return [_evaluate(e, where) for e in tree.body.elts]  # type: ignore[attr-defined]


class _Program:
    """Registers and operations of a program as it is read."""

    def __init__(self):
        self.registers: dict[str, tuple[int, int]] = {}  # name -> (first wire, size)
        self.n_wires = 0
        self.operations: list = []
        self.measured: set[int] = set()  # measured without a target bit
        self.classical = ClassicalBits()

    def declare(self, name: str, size: int, where: str) -> None:
        if name in self.registers:
            raise ValueError(f"{where}: register {name!r} is declared twice")
        if size < 1:
            raise ValueError(f"{where}: register {name!r} must hold at least one qubit; got {size}")
        self.registers[name] = (self.n_wires, size)
        self.n_wires += size

    def qubits(self, argument: str, where: str) -> list[int]:
        """The wires of `q[i]` (one) or `q` (the whole register)."""
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*(?:\[\s*(\d+)\s*\])?", argument.strip())
        if not m or m.group(1) not in self.registers:
            raise ValueError(f"{where}: {argument.strip()!r} is not a declared qubit or quantum register")
        first, size = self.registers[m.group(1)]
        if m.group(2) is None:
            return list(range(first, first + size))
        index = int(m.group(2))
        if index >= size:
            raise ValueError(f"{where}: index {index} is out of range for register {m.group(1)}[{size}]")
        return [first + index]

    def call(self, name: str, params: list[float], arguments: list[str], where: str) -> list:
        n_params, n_qubits, make = GATES[name]
        if len(params) != n_params:
            raise ValueError(f"{where}: gate {name!r} takes {n_params} parameter(s); got {len(params)}")
        if len(arguments) != n_qubits:
            raise ValueError(f"{where}: gate {name!r} acts on {n_qubits} qubit(s); got {len(arguments)}")
        groups = [self.qubits(a, where) for a in arguments]
        ops = []
        width = max(len(q) for q in groups)
        if any(len(q) not in (1, width) for q in groups):
            raise ValueError(f"{where}: registers of different sizes in one gate call")
        for k in range(width):
            wires = [q[k] if len(q) > 1 else q[0] for q in groups]
            if self.measured & set(wires):
                raise ValueError(f"{where}: gate {name!r} on a qubit after its measurement (only final "
                                 "measurements are supported)")  # fmt: skip
            try:
                ops.append(make(*params, *wires))
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
        return ops

    def measure(self, qubits: str, targets: str | None, where: str) -> None:
        """`measure qubits -> targets` (or `targets = measure qubits`), paired element by element."""
        wires = [w for argument in qubits.split(",") for w in self.qubits(argument, where)]
        if targets is None:
            self.measured.update(wires)
            return
        bits = self.classical.bits(targets, where)
        if len(bits) != len(wires):
            raise ValueError(f"{where}: {len(wires)} qubit(s) measured into {len(bits)} bit(s)")
        self.operations += [Measure(w, b) for w, b in zip(wires, bits, strict=True)]
        self.classical.written.update(bits)

    def conditional(self, condition: str, rest: str, where: str) -> None:
        bits, values = self.classical.condition(condition, where)
        m = _CALL.match(rest)
        name = m.group(1) if m else rest.split()[0]
        if not m or name not in GATES or name == "reset":
            raise ValueError(f"{where}: only gates can be conditioned; got {rest!r}")
        params = _parameters(m.group(2) or "", f"{where} ({name})")
        ops = self.call(name, params, [a for a in m.group(3).split(",") if a.strip()], where)
        self.operations += [Conditional(op, bits, values) for op in ops]

    def statement(self, text: str, where: str) -> None:
        if _IGNORED.match(text):
            return
        for kind, pattern in _CLASSICAL.items():
            if m := pattern.match(text):
                name, size = m.groups() if kind == "creg" else (m.group(2), m.group(1) or "1")
                return self.classical.declare(name, int(size), where)
        for kind, pattern in _REGISTER.items():
            if m := pattern.match(text):
                name, size = m.groups() if kind == "qreg" else (m.group(2), m.group(1) or "1")
                return self.declare(name, int(size), where)
        if m := _MEASURE.match(text):
            return self.measure(m.group(1) or m.group(4), m.group(2) or m.group(3), where)
        if m := _IF.match(text):
            return self.conditional(m.group(1), m.group(2), where)
        m = _CALL.match(text)
        name = m.group(1) if m else text.split()[0]
        if name in ("gate", "opaque", "if", "else", "def", "for", "while", "ctrl", "inv", "pow", "negctrl") or (
            "@" in text or "{" in text or "}" in text
        ):
            raise ValueError(f"{where}: {name!r} statements are not supported (gate definitions, else, loops "
                             f"and gate modifiers): {text!r}")  # fmt: skip
        if not m or name not in GATES:
            raise ValueError(f"{where}: unknown gate {name!r}; known: {', '.join(sorted(GATES))}")
        params = _parameters(m.group(2) or "", f"{where} ({name})")
        self.operations += self.call(name, params, [a for a in m.group(3).split(",") if a.strip()], where)
        return None


def from_qasm(text: str | os.PathLike) -> Circuit:
    """The `Circuit` of an OpenQASM 2 or 3 program (its text, or a path to a `.qasm` file).

    Wires are the declared qubits in order (register after register). Raises `ValueError` naming the line of the
    first statement difflab cannot read (see the module docstring for what it reads).
    """
    if isinstance(text, os.PathLike):
        with open(text, encoding="utf-8") as f:
            text = f.read()
    if not isinstance(text, str):
        raise TypeError(f"text must be OpenQASM source (str) or a path; got {type(text).__name__}")
    program = _Program()
    for line, statement in _statements(unfold_blocks(_strip_comments(text))):
        declaration = statement.startswith(("qreg", "qubit", "creg", "bit"))
        if not program.registers and not _IGNORED.match(statement) and not declaration:
            raise ValueError(f"line {line}: {statement!r} comes before any quantum register is declared")
        program.statement(statement, f"line {line}")
    if not program.registers:
        raise ValueError("text declares no quantum register (qreg q[n]; or qubit[n] q;)")
    return Circuit(program.n_wires, _without_final_measurements(program.operations))


def _without_final_measurements(operations: list) -> list:
    """`operations` less the measurements that no later operation uses (by their qubit or their bit)."""

    def used(i: int, op: Measure) -> bool:
        later = operations[i + 1 :]
        return any(set(op.wires) & set(o.wires) or (isinstance(o, Conditional) and op.bit in o.bits) for o in later)

    return [op for i, op in enumerate(operations) if not isinstance(op, Measure) or used(i, op)]
