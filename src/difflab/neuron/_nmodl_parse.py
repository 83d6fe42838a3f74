"""A recursive-descent parser for the Hodgkin–Huxley-style subset of NMODL.

The subset: `NEURON { SUFFIX, USEION … READ … WRITE …, NONSPECIFIC_CURRENT, RANGE, GLOBAL }`, `UNITS`,
`PARAMETER`, `CONSTANT`, `ASSIGNED`, `STATE`, `INITIAL`, `BREAKPOINT`, `DERIVATIVE`, `PROCEDURE` and `FUNCTION`
blocks; statements are assignments, `x' = …`, procedure calls, `if`/`else`, `LOCAL`; `UNITSOFF`, `UNITSON` and
`TABLE` lines are accepted and ignored (tables are a speed device of NEURON, not part of the model). Blocks and
statements outside it (`KINETIC`, `NET_RECEIVE`, `POINT_PROCESS`, loops, …) are refused by name with their line.

Expressions follow NMODL's precedence: `||` < `&&` < comparisons < `+ −` < `* /` < unary `− !` < `^` (power,
right-associative, so `-x^2 = -(x^2)`). The parse produces plain tuples:
`("num", value)`, `("name", name, line)`, `("neg", e)`, `("not", e)`, `("bin", op, a, b)`, `("call", f, args, line)`;
statements `("set", name, e, line)`, `("diff", state, e, line)`, `("if", cond, then, else)`, `("call", …)`.
"""

from __future__ import annotations

import dataclasses

from ._nmodl_lex import NMODLError, Token, tokenize

_REFUSED_BLOCKS: tuple[str, ...] = ("KINETIC", "LINEAR", "NONLINEAR", "NET_RECEIVE", "DISCRETE", "PARTIAL")
_REFUSED_BLOCKS += ("FUNCTION_TABLE",)
_REFUSED_BLOCKS += ("INCLUDE", "BEFORE", "AFTER", "CONSTRUCTOR", "DESTRUCTOR", "WATCH")
_SKIPPED_BLOCKS = ("INDEPENDENT",)
#: Physical constants a UNITS block may name (`FARADAY = (faraday) (coulomb)`): NEURON 9's values (CODATA 2018).
UNIT_CONSTANTS = {"faraday": 96485.33212331001, "k-mole": 8.31446261815324, "pi": 3.141592653589793}
_LEVELS = (("||",), ("&&",), ("==", "!=", "<", ">", "<=", ">="), ("+", "-"), ("*", "/"))


@dataclasses.dataclass
class Declaration:
    name: str
    value: float | None
    units: str | None
    line: int


@dataclasses.dataclass
class Routine:
    """A `PROCEDURE` or `FUNCTION`: argument names and body statements."""

    name: str
    args: tuple[str, ...]
    body: tuple
    line: int


@dataclasses.dataclass
class Program:
    suffix: str | None = None
    useions: list[tuple[str, tuple[str, ...], tuple[str, ...], int]] = dataclasses.field(default_factory=list)
    nonspecific: list[str] = dataclasses.field(default_factory=list)
    valences: dict[str, float] = dataclasses.field(default_factory=dict)
    parameters: dict[str, Declaration] = dataclasses.field(default_factory=dict)
    constants: dict[str, Declaration] = dataclasses.field(default_factory=dict)
    assigned: dict[str, Declaration] = dataclasses.field(default_factory=dict)
    states: dict[str, Declaration] = dataclasses.field(default_factory=dict)
    initial: tuple = ()
    breakpoint: tuple = ()
    solve: tuple[str, str, int] | None = None
    derivatives: dict[str, tuple] = dataclasses.field(default_factory=dict)
    procedures: dict[str, Routine] = dataclasses.field(default_factory=dict)
    functions: dict[str, Routine] = dataclasses.field(default_factory=dict)


def parse(text: str) -> Program:
    """The program of an NMODL text; raises `NMODLError` naming the line of the first problem."""
    return _Parser(tokenize(text)).program()


class _Parser:
    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.i = 0
        self.prog = Program()

    # -- token helpers ------------------------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def next(self) -> Token:
        tok = self.peek()
        self.i += 1
        return tok

    def at(self, text: str) -> bool:
        return self.peek().text == text and self.peek().kind != "end"

    def expect(self, text: str) -> Token:
        tok = self.next()
        if tok.text != text or tok.kind == "end":
            raise NMODLError(f"line {tok.line}: syntax error: expected {text!r}, got {_shown(tok)}")
        return tok

    def name(self) -> Token:
        tok = self.next()
        if tok.kind != "name":
            raise NMODLError(f"line {tok.line}: syntax error: expected a name, got {_shown(tok)}")
        return tok

    def names(self) -> list[str]:
        out = [self.name().text]
        while self.at(","):
            self.next()
            out.append(self.name().text)
        return out

    def units(self) -> str | None:
        """`(mV)`, `(S/cm2)`, `(1/ms)`: the text between the parentheses, or `None` if there are none."""
        if not self.at("("):
            return None
        self.next()
        parts = []
        while not self.at(")"):
            tok = self.next()
            if tok.kind == "end":
                raise NMODLError(f"line {tok.line}: syntax error: unclosed units")
            parts.append(tok.text)
        self.next()
        return "".join(parts)

    def number(self) -> float:
        sign = -1.0 if self.at("-") else 1.0
        if self.at("-") or self.at("+"):
            self.next()
        tok = self.next()
        if tok.kind != "num":
            raise NMODLError(f"line {tok.line}: syntax error: expected a number, got {_shown(tok)}")
        return sign * float(tok.text)

    def skip_block(self) -> None:
        self.expect("{")
        depth = 1
        while depth:
            tok = self.next()
            if tok.kind == "end":
                raise NMODLError(f"line {tok.line}: syntax error: unclosed '{{'")
            depth += {"{": 1, "}": -1}.get(tok.text, 0)

    # -- blocks -------------------------------------------------------------------------------------------------
    def program(self) -> Program:
        while self.peek().kind != "end":
            tok = self.name()
            word = tok.text
            if word in _REFUSED_BLOCKS:
                raise NMODLError(f"line {tok.line}: {word} is not supported by the NMODL reader (HH-style subset)")
            if word == "TITLE":  # its text was dropped with the line
                continue
            elif word in ("UNITSOFF", "UNITSON"):
                continue
            elif word == "UNITS":
                self.units_block()
            elif word in _SKIPPED_BLOCKS:
                while not self.at("{"):
                    self.next()
                self.skip_block()
            elif word == "NEURON":
                self.neuron_block()
            elif word in ("PARAMETER", "CONSTANT", "ASSIGNED", "STATE"):
                self.declarations(word)
            elif word in ("INITIAL", "BREAKPOINT"):
                body = self.block()
                setattr(self.prog, word.lower(), body)
            elif word == "DERIVATIVE":
                block_name = self.name().text
                self.prog.derivatives[block_name] = self.block()
            elif word in ("PROCEDURE", "FUNCTION"):
                self.routine(word)
            else:
                raise NMODLError(f"line {tok.line}: unknown or unsupported block {word!r}")
        return self.prog

    def neuron_block(self) -> None:
        self.expect("{")
        while not self.at("}"):
            tok = self.name()
            word = tok.text
            if word == "SUFFIX":
                self.prog.suffix = self.name().text
            elif word == "USEION":
                ion = self.name().text
                read: list[str] = []
                write: list[str] = []
                while self.peek().text in ("READ", "WRITE", "VALENCE"):
                    kind = self.next().text
                    if kind == "VALENCE":
                        self.prog.valences[ion] = self.number()
                    else:
                        (read if kind == "READ" else write).extend(self.names())
                self.prog.useions.append((ion, tuple(read), tuple(write), tok.line))
            elif word == "NONSPECIFIC_CURRENT":
                self.prog.nonspecific.extend(self.names())
            elif word in ("RANGE", "GLOBAL", "EXTERNAL"):
                self.names()
            elif word == "THREADSAFE":
                continue
            elif word in ("POINT_PROCESS", "ARTIFICIAL_CELL", "ELECTRODE_CURRENT", "POINTER", "BBCOREPOINTER"):
                raise NMODLError(f"line {tok.line}: {word} is not supported by the NMODL reader (density mechanisms)")
            else:
                raise NMODLError(f"line {tok.line}: unknown NEURON statement {word!r}")
        self.next()

    def units_block(self) -> None:
        """`(mV) = (millivolt)` lines are skipped; `NAME = (faraday) (coulomb)` defines a constant."""
        self.expect("{")
        while not self.at("}"):
            tok = self.next()
            if tok.kind == "end":
                raise NMODLError(f"line {tok.line}: syntax error: unclosed '{{'")
            if tok.kind == "name" and self.at("="):
                self.next()
                unit = self.units() or ""
                if unit not in UNIT_CONSTANTS:
                    raise NMODLError(f"line {tok.line}: UNITS constant {tok.text} = ({unit}) is not known here")
                self.units()
                self.prog.constants[tok.text] = Declaration(tok.text, UNIT_CONSTANTS[unit], None, tok.line)
            elif tok.text == "(":
                self.i -= 1
                self.units()
        self.next()

    def declarations(self, block: str) -> None:
        """`name [= value] [(units)] [<lo, hi>] [FROM lo TO hi]` lines of PARAMETER/CONSTANT/ASSIGNED/STATE."""
        target = {"PARAMETER": self.prog.parameters, "CONSTANT": self.prog.constants}
        target |= {"ASSIGNED": self.prog.assigned, "STATE": self.prog.states}
        self.expect("{")
        while not self.at("}"):
            tok = self.name()
            if self.at("["):
                raise NMODLError(f"line {tok.line}: array variable {tok.text!r} is not supported")
            value = None
            if self.at("="):
                self.next()
                value = self.number()
            units = self.units()
            if self.at("<"):  # <lo, hi>: NEURON's GUI limits, not a constraint of the model
                self.next()
                self.number()
                self.expect(",")
                self.number()
                self.expect(">")
            if self.at("FROM"):
                self.next()
                self.number()
                self.expect("TO")
                self.number()
            target[block][tok.text] = Declaration(tok.text, value, units, tok.line)
        self.next()

    def routine(self, kind: str) -> None:
        tok = self.name()
        self.expect("(")
        args: list[str] = []
        while not self.at(")"):
            args.append(self.name().text)
            self.units()
            if self.at(","):
                self.next()
        self.next()
        self.units()  # a FUNCTION's result units
        routines = self.prog.procedures if kind == "PROCEDURE" else self.prog.functions
        routines[tok.text] = Routine(tok.text, tuple(args), self.block(), tok.line)

    # -- statements ---------------------------------------------------------------------------------------------
    def block(self) -> tuple:
        self.expect("{")
        body = []
        while not self.at("}"):
            if self.peek().kind == "end":
                raise NMODLError(f"line {self.peek().line}: syntax error: unclosed '{{'")
            stmt = self.statement()
            if stmt is not None:
                body.append(stmt)
        self.next()
        return tuple(body)

    def statement(self) -> tuple | None:
        tok = self.peek()
        word = tok.text
        if tok.kind != "name":
            if word == "{":
                return ("block", self.block())
            raise NMODLError(f"line {tok.line}: syntax error: unexpected {_shown(tok)}")
        self.next()
        if word in ("UNITSOFF", "UNITSON"):
            return None
        if word == "LOCAL":
            return ("local", tuple(self.names()))
        if word == "TABLE":
            self.table()
            return None
        if word == "SOLVE":
            self.solve(tok)
            return None
        if word == "if":
            return self.if_statement()
        if word in ("FROM", "WHILE", "CONSERVE", "COMPARTMENT", "LAG", "SWEEP", "printf", "net_send"):
            raise NMODLError(f"line {tok.line}: statement {word!r} is not supported by the NMODL reader")
        if self.at("'"):
            self.next()
            self.expect("=")
            return ("diff", word, self.expression(), tok.line)
        if self.at("="):
            self.next()
            return ("set", word, self.expression(), tok.line)
        if self.at("("):
            return ("call", word, self.call_args(), tok.line)
        raise NMODLError(f"line {tok.line}: syntax error: expected an assignment or a call after {word!r}")

    def table(self) -> None:
        """`TABLE names [DEPEND names] FROM lo TO hi WITH n`, accepted and ignored."""
        if self.peek().kind == "name" and self.peek().text not in ("DEPEND", "FROM"):
            self.names()
        if self.at("DEPEND"):
            self.next()
            self.names()
        self.expect("FROM")
        self.expression()
        self.expect("TO")
        self.expression()
        self.expect("WITH")
        self.number()

    def solve(self, tok: Token) -> None:
        name = self.name().text
        if not self.at("METHOD"):
            raise NMODLError(f"line {tok.line}: SOLVE {name} needs METHOD cnexp (the only method supported)")
        self.next()
        method = self.name().text
        self.prog.solve = (name, method, tok.line)

    def if_statement(self) -> tuple:
        self.expect("(")
        cond = self.expression()
        self.expect(")")
        then = self.block()
        other: tuple = ()
        if self.at("else"):
            self.next()
            if self.at("if"):
                self.next()
                other = (self.if_statement(),)
            else:
                other = self.block()
        return ("if", cond, then, other)

    # -- expressions --------------------------------------------------------------------------------------------
    def expression(self, level: int = 0) -> tuple:
        if level == len(_LEVELS):
            return self.unary()
        left = self.expression(level + 1)
        while self.peek().kind == "op" and self.peek().text in _LEVELS[level]:
            op = self.next().text
            left = ("bin", op, left, self.expression(level + 1))
        return left

    def unary(self) -> tuple:
        if self.at("-") or self.at("+") or self.at("!"):
            op = self.next().text
            inner = self.unary()
            return {"-": ("neg", inner), "+": inner, "!": ("not", inner)}[op]
        return self.power()

    def power(self) -> tuple:
        base = self.primary()
        if self.at("^"):
            self.next()
            return ("bin", "^", base, self.unary())
        return base

    def primary(self) -> tuple:
        tok = self.next()
        if tok.kind == "num":
            return ("num", float(tok.text))
        if tok.text == "(" and tok.kind == "op":
            inner = self.expression()
            self.expect(")")
            return inner
        if tok.kind == "name":
            if self.at("("):
                return ("call", tok.text, self.call_args(), tok.line)
            return ("name", tok.text, tok.line)
        raise NMODLError(f"line {tok.line}: syntax error: unexpected {_shown(tok)} in an expression")

    def call_args(self) -> tuple:
        self.expect("(")
        args = []
        while not self.at(")"):
            args.append(self.expression())
            self.units()  # `rates(cai (mM))`
            if not self.at(")"):
                tok = self.next()
                if tok.text != ",":
                    raise NMODLError(f"line {tok.line}: syntax error: expected ',' or ')', got {_shown(tok)}")
        self.next()
        return tuple(args)


def _shown(tok: Token) -> str:
    return "the end of the text" if tok.kind == "end" else repr(tok.text)
