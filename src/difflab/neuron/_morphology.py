r"""Morphology: a tree of unbranched sections, each cut into `nseg` compartments, in NEURON's discretisation.

A [`Section`][difflab.neuron.Section] is an unbranched cable given by 3-D points `(x, y, z, diam)` in µm (a
cylinder of length `L` and diameter `diam` is two points). Its `0` end attaches to its parent at
`parent_x` (NEURON's `connect child(0), parent(x)`). The cable equation is discretised exactly as NEURON
does it (Hines & Carnevale, *The NEURON Book*, ch. 5):

- each section has `nseg` nodes at the segment centres `x = (i + ½)/nseg` with the membrane area of
  their segment, and zero-area nodes at its `0` and `1` ends; a child attached at `x` in (0, 1) shares
  the parent's segment node there, one attached at 0 or 1 shares the parent's end node;
- areas and axial resistances integrate the frusta between 3-D points (diameters linear in arc length):
  $A = \sum \pi \tfrac{d_1 + d_2}{2} \sqrt{\Delta s^2 + (\tfrac{d_2 - d_1}{2})^2}$ (µm²) and
  $r = R_a \sum \tfrac{4\,\Delta s}{\pi d_1 d_2} \cdot 10^{-2}$ (MΩ, with $R_a$ in Ω·cm, lengths in µm), over
  each half segment;
- the resistance between a node and its parent node is that of the half segments between them (a child's
  first half segment only, where it attaches to a parent's node).

The node tree (segment nodes first, in section order, then the end nodes) is what the cable solver eliminates
level by level (Hines ordering). Zero-area nodes have no state: their potential is the conductance-weighted mean
of their neighbours (no membrane current flows there), and no two of them are ever adjacent.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from ._tree import NodeTree

#: MΩ per (Ω·cm · µm / µm²): resistance of a cable from Ra (Ω·cm), length (µm) and cross-section (µm²).
_RESISTANCE = 1e-2

_LOCATION = re.compile(r"^\s*(?P<name>[^()\s]+)\s*\(\s*(?P<x>[0-9.eE+-]+)\s*\)\s*$")


def as_point(values) -> tuple[float, float, float, float]:
    """`(x, y, z, diam)` (µm) as Python floats, from any sequence of four numbers."""
    x, y, z, diam = map(float, values)
    return x, y, z, diam


@dataclasses.dataclass(frozen=True)
class Section:
    """An unbranched cable: 3-D points along its axis, its parent and its number of compartments.

    Attributes:
        name: unique name, e.g. `"soma"`, `"dend[3]"`.
        region: the group whose parameters it takes (`"soma"`, `"dend"`, `"axon"`, `"apic"`).
        points: `((x, y, z, diam), ...)` in µm, at least two, from the `0` end to the `1` end.
        parent: the parent section's name; `None` for the root.
        parent_x: where on the parent the `0` end attaches, in [0, 1].
        nseg: number of compartments (≥ 1).
    """

    name: str
    region: str
    points: tuple[tuple[float, float, float, float], ...]
    parent: str | None = None
    parent_x: float = 1.0
    nseg: int = 1

    @classmethod
    def cylinder(
        cls,
        name: str,
        L: float,
        diam: float,
        *,
        region: str | None = None,
        parent: str | None = None,
        parent_x: float = 1.0,
        nseg: int = 1,
        origin=(0.0, 0.0, 0.0),
        direction=(1.0, 0.0, 0.0),
    ) -> Section:
        """A cylinder of length `L` and diameter `diam` (µm) laid out from `origin` along `direction`."""
        o, u = np.asarray(origin, float), np.asarray(direction, float)
        u = u / np.linalg.norm(u)
        end = o + float(L) * u
        points = (as_point((*o, diam)), as_point((*end, diam)))
        return cls(name, region or name.split("[")[0], points, parent, float(parent_x), int(nseg))

    @property
    def arc(self) -> np.ndarray:
        """Cumulative path length at each 3-D point (µm)."""
        xyz = np.asarray(self.points, float)[:, :3]
        return np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(xyz, axis=0), axis=1))])

    @property
    def L(self) -> float:
        """Length (µm)."""
        return float(self.arc[-1])


class Morphology:
    """A checked tree of [`Section`][difflab.neuron.Section]s and its node structure (NEURON's discretisation).

    Args:
        sections: the sections; the parent of each must be among them, exactly one has no parent (the root).

    Raises:
        ValueError: naming the section and field, for duplicate names, a missing parent, a cycle, a second
            root, a diameter or length that is not positive, `nseg < 1` or `parent_x` outside [0, 1].
    """

    def __init__(self, sections):
        self.sections = tuple(sections)
        _check_sections(self.sections)
        self.names = tuple(s.name for s in self.sections)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.regions = tuple(dict.fromkeys(s.region for s in self.sections))
        self._build_nodes()
        self._path_distances = self._distances_from_root()
        self._path_distances.flags.writeable = False

    # equality by content: a morphology is static metadata of a cell (hashable for jit)
    def __eq__(self, other):
        return isinstance(other, Morphology) and self.sections == other.sections

    def __hash__(self):
        return hash(self.sections)

    def __repr__(self):
        return f"Morphology({len(self.sections)} sections, {self.n_segments} compartments)"

    # ------------------------------------------------------------------ nodes
    def _build_nodes(self) -> None:
        nseg = np.array([s.nseg for s in self.sections])
        self.seg_start = np.concatenate([[0], np.cumsum(nseg)[:-1]])
        self.n_segments = S = int(nseg.sum())
        self.seg_section = np.repeat(np.arange(len(self.sections)), nseg)
        n_sec = len(self.sections)
        # node ids: segments 0..S-1, the 1-end of section k is S + k, the root's 0-end is S + n_sec
        self.n_nodes = S + n_sec + 1
        root_end = S + n_sec
        area = np.zeros(self.n_nodes)
        parent = np.full(self.n_nodes, -1)
        q = np.zeros(self.n_nodes)  # resistance to the parent node, per Ω·cm of the edge's section (MΩ)
        edge_section = np.zeros(self.n_nodes, dtype=int)
        zero_end: dict[int, int] = {}
        for k in self._topological_order():
            sec = self.sections[k]
            zero_end[k] = root_end if sec.parent is None else self._node_at(self.index[sec.parent], sec.parent_x,
                                                                              zero_end)  # fmt: skip
            areas, halves = _segment_geometry(sec)
            first = int(self.seg_start[k])
            for i in range(sec.nseg):
                node = first + i
                area[node] = areas[i]
                parent[node] = zero_end[k] if i == 0 else node - 1
                q[node] = halves[i, 0] if i == 0 else halves[i - 1, 1] + halves[i, 0]
                edge_section[node] = k
            parent[S + k], q[S + k], edge_section[S + k] = first + sec.nseg - 1, halves[-1, 1], k
        self.zero_end = np.array([zero_end[k] for k in range(n_sec)])
        self._zero_end_map = zero_end
        self.area, self.parent, self.q, self.edge_section = area, parent, q, edge_section
        self._build_levels()

    def _topological_order(self) -> list[int]:
        order, seen = [], set()
        children: dict[str | None, list[int]] = {}
        for k, s in enumerate(self.sections):
            children.setdefault(s.parent, []).append(k)
        stack = list(reversed(children.get(None, [])))
        while stack:
            k = stack.pop()
            order.append(k)
            seen.add(k)
            stack.extend(reversed(children.get(self.names[k], [])))
        return order

    def _node_at(self, k: int, x: float, zero_end: dict[int, int]) -> int:
        """The node of section `k` at `x` (NEURON: the segment containing `x`; the end nodes at 0 and 1)."""
        if x <= 0.0:
            return zero_end[k]
        if x >= 1.0:
            return self.n_segments + k
        nseg = self.sections[k].nseg
        return int(self.seg_start[k] + min(int(x * nseg), nseg - 1))

    def _build_levels(self) -> None:
        #: the node tree's index tables: children sums and the Hines solve, by gathers
        self.tree = NodeTree(self.parent, solve_roots=np.arange(self.n_segments))
        self.root = self.tree.root
        #: sums over the compartment neighbours of each zero-area node (its children; its parent is one gather)
        self.zero_children = self.tree.subtree_sum(np.arange(self.n_segments, self.n_nodes))

    # ------------------------------------------------------------------ locations
    def location(self, where) -> tuple[str, float]:
        """`(section name, x)` from `"dend(0.5)"`, `("dend", 0.5)` or a bare name (its middle)."""
        if isinstance(where, tuple) and len(where) == 2:
            name, x = where
        elif isinstance(where, str) and (m := _LOCATION.match(where)):
            name, x = m["name"], m["x"]
        elif isinstance(where, str):
            name, x = where.strip(), 0.5
        else:
            raise TypeError(f"a location must be 'section(x)', (section, x) or a section name; got {where!r}")
        if name not in self.index:
            raise KeyError(f"unknown section {name!r}; sections: {_listing(self.names)}")
        try:
            x = float(x)
        except ValueError:
            raise ValueError(f"location {where!r}: x must be a number in [0, 1]; got {x!r}") from None
        if not 0.0 <= x <= 1.0:
            raise ValueError(f"location {where!r}: x must be in [0, 1]; got {x}")
        return name, x

    def node(self, where) -> int:
        """The node index at a location (segment nodes are `< n_segments`; end nodes have no area)."""
        name, x = self.location(where)
        k = self.index[name]
        return self._node_at(k, x, self._zero_end_map)

    def segment(self, where) -> int:
        """The compartment at a location inside a section (`0 < x < 1`): where point currents enter."""
        name, x = self.location(where)
        if x <= 0.0 or x >= 1.0:
            raise ValueError(f"location {where!r}: a point current needs 0 < x < 1 (the ends have no membrane)")
        return self.node((name, x))

    def end_neighbours(self, node: int) -> list[tuple[int, int]]:
        """`(compartment, edge)` for each neighbour of a zero-area end node; an edge is named by its child node."""
        up = [(int(self.parent[node]), node)] if self.parent[node] >= 0 else []
        return up + [(int(c), int(c)) for c in np.flatnonzero(self.parent == node)]

    def path_distances(self) -> np.ndarray:
        """Path distance (µm) along the tree from the root section's centre to every compartment's centre.

        NEURON's `distance(soma(0.5), seg)` with the root (the soma) as origin: `|x − 0.5| L` on the root
        section, and on any other section the distance of its attachment point plus `x L`. Computed once, with
        the morphology (a read-only array).
        """
        return self._path_distances

    def _distances_from_root(self) -> np.ndarray:
        start: dict[str, float] = {}
        by_name = {sec.name: sec for sec in self.sections}

        def along(sec: Section, x: float) -> float:
            if sec.parent is None:
                return abs(x - 0.5) * sec.L
            return start[sec.name] + x * sec.L

        out = np.zeros(self.n_segments)
        for k in self._topological_order():
            sec = self.sections[k]
            if sec.parent is not None:
                start[sec.name] = along(by_name[sec.parent], sec.parent_x)
            x = (np.arange(sec.nseg) + 0.5) / sec.nseg
            out[self.seg_start[k] : self.seg_start[k] + sec.nseg] = [along(sec, float(xi)) for xi in x]
        return out

    def segment_centres(self) -> np.ndarray:
        """3-D coordinates (µm) of every compartment's centre, shape `(n_segments, 3)` (for plots)."""
        out = np.zeros((self.n_segments, 3))
        for k, sec in enumerate(self.sections):
            pts, arc = np.asarray(sec.points, float), sec.arc
            x = (np.arange(sec.nseg) + 0.5) / sec.nseg * arc[-1]
            out[self.seg_start[k] : self.seg_start[k] + sec.nseg] = np.stack(
                [np.interp(x, arc, pts[:, j]) for j in range(3)], 1
            )
        return out


def _segment_geometry(sec: Section) -> tuple[np.ndarray, np.ndarray]:
    """Membrane area and half-segment resistance factors of each segment.

    The membrane area of each segment (µm²) and the resistance factor `Σ 4Δs/(π d₁d₂)·10⁻²` of its left and right
    halves (MΩ per Ω·cm), shape `(nseg, 2)`.
    """
    pts = np.asarray(sec.points, float)
    arc, diam = sec.arc, pts[:, 3]
    bounds = np.linspace(0.0, arc[-1], 2 * sec.nseg + 1)
    cuts = np.union1d(arc, bounds)
    d = np.interp(cuts, arc, diam)
    ds = np.diff(cuts)
    lateral = np.pi * (d[:-1] + d[1:]) / 2 * np.sqrt(ds**2 + ((d[1:] - d[:-1]) / 2) ** 2)
    resist = _RESISTANCE * 4 * ds / (np.pi * d[:-1] * d[1:])
    piece_half = np.clip(np.searchsorted(bounds, (cuts[:-1] + cuts[1:]) / 2) - 1, 0, 2 * sec.nseg - 1)
    half_area = np.bincount(piece_half, lateral, minlength=2 * sec.nseg)
    half_r = np.bincount(piece_half, resist, minlength=2 * sec.nseg)
    return half_area.reshape(-1, 2).sum(axis=1), half_r.reshape(-1, 2)


def _check_sections(sections: tuple[Section, ...]) -> None:
    if not sections:
        raise ValueError("sections must hold at least one Section; got none")
    names = [s.name for s in sections]
    for s in sections:
        if not isinstance(s, Section):
            raise TypeError(f"sections must be Section objects; got {type(s).__name__}")
        if names.count(s.name) > 1:
            raise ValueError(f"section names must be unique; {s.name!r} appears {names.count(s.name)} times")
        pts = np.asarray(s.points, float)
        if pts.ndim != 2 or pts.shape[1] != 4 or pts.shape[0] < 2:
            raise ValueError(f"section {s.name!r}: points must be (x, y, z, diam) rows, at least 2; got {pts.shape}")
        if not np.isfinite(pts).all():
            raise ValueError(f"section {s.name!r}: points must be finite")
        if (pts[:, 3] <= 0).any():
            raise ValueError(f"section {s.name!r}: diameters must be > 0 µm; got {pts[:, 3].min():g}")
        if s.L <= 0:
            raise ValueError(f"section {s.name!r}: length must be > 0 µm; its points all coincide")
        if not (isinstance(s.nseg, int | np.integer) and s.nseg >= 1):
            raise ValueError(f"section {s.name!r}: nseg must be an integer >= 1; got {s.nseg!r}")
        if not 0.0 <= s.parent_x <= 1.0:
            raise ValueError(f"section {s.name!r}: parent_x must be in [0, 1]; got {s.parent_x}")
        if s.parent is not None and s.parent not in names:
            raise ValueError(f"section {s.name!r}: parent {s.parent!r} is not a section; sections: {_listing(names)}")
    roots = [s.name for s in sections if s.parent is None]
    if len(roots) != 1:
        raise ValueError(f"a cell needs exactly one root section (parent None); got {len(roots)}: {roots}")
    parent = {s.name: s.parent for s in sections}
    for s in sections:
        seen, node = [s.name], s.parent
        while node is not None:
            if node in seen:
                raise ValueError(f"sections form a cycle: {' -> '.join([*seen[seen.index(node) :], node])}")
            seen.append(node)
            node = parent[node]


def _listing(names, limit: int = 12) -> str:
    names = list(names)
    more = f", ... ({len(names)} in all)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more
