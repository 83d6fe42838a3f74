"""Tokens of NMODL, NEURON's model description language, for the reader of Hodgkin–Huxley-style mechanisms.

Comments (`:` or `?` to the end of the line, `COMMENT … ENDCOMMENT`) are dropped; `VERBATIM` (C code that the
reader cannot run) is refused by name with its line. Every token keeps its line number, so that a parse error
can say where it is.

Reference: Hines & Carnevale, "Expanding NEURON's repertoire of mechanisms with NMODL", Neural Computation 12:995
(2000); the NMODL documentation of the NEURON simulator.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class NMODLError(ValueError):
    """A mechanism text that the NMODL reader cannot accept; the message names the construct and its line."""


class Token(NamedTuple):
    kind: str  # "num", "name", "op" or "end"
    text: str
    line: int


_TOKEN = re.compile(
    r"(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>==|!=|<=|>=|&&|\|\||[-+*/^()<>{}=,'!~\[\]])"
)
_SKIPPED_WORDS = {"COMMENT": "ENDCOMMENT"}
_REFUSED_WORDS = ("VERBATIM",)


def tokenize(text: str) -> list[Token]:
    """The tokens of `text`, ending with an `end` token; comments dropped, `VERBATIM` refused."""
    tokens: list[Token] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        words = line.split(":", 1)[0].split()
        word = words[0] if words else ""
        if word == "TITLE":  # free text to the end of the line
            tokens.append(Token("name", "TITLE", i + 1))
            i += 1
            continue
        if word in _SKIPPED_WORDS:
            close = _SKIPPED_WORDS[word]
            j = next((k for k in range(i, len(lines)) if close in lines[k].split()), None)
            if j is None:
                raise NMODLError(f"line {i + 1}: {word} has no {close}")
            i = j + 1
            continue
        _tokenize_line(line, i + 1, tokens)
        i += 1
    tokens.append(Token("end", "", len(lines)))
    return tokens


def _tokenize_line(line: str, number: int, out: list[Token]) -> None:
    pos = 0
    while pos < len(line):
        ch = line[pos]
        if ch.isspace():
            pos += 1
            continue
        if ch in ":?":  # a comment runs to the end of the line
            return
        match = _TOKEN.match(line, pos)
        if match is None:
            raise NMODLError(f"line {number}: unexpected character {ch!r}")
        kind = match.lastgroup or "op"
        text = match.group()
        if kind == "name" and text in _REFUSED_WORDS:
            raise NMODLError(
                f"line {number}: VERBATIM blocks (C code) are not supported by the NMODL reader; "
                "write the computation in NMODL statements"
            )
        out.append(Token(kind, text, number))
        pos = match.end()
