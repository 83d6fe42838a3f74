r"""Neurolucida ASCII morphologies (``.asc``) to a [`Morphology`][difflab.neuron.Morphology].

The sections are those NEURON 9's ``Import3d_Neurolucida3`` + ``Import3d_GUI(reader, False).instantiate(None)``
builds, checked against NEURON 9 on the shipped files (``tests/neuron/test_asc.py``):

- **Syntax** (``_asc_parse``): NEURON's grammar. Comments ``;``, properties (``(Color ...)``, ``(Axon)``,
  ``(Closed)``, ``(Resolution ...)``, ``(ImageCoords ...)``), markers, spines, texts and sets are read and
  ignored; trees, their splits ``( ... | ... )`` and endings (``Normal``, ``High``, ``Low``, ``Incomplete``)
  make the sections.
- **Sections.** Every unbranched piece of a tree is a section, named by the tree's type (its last property
  before the points: ``(Axon)`` ``axon``, ``(Dendrite)`` ``dend``, ``(Apical)`` ``apic``, anything else
  ``dend_0``) and numbered within the type in file order, parents before children (``dend[0]``, ``dend[1]``,
  ...). A child starts with its parent's last point (unless its own first point is there), with its own first
  diameter, and attaches at ``parent(1)``. A child of one point, or of two equal points, is dropped and its
  children hang from its parent.
- **Soma.** A closed contour named ``"CellBody"`` (or ``"Cell Body"``, ``"Soma"``) with more than two points
  becomes ``soma[0]`` by NEURON's ``contour2centroid`` (``_asc_soma``: 21 points along the outline's major
  axis); consecutive outlines whose xy bounding boxes overlap form a stack, one point per outline. Every
  tree's first section attaches at ``soma[0](0.5)`` and starts with its own first point.
- **Numbers as NEURON holds them.** NEURON receives each 3-D point as text with 8 significant digits and keeps
  it in single precision; the points here are rounded the same way, so that lengths and areas are NEURON's.

Errors name the file and the line: no soma, several somas, an unclosed parenthesis or contour, a point whose
diameter is not > 0, a section of zero length, an unknown construct.

Reference: MBF Bioscience, *Neurolucida data file format*; NEURON's ``import3d`` library (Hines & Carnevale,
*The NEURON Book*, 2006).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ._asc_parse import ASCError, Parser, RawSection, check_parentheses, points_array, tokenize
from ._asc_soma import contour_centroid, contour_stack_centroid
from ._axon import replace_axon as _replace_axon
from ._morphology import Morphology, Section
from ._nseg import apply_nseg

_NAMES = {1: "soma", 2: "axon", 3: "dend", 4: "apic"}


def read_asc(
    path: str | Path, *, nseg: Any = 1, Ra: Any = None, cm: Any = None, replace_axon: bool = False
) -> Morphology:
    """Read a Neurolucida ``.asc`` file into a [`Morphology`][difflab.neuron.Morphology] with ``Import3d``'s sections.

    Args:
        path: the ``.asc`` file (coordinates and diameters in µm).
        nseg: compartments per section: a number, ``{region: number}``, ``"d_lambda"`` or ``("length", µm)``
            (see [`with_nseg`][difflab.neuron.with_nseg]).
        Ra: axial resistivity (Ω·cm), a number or ``{region: number}``: needed by ``nseg="d_lambda"``.
        cm: specific capacitance (µF/cm²), a number or ``{region: number}``: needed by ``nseg="d_lambda"``.
        replace_axon: replace the axon by BluePyOpt's 60 µm stub after the ``nseg`` rule
            ([`replace_axon`][difflab.neuron.replace_axon]).

    Raises:
        ASCError: on malformed input (see the module docstring).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"Neurolucida file {str(path)!r} does not exist")
    fname = path.name
    tokens = tokenize(path.read_text(errors="replace"), fname)
    check_parentheses(tokens, fname)
    raw = Parser(tokens, fname).parse()
    _check_points(raw, fname)
    sections = _assemble(raw, fname)
    morph = Morphology(apply_nseg(sections, nseg, Ra=Ra, cm=cm))
    return _replace_axon(morph) if replace_axon else morph


def _check_points(raw: list[RawSection], fname: str) -> None:
    for sec in raw:
        pts = points_array(sec)
        if not np.isfinite(pts).all():
            line = sec.lines[int(np.flatnonzero(~np.isfinite(pts).all(axis=1))[0])]
            raise ASCError(f"{fname}, line {line}: a point needs finite coordinates and diameter (µm)")
        if not sec.contour and (pts[:, 3] <= 0).any():
            k = int(np.flatnonzero(pts[:, 3] <= 0)[0])
            raise ASCError(f"{fname}, line {sec.lines[k]}: a point's diameter must be > 0 µm; got {pts[k, 3]:g}")


def _assemble(raw: list[RawSection], fname: str) -> list[Section]:
    """NEURON's ``connect2soma``, ``chk_valid`` and naming, then the sections with NEURON's numbers."""
    somas = _soma_stacks([s for s in raw if s.contour])
    if not somas:
        raise ASCError(f'{fname}: no soma: expected a contour named "CellBody" (or "Cell Body", "Soma") '
                       "with more than two points")  # fmt: skip
    if len(somas) > 1:
        lines = ", ".join(str(stack[0].lines[0]) for stack in somas)
        raise ASCError(f"{fname}: {len(somas)} soma contours that do not overlap (lines {lines}): NEURON builds "
                       "separate somas; difflab reads one cell")  # fmt: skip
    soma = somas[0][0]
    trees = [s for s in raw if not s.contour]
    for sec in trees:
        if sec.parent is None:
            sec.parent, sec.parent_x = soma, 0.5
    trees = _drop_degenerate(trees)
    names: dict[int, str] = {id(soma): "soma[0]"}
    counts: dict[str, int] = {}
    for sec in trees:
        base = _NAMES.get(sec.kind, f"dend_{sec.kind}")
        names[id(sec)] = f"{base}[{counts.get(base, 0)}]"
        counts[base] = counts.get(base, 0) + 1
    outlines = [points_array(s)[:, :3] for s in somas[0]]
    centroid = contour_centroid(outlines[0]) if len(outlines) == 1 else contour_stack_centroid(outlines)
    out = [Section("soma[0]", "soma", _neuron_points(centroid), None, 1.0, 1)]
    for sec in trees:
        name, parent = names[id(sec)], sec.parent
        points = _neuron_points(points_array(sec))
        if Section(name, "x", points).L <= 0:
            raise ASCError(f"{fname}, line {sec.lines[0]}: section {name} has zero length (its points coincide)")
        assert parent is not None
        out.append(Section(name, name.split("[")[0], points, names[id(parent)], sec.parent_x, 1))
    return out


def _soma_stacks(contours: list[RawSection]) -> list[list[RawSection]]:
    """Consecutive outlines whose xy bounding boxes overlap form one soma (NEURON's ``soma_contour_stack``)."""
    stacks: list[list[RawSection]] = []
    previous = None
    for sec in contours:
        box = _xy_box(sec)
        if previous is not None and _overlap(previous, box):
            stacks[-1].append(sec)
        else:
            stacks.append([sec])
        previous = box
    return stacks


def _xy_box(sec: RawSection) -> np.ndarray:
    pts = points_array(sec)
    return np.concatenate([pts[:, :2].min(axis=0), pts[:, :2].max(axis=0)])


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    return not any(a[i] > b[2 + i] or b[i] > a[2 + i] for i in (0, 1))


def _drop_degenerate(trees: list[RawSection]) -> list[RawSection]:
    """NEURON's ``chk_valid``: a section of one point, or of two equal points, goes; its children take its place."""
    trees = list(trees)
    for i in range(len(trees) - 1, -1, -1):
        sec = trees[i]
        pts = points_array(sec)[:, :3]
        if len(pts) <= 1 or (len(pts) == 2 and (pts[0] == pts[1]).all()):
            del trees[i]
            for child in trees[i:]:
                if child.parent is sec:
                    child.parent, child.parent_x = sec.parent, sec.parent_x
    return trees


def _neuron_points(points: np.ndarray) -> tuple[tuple[float, float, float, float], ...]:
    """Points as NEURON stores them: printed with 8 significant digits, then held in single precision."""
    rounded = np.array([[float(f"{v:.8g}") for v in row] for row in np.asarray(points, float)])
    return tuple(tuple(float(v) for v in row) for row in rounded.astype(np.float32))  # type: ignore[misc]
