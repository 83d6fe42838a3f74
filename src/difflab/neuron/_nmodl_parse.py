"""A recursive-descent parser for the Hodgkin–Huxley-style subset of NMODL: the blocks of a mechanism.

The subset: `NEURON { SUFFIX, USEION … READ … WRITE …, NONSPECIFIC_CURRENT, RANGE, GLOBAL }`, `UNITS` (with the
named constants `FARADAY`, `R`, `PI`), `PARAMETER`, `CONSTANT`, `ASSIGNED`, `STATE`, `INITIAL`, `BREAKPOINT`,
`DERIVATIVE`, `PROCEDURE` and `FUNCTION` blocks; their statements and expressions are parsed by
`_nmodl_grammar`. Blocks outside it (`KINETIC`, `NET_RECEIVE`, `POINT_PROCESS`, …) are refused by name with their
line.
"""

from __future__ import annotations

from ._nmodl_grammar import Declaration, Program, Routine, StatementParser
from ._nmodl_lex import NMODLError, tokenize

_REFUSED_BLOCKS: tuple[str, ...] = ("KINETIC", "LINEAR", "NONLINEAR", "NET_RECEIVE", "DISCRETE", "PARTIAL")
_REFUSED_BLOCKS += ("FUNCTION_TABLE",)
_REFUSED_BLOCKS += ("INCLUDE", "BEFORE", "AFTER", "CONSTRUCTOR", "DESTRUCTOR", "WATCH")
_SKIPPED_BLOCKS = ("INDEPENDENT",)
#: Physical constants a UNITS block may name (`FARADAY = (faraday) (coulomb)`): NEURON 9's values (CODATA 2018).
UNIT_CONSTANTS = {"faraday": 96485.33212331001, "k-mole": 8.31446261815324, "pi": 3.141592653589793}


def parse(text: str) -> Program:
    """The program of an NMODL text; raises `NMODLError` naming the line of the first problem."""
    return _Parser(tokenize(text)).program()


class _Parser(StatementParser):
    """The top-level blocks of a mechanism, filling `self.prog`."""

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
