"""Neurolucida ASCII (``.asc``) syntax: tokens and the grammar of NEURON's ``Import3d_Neurolucida3`` reader.

The reader is recursive descent over tokens, production for production as NEURON 9's
``lib/hoc/import3d/read_nlcda3.hoc``, so that a file gives the same trees, points and soma outlines:

- tokens: numbers, ``(`` ``)`` ``,`` ``|`` ``<`` ``>``, strings in double quotes, labels (``[A-Za-z0-9_]+``),
  and the words ``set`` and ``RGB``; ``;`` starts a comment to the end of the line;
- an object is a contour (``("CellBody" properties points)``), a property (``(ImageCoords ...)``), a marker
  (``(Dot (Color Red) (Name "...") points)``), a set, a text or a tree (``( properties branch )``);
- a branch is its points, then markers, then either an ending label (``Normal``, ``High``, ``Low``,
  ``Incomplete``, ...) or a split ``( branch | branch ... )``; spines ``<( ... )>`` follow a point;
- a point is ``(x y z d)``: ``z`` and ``d`` may be missing (0), a label and a Bézier point may follow ``d``.

Only contours named ``CellBody``, ``Cell Body`` or ``Soma`` with more than two points and trees are kept.
A tree's type is its last property before the points: ``Axon``, ``Dendrite``, ``Apical`` (any other: 0).
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_LABEL = re.compile(r"[A-Za-z0-9_]+")
_PUNCT = {"(": "(", ")": ")", ",": ",", "|": "|", "<": "<", ">": ">"}
_SOMA_NAMES = ("CellBody", "Cell Body", "Soma")
_TYPES = {"Axon": 2, "Dendrite": 3, "Apical": 4}


class ASCError(ValueError):
    """A malformed Neurolucida file (the message names the file and the line)."""


@dataclasses.dataclass
class Token:
    kind: str  # number, string, label, set, rgb, one of ( ) , | < >, or eof
    value: str | float
    line: int


@dataclasses.dataclass
class RawSection:
    """A run of points of the file: a soma outline or an unbranched piece of a tree."""

    kind: int  # 1 soma outline, 2 axon, 3 dendrite, 4 apical, 0 other
    points: list[tuple[float, float, float, float]]
    lines: list[int]
    parent: RawSection | None = None
    contour: bool = False
    parent_x: float = 1.0


def tokenize(text: str, fname: str) -> list[Token]:
    """The tokens of a file, each with its line number; an end-of-file token last."""
    tokens = []
    for lineno, line in enumerate(text.splitlines(), 1):
        pos, n = 0, len(line)
        while pos < n:
            c = line[pos]
            if c.isspace():
                pos += 1
            elif c == ";":
                break
            elif m := _NUMBER.match(line, pos):
                tokens.append(Token("number", float(m.group()), lineno))
                pos = m.end()
            elif c in _PUNCT:
                tokens.append(Token(c, c, lineno))
                pos += 1
            elif line.startswith(("set", "Set", "SET"), pos):
                tokens.append(Token("set", line[pos : pos + 3], lineno))
                pos += 3
            elif line.startswith("RGB", pos):
                tokens.append(Token("rgb", "RGB", lineno))
                pos += 3
            elif c == '"':
                end = line.find('"', pos + 1)
                if end < 0:
                    raise ASCError(f"{fname}, line {lineno}: a string has no closing '\"': {line.strip()!r}")
                tokens.append(Token("string", line[pos + 1 : end], lineno))
                pos = end + 1
            elif m := _LABEL.match(line, pos):
                tokens.append(Token("label", m.group(), lineno))
                pos = m.end()
            else:
                raise ASCError(f"{fname}, line {lineno}: unknown character {c!r} in {line.strip()!r}")
    tokens.append(Token("eof", "", len(text.splitlines())))
    return tokens


def check_parentheses(tokens: list[Token], fname: str) -> None:
    """Every ``(`` closed and no ``)`` without its ``(``: the error names the opening line and construct."""
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.kind == "(":
            stack.append(i)
        elif tok.kind == ")":
            if not stack:
                raise ASCError(f"{fname}, line {tok.line}: ')' closes no '('")
            stack.pop()
    if stack:
        i = stack[0]
        after = tokens[i + 1]
        what = f"the contour {after.value!r}" if after.kind == "string" else "the '('"
        raise ASCError(f"{fname}, line {tokens[i].line}: {what} opened here is not closed before the end of the file")


class Parser:
    """Recursive descent over the tokens (NEURON's productions); `sections` holds what the file defines."""

    def __init__(self, tokens: list[Token], fname: str):
        self.tokens, self.fname, self.i = tokens, fname, 0
        self.sections: list[RawSection] = []
        self.parent: RawSection | None = None
        self.props: list[str] = []
        self.kind = 0  # the type of the tree being read

    # ------------------------------------------------------------ token access
    def _at(self, k: int) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    @property
    def cur(self) -> Token:
        return self._at(0)

    def next(self) -> None:
        self.i += 1

    def expect(self, kind: str, what: str = "") -> Token:
        tok = self.cur
        if tok.kind != kind:
            got = "the end of the file" if tok.kind == "eof" else f"{tok.kind} {tok.value!r}"
            raise ASCError(f"{self.fname}, line {tok.line}: expected {what or repr(kind)}; got {got}")
        return tok

    def demand(self, kind: str, what: str = "") -> Token:
        self.next()
        return self.expect(kind, what)

    def optcomma(self) -> None:
        if self.cur.kind == ",":
            self.next()

    # ------------------------------------------------------------ objects
    def parse(self) -> list[RawSection]:
        """The whole file: objects up to the end."""
        self.objects()
        self.expect("eof", "'(' starting an object, or the end of the file")
        return self.sections

    def objects(self) -> None:
        """One object, then more as long as one starts (separated by optional commas)."""
        self.object()
        while True:
            self.optcomma()
            if self.cur.kind != "(":
                break
            self.object()

    def object(self) -> None:
        self.expect("(", "'(' starting an object")
        ahead = self._at(1).kind
        if ahead == "string":
            self.contour()
        elif ahead == "label":
            self.marker_or_property()
        elif ahead == "(":
            self.tree_or_text()
        elif ahead == "set":
            self.set()
        else:
            tok = self._at(1)
            raise ASCError(f"{self.fname}, line {tok.line}: unknown construct '( {tok.value}': expected a contour "
                           "name in quotes, a property or marker name, a set, or a tree's '('")  # fmt: skip

    def marker_or_property(self) -> None:
        if self._at(2).kind == "(":
            self.marker()
        else:
            self.property()

    def property(self) -> None:
        self.expect("(")
        self.props.append(str(self.demand("label", "a property name").value))
        self.next()
        while self.cur.kind in ("number", "string", "label", "rgb"):
            if self.cur.kind == "rgb":
                self.demand("(", "'(' after RGB")
                self.demand("number", "a red value")
                self.next()
                self.optcomma()
                self.expect("number", "a green value")
                self.next()
                self.optcomma()
                self.expect("number", "a blue value")
                self.demand(")")
            self.next()
        self.expect(")", "')' closing the property")
        self.next()

    def properties(self) -> None:
        self.props = []
        while self.cur.kind == "(" and self._at(1).kind in ("label", "set"):
            if self._at(1).kind == "label":
                self.property()
            else:
                self.set()
            self.optcomma()

    def set(self) -> None:
        self.expect("(")
        self.demand("set")
        self.demand("string", "the set's name in quotes")
        self.next()
        if self.cur.kind != ")":
            self.objects()
        self.expect(")", "')' closing the set")
        self.next()

    def marker(self) -> None:
        self.expect("(")
        self.demand("label")
        self.next()
        self.properties()
        self.points()
        self.expect(")", "')' closing the marker")
        self.next()

    def tree_or_text(self) -> None:
        start = self.i
        if not self.text():
            self.i = start
            self.tree()

    def text(self) -> bool:
        self.expect("(")
        self.next()
        self.properties()
        self.point()
        if self.cur.kind != "string":
            return False
        self.next()
        if self.cur.kind != ")":
            return False
        self.next()
        return True

    # ------------------------------------------------------------ contours and trees
    def contour(self) -> None:
        self.expect("(")
        name = self.demand("string").value
        self.next()
        self.properties()
        points, lines = self.points()
        if name in _SOMA_NAMES and len(points) > 2:
            self.sections.append(RawSection(1, points, lines, contour=True))
        self.expect(")", "')' closing the contour")
        self.next()

    def tree(self) -> None:
        self.parent = None
        self.expect("(")
        self.next()
        self.properties()
        self.kind = _TYPES.get(self.props[-1], 0) if self.props else 0
        self.branch()
        self.expect(")", "')' closing the tree")
        self.next()
        self.parent = None

    def branch(self) -> None:
        saved = self.parent
        first = self.cur.line
        points, lines = self.treepoints()
        if not points:
            raise ASCError(f"{self.fname}, line {first}: a branch without points")
        parent = self.parent
        if parent is not None and parent.points[-1][:3] != points[0][:3]:
            # NEURON's need_extra: the branch starts at its parent's last point, with its own first diameter
            points.insert(0, (*parent.points[-1][:3], points[0][3]))
            lines.insert(0, lines[0])
        sec = RawSection(self.kind, points, lines, parent)
        self.sections.append(sec)
        self.parent = sec
        self.branchend()
        self.parent = saved

    def treepoints(self) -> tuple[list, list[int]]:
        points: list = []
        lines: list[int] = []
        self.treepoint(points, lines)
        while True:
            self.optcomma()
            if self.cur.kind != "(" or self._at(1).kind != "number":
                break
            self.treepoint(points, lines)
        return points, lines

    def treepoint(self, points: list, lines: list[int]) -> None:
        if self._at(1).kind == "label":
            self.marker_or_property()
            return
        line = self._at(1).line
        points.append(self.point())
        lines.append(line)
        while self.cur.kind == "<":  # spines: ignored
            self.next()
            self.properties()
            self.point()
            self.expect(">", "'>' closing the spine")
            self.next()

    def branchend(self) -> None:
        self.optcomma()
        if self.cur.kind == "(":
            while self._at(1).kind == "label":
                self.skip_marker()
        self.optcomma()
        if self.cur.kind == "(":
            self.next()
            self.branch()
            while self.cur.kind == "|":
                self.next()
                self.branch()
            self.expect(")", "'|' or ')' closing the split")
            self.next()
        elif self.cur.kind == "label":  # an ending: Normal, High, Low, Incomplete, ...
            self.next()

    def skip_marker(self) -> None:
        self.expect("(")
        depth = 1
        while depth:
            self.next()
            depth += {"(": 1, ")": -1}.get(self.cur.kind, 0)
            if self.cur.kind == "eof":
                self.expect(")")
        self.next()

    # ------------------------------------------------------------ points
    def points(self) -> tuple[list, list[int]]:
        points, lines = [], []
        while True:
            lines.append(self._at(1).line)
            points.append(self.point())
            self.optcomma()
            if self.cur.kind != "(":
                return points, lines

    def point(self) -> tuple[float, float, float, float]:
        self.expect("(", "'(' starting a point")
        x = float(self.demand("number", "a point's x (µm)").value)
        self.next()
        self.optcomma()
        y = float(self.expect("number", "a point's y (µm)").value)
        self.next()
        z = d = 0.0
        self.optcomma()
        if self.cur.kind == "number":
            z = float(self.cur.value)
            self.next()
            self.optcomma()
            if self.cur.kind == "number":
                d = float(self.cur.value)
                self.next()
                self.optcomma()
                if self.cur.kind == "label":
                    self.next()
                self.optcomma()
                if self.cur.kind == "(":  # a Bézier control point
                    self.demand("number")
                    for _ in range(3):
                        self.next()
                        self.optcomma()
                        self.expect("number")
                    self.demand(")")
                    self.next()
        self.expect(")", "')' closing the point")
        self.next()
        return x, y, z, d


def points_array(sec: RawSection) -> np.ndarray:
    """`(n, 4)` array of a raw section's points."""
    return np.asarray(sec.points, float)
