"""The statements and expressions of NMODL's HH-style subset, and the parsed program they make up.

Statements are assignments, `x' = …`, procedure calls, `if`/`else`, `LOCAL`; `UNITSOFF`, `UNITSON` and `TABLE`
lines are accepted and ignored (tables are a speed device of NEURON, not part of the model); loops and other
statements are refused by name with their line. Expressions follow NMODL's precedence: `||` < `&&` < comparisons
< `+ −` < `* /` < unary `− !` < `^` (power, right-associative, so `-x^2 = -(x^2)`). The parse produces plain
tuples: `("num", value)`, `("name", name, line)`, `("neg", e)`, `("not", e)`, `("bin", op, a, b)`,
`("call", f, args, line)`; statements `("set", name, e, line)`, `("diff", state, e, line)`,
`("if", cond, then, else)`, `("call", …)`, `("local", names)`, `("block", body)`.
"""

from __future__ import annotations

import dataclasses

from ._nmodl_lex import NMODLError, Token

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


class StatementParser:
    """Token helpers, statements and expressions; the block parser builds on it."""

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
