r"""SWC morphologies: points ``id type x y z radius parent`` (µm) to a [`Morphology`][difflab.neuron.Morphology].

The sections are those NEURON's ``Import3d`` (``Import3d_SWC_read`` + ``Import3d_GUI.instantiate``) builds,
checked against NEURON 9 on the shipped cells (``tests/neuron/test_swc.py``):

- **Sections** are unbranched runs of points of one type; a section ends at a branch point (a point with more
  than one child), at a leaf, and where the type changes. Names follow the type: 1 ``soma``, 2 ``axon``,
  3 ``dend``, 4 ``apic``, any other ``t`` ``dend_t``; sections of one type are numbered ``dend[0]``,
  ``dend[1]``, ... in the order of their first point in the file. The region of a section is its name
  without the index.
- A section whose parent is not the soma starts with its parent's last point (position and diameter), and
  attaches at ``parent(1)``.
- **Soma.** One soma point of radius $r$, or three (NeuroMorpho's convention: the centre and two points at
  ±r), becomes a cylinder along x through the first soma point with ``L = diam = 2r`` (the area of the
  sphere, $4\pi r^2$), as ``Import3d`` makes it. Several soma points in a chain are kept as the soma
  section's 3-D points (frusta). Every section whose parent point is a soma point attaches at
  ``soma[0](0.5)`` (the soma section is ``soma[0]``) and starts with its own first point. Without soma
  points the root section is the first section of the root's type.

Errors name the file, the line and the point: a malformed line, a duplicate id, a parent that is not in the
file, a cycle, a second root, a radius that is not positive.

Reference: Cannon et al., J. Neurosci. Methods 84:49 (1998) (the SWC format); NEURON's ``import3d`` library.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ._morphology import Morphology, Section, as_point
from ._nseg import apply_nseg

_TYPES = {1: "soma", 2: "axon", 3: "dend", 4: "apic"}


class SWCError(ValueError):
    """A malformed SWC file (the message names the file, the line and the point)."""


def read_swc(path: str | Path, *, nseg: Any = 1, Ra: Any = None, cm: Any = None) -> Morphology:
    """Read an SWC file into a [`Morphology`][difflab.neuron.Morphology] with ``Import3d``'s sections.

    Args:
        path: the ``.swc`` file (coordinates and radii in µm).
        nseg: compartments per section: one number, ``{region: nseg}`` (regions absent from it get 1),
            ``"d_lambda"`` or ``("length", µm)`` (see [`with_nseg`][difflab.neuron.with_nseg]).
        Ra: axial resistivity (Ω·cm), a number or ``{region: number}``: needed by ``nseg="d_lambda"``.
        cm: specific capacitance (µF/cm²), a number or ``{region: number}``: needed by ``nseg="d_lambda"``.

    Raises:
        SWCError: on malformed input (see the module docstring).
    """
    points = _parse(Path(path))
    return Morphology(apply_nseg(_sections(points, 1, Path(path).name), nseg, Ra=Ra, cm=cm))


def _parse(path: Path) -> dict[int, tuple[int, np.ndarray, int, int]]:
    """``{id: (type, [x, y, z, diam], parent, line number)}`` after checking every point."""
    if not path.is_file():
        raise FileNotFoundError(f"SWC file {str(path)!r} does not exist")
    points: dict[int, tuple[int, np.ndarray, int, int]] = {}
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        fields = text.split()
        try:
            if len(fields) != 7:
                raise ValueError
            pid, kind, parent = int(fields[0]), int(fields[1]), int(fields[6])
            x, y, z, r = map(float, fields[2:6])
        except ValueError:
            raise SWCError(
                f"{path.name}, line {lineno}: expected 'id type x y z radius parent'; got {text!r}"
            ) from None
        if pid in points:
            raise SWCError(f"{path.name}, line {lineno}: point {pid} is defined twice (first on line {points[pid][3]})")
        for axis, value in (("x", x), ("y", y), ("z", z)):
            if not np.isfinite(value):
                raise SWCError(f"{path.name}, line {lineno}: point {pid} needs a finite {axis} (µm); got {value}")
        if not (np.isfinite(r) and r > 0):
            raise SWCError(f"{path.name}, line {lineno}: point {pid} needs a finite radius > 0 µm; got {r}")
        points[pid] = (kind, np.array([x, y, z, 2 * r]), parent, lineno)
    if not points:
        raise SWCError(f"{path.name}: no points")
    roots = [p for p, (_, _, parent, _) in points.items() if parent == -1]
    for pid, (_, _, parent, lineno) in points.items():
        if parent != -1 and parent not in points:
            raise SWCError(f"{path.name}, line {lineno}: point {pid} has parent {parent}, which is not in the file")
    if len(roots) != 1:
        raise SWCError(f"{path.name}: a cell needs exactly one root point (parent -1); got {len(roots)}: {roots[:5]}")
    _check_acyclic(points, path.name)
    return points


def _check_acyclic(points, name: str) -> None:
    state: dict[int, int] = {}  # 1 = on the current path, 2 = reaches the root
    for start in points:
        path: list[int] = []
        node = start
        while node != -1 and state.get(node) != 2:
            if state.get(node) == 1:
                cycle = [*path[path.index(node) :], node]
                raise SWCError(f"{name}: points form a cycle: {' -> '.join(map(str, cycle))}")
            state[node] = 1
            path.append(node)
            node = points[node][2]
        for p in path:
            state[p] = 2


def _sections(points, nseg, fname: str) -> list[Section]:
    children: dict[int, list[int]] = {}
    for pid, (_, _, parent, _) in points.items():
        children.setdefault(parent, []).append(pid)
    root = children[-1][0]
    soma = [p for p, v in points.items() if v[0] == 1]
    # runs of points: each starts at the root, after a branch point, after the soma or at a change of type
    starts = sorted(p for p, (kind, _, parent, _) in points.items()
                    if kind != 1 and (parent == -1 or points[parent][0] != kind or len(children.get(parent, [])) > 1
                                      or points[parent][0] == 1))  # fmt: skip
    runs: dict[int, list[int]] = {}
    for s in starts:
        run = [s]
        while len(kids := children.get(run[-1], [])) == 1 and points[kids[0]][0] == points[run[-1]][0]:
            run.append(kids[0])
        runs[s] = run
    names: dict[int, str] = {}
    counts: dict[str, int] = {}
    for s in starts:  # numbered by type in file order of their first point
        kind = points[s][0]
        base = _TYPES.get(kind, f"dend_{kind}")
        names[s] = f"{base}[{counts.get(base, 0)}]"
        counts[base] = counts.get(base, 0) + 1
    owner = {p: s for s, run in runs.items() for p in run}
    sections = []
    if soma:
        sections.append(_soma_section(points, soma, children, fname, nseg))
    for s in starts:
        run, parent = runs[s], points[s][2]
        xyzd = [points[p][1] for p in run]
        region = names[s].split("[")[0]
        count = nseg.get(region, 1) if isinstance(nseg, dict) else int(nseg)
        if parent == -1:
            parent_name, x = None, 1.0
        elif points[parent][0] == 1:
            parent_name, x = "soma[0]", 0.5
        else:
            xyzd = [points[parent][1], *xyzd]
            parent_name, x = names[owner[parent]], 1.0
        if len(xyzd) == 1:  # a lone point hanging off the soma: no length to build a section from
            raise SWCError(f"{fname}, line {points[s][3]}: point {s} alone makes a section of zero length")
        sections.append(Section(names[s], region, tuple(map(tuple, np.array(xyzd))), parent_name, x, count))
    if soma and points[root][0] != 1:
        raise SWCError(f"{fname}: the root point {root} is not a soma point, but the file has soma points {soma[:5]}")
    return sections


def _soma_section(points, soma, children, fname, nseg) -> Section:
    count = nseg.get("soma", 1) if isinstance(nseg, dict) else int(nseg)
    first = soma[0]
    centre, diam = points[first][1][:3], points[first][1][3]
    is_three_point = len(soma) == 3 and all(points[p][2] == first for p in soma[1:])
    if len(soma) == 1 or is_three_point:
        r = diam / 2
        pts = [(*(centre + np.array([dx, 0.0, 0.0])), diam) for dx in (-r, 0.0, r)]
        return Section("soma[0]", "soma", tuple(as_point(p) for p in pts), None, 1.0, count)
    chain, node = [first], first
    while len(kids := [k for k in children.get(node, []) if points[k][0] == 1]) == 1:
        chain.append(kids[0])
        node = kids[0]
    if len(chain) != len(soma):
        raise SWCError(f"{fname}: soma points must form one chain or be the 1- or 3-point convention; got {soma[:8]}")
    return Section("soma[0]", "soma", tuple(as_point(points[p][1]) for p in chain), None, 1.0, count)
