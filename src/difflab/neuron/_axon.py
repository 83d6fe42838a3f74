r"""BluePyOpt's axon replacement: the reconstructed axon becomes a 60 µm stub of two sections.

As ``NrnFileMorphology.replace_axon`` (BluePyOpt 1.14, ``bluepyopt/ephys/morphologies.py``) does it after
import: every section of the ``axon`` region is removed and ``axon[0]`` and ``axon[1]`` take their place,
cylinders of 30 µm (half the stub) with ``nseg`` 1, ``axon[0]`` at ``soma[0](1)`` and ``axon[1]`` at
``axon[0](1)``. Their diameters come from the original axon:

- no axon: 1 µm and 1 µm;
- one axon section: both its diameter;
- more: ``axon[0]``'s diameter, and that of the first axon section (in index order) whose middle lies more
  than 60 µm from ``soma[0](0.5)`` along the tree (``axon[0]``'s again if none does).

"The diameter" of a section is NEURON's ``sec.diam``: the mean diameter (over arc length) of the segment
containing ``x = 0.5``, so it depends on ``nseg`` (BluePyOpt sets ``nseg = 1 + 2⌊L/40⌋`` first: the rule
``("length", 40.0)``). Distances run between the centres of the segments containing the points (NEURON's
``distance``).
"""

from __future__ import annotations

import re

import numpy as np

from ._morphology import Morphology, Section

_STUB = 60.0  # µm, both sections together


def replace_axon(morphology: Morphology) -> Morphology:
    """The morphology with its ``axon`` sections replaced by BluePyOpt's two-section stub (module docstring).

    Raises:
        ValueError: without a section ``soma[0]``, or when a section outside the axon hangs from the axon.
    """
    if "soma[0]" not in morphology.index:
        raise ValueError(f"replace_axon needs a section 'soma[0]'; sections: {', '.join(morphology.names[:8])}")
    axon = sorted((s for s in morphology.sections if s.region == "axon"), key=_index)
    names = {s.name for s in axon}
    for s in morphology.sections:
        if s.parent in names and s.region != "axon":
            raise ValueError(f"replace_axon: section {s.name!r} hangs from the axon section {s.parent!r}")
    d1 = d2 = segment_diameter(axon[0], 0.5) if axon else 1.0
    for sec in axon if len(axon) > 1 else []:
        if path_distance(morphology, ("soma[0]", 0.5), (sec.name, 0.5)) > _STUB:
            d2 = segment_diameter(sec, 0.5)
            break
    soma = morphology.sections[morphology.index["soma[0]"]]
    origin = np.asarray(soma.points[-1][:3])
    direction = np.asarray(axon[0].points[-1][:3]) - np.asarray(axon[0].points[0][:3]) if axon else np.zeros(3)
    if not np.linalg.norm(direction) > 0:
        direction = np.array([0.0, -1.0, 0.0])
    half = _STUB / 2
    stub = [
        Section.cylinder("axon[0]", half, d1, region="axon", parent="soma[0]", origin=origin, direction=direction),
        Section.cylinder("axon[1]", half, d2, region="axon", parent="axon[0]",
                         origin=origin + half * direction / np.linalg.norm(direction), direction=direction),
    ]  # fmt: skip
    return Morphology([*(s for s in morphology.sections if s.region != "axon"), *stub])


def segment_diameter(sec: Section, x: float) -> float:
    """NEURON's `sec(x).diam` (µm): the mean diameter over arc length of the segment containing `x`."""
    pts = np.asarray(sec.points, float)
    arc, L = sec.arc, sec.L
    i = min(int(x * sec.nseg), sec.nseg - 1)
    a, b = i * L / sec.nseg, (i + 1) * L / sec.nseg
    s = np.union1d(arc[(arc > a) & (arc < b)], [a, b])
    d = np.interp(s, arc, pts[:, 3])
    return float(np.sum((d[1:] + d[:-1]) / 2 * np.diff(s)) / (b - a))


def path_distance(morphology: Morphology, a: tuple[str, float], b: tuple[str, float]) -> float:
    """Path length (µm) between the nodes at two locations, as NEURON's `distance` measures it."""
    up_a, up_b = _to_root(morphology, *a), _to_root(morphology, *b)
    common = next(k for k in up_a if k in up_b)
    return up_a[common][1] + up_b[common][1] + abs(up_a[common][0] - up_b[common][0])


def _to_root(morph: Morphology, name: str, x: float) -> dict[int, tuple[float, float]]:
    """`{section: (position of the path on it (µm), length walked before it (µm))}` from a location to the root."""
    out: dict[int, tuple[float, float]] = {}
    k, walked = morph.index[name], 0.0
    while True:
        sec = morph.sections[k]
        position = _node_position(sec, x)
        out[k] = (position, walked)
        if sec.parent is None:
            return out
        walked += position
        k, x = morph.index[sec.parent], sec.parent_x


def _node_position(sec: Section, x: float) -> float:
    if x <= 0.0 or x >= 1.0:
        return sec.L * (x >= 1.0)
    return (min(int(x * sec.nseg), sec.nseg - 1) + 0.5) / sec.nseg * sec.L


def _index(sec: Section) -> int:
    m = re.search(r"\[(\d+)\]$", sec.name)
    return int(m.group(1)) if m else 0
