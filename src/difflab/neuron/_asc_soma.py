r"""The soma section NEURON's ``Import3d`` makes from a Neurolucida soma contour (``contour2centroid``).

A closed outline of the cell body becomes an unbranched section along the outline's major axis, as
``Import3d_GUI.contour2centroid`` (NEURON 9, ``lib/hoc/import3d/import3d_gui.hoc``) computes it:

1. **Resampling** (``contourcenter``): the outline's points $p_0 \dots p_{n-1}$ are resampled at 101 equally spaced
   arc lengths $s_k = k\,P/100$ along the open polyline $p_0 \to p_{n-1}$, with arc length measured in the
   xy plane only ($P$ excludes the closing edge); x, y and z are interpolated linearly in it. The centre
   $\bar p$ is the mean of the 101 points.
2. **Axes.** With $q_k = p_k - \bar p$, the eigenvectors of $\sum_k q_k q_k^\top$: the major axis $u$ (largest
   eigenvalue, turned so that its largest component is positive) and the minor axis $w$ (middle eigenvalue,
   z component set to 0, normalised).
3. **Two sides.** $d_k = q_k \cdot u$ and $r_k = q_k \cdot w$. Rotated to start at the largest $d$, the points up to
   the smallest $d$ (reversed) form one side and the rest the other; on each side points whose $d$ does not
   increase are dropped (from the far end).
4. **Section.** 21 positions $t_i$ from the second smallest to the second largest of all $d$ (step
   $(t_{20} - t_0)/20$); the 3-D points are $\bar p + t_i u$ and the diameters $|r^{(1)}(t_i) - r^{(2)}(t_i)|$, each
   side's $r$ interpolated linearly in $d$ (held constant beyond its ends); the two end diameters are
   averaged with their neighbours so that they are not 0.

A stack of outlines (overlapping in xy, ``contourstack2centroid``) gives one point per outline: its centre and
the diameter $\overline{|p_k - \bar p|} + P_3/(2\pi)$ (mean distance of the 101 resampled points from the centre
plus the radius of a circle of the outline's 3-D perimeter $P_3$, closing edge included).

Sums run left to right as NEURON's. Where an outline's points tie along the major axis (straight edges exactly
perpendicular to it, as in a drawn square or diamond), which of them survive step 3 depends on the last bit of
the eigenvectors, and NEURON's solver (Eigen) and LAPACK may differ there: BluePyOpt's synthetic
``simple_ax2.asc`` (a diamond) gives a soma of L = 7.07 µm here and 6.79 µm in NEURON. Traced outlines (the
shipped ones) agree to the last bit.

Reference: NEURON's ``import3d`` library (Hines & Carnevale, *The NEURON Book*, 2006).
"""

from __future__ import annotations

import numpy as np


def contour_centroid(xyz: np.ndarray) -> np.ndarray:
    """The soma's 3-D points `(x, y, z, diam)` (µm), shape `(21, 4)`, from one outline `xyz` `(n, 3)` (µm).

    Raises:
        ValueError: when the outline has no minor axis (its points lie on a line).
    """
    pts, mean = _resample(xyz)
    q = pts - mean
    scatter = np.array([[_sum(q[:, i] * q[:, j]) for j in range(3)] for i in range(3)])
    values, vectors = np.linalg.eigh(scatter)
    order = np.argsort(values, kind="stable")
    major = vectors[:, order[2]]
    if major[np.argmax(np.abs(major))] < 0:
        major = -major
    minor = vectors[:, order[1]].copy()
    minor[2] = 0.0
    if np.linalg.norm(minor) / (np.linalg.norm(major) + 1e-100) < 1e-6:
        raise ValueError("the soma outline has no minor axis in the xy plane (its points lie on a line)")
    minor /= np.linalg.norm(minor)
    d = q[:, 0] * major[0] + q[:, 1] * major[1] + q[:, 2] * major[2]
    rad = q[:, 0] * minor[0] + q[:, 1] * minor[1] + q[:, 2] * minor[2]
    imax = int(np.argmax(d))
    d, rad = np.roll(d, -imax), np.roll(rad, -imax)
    imin = int(np.argmin(d))
    side1, rad1 = _increasing(d[:imin][::-1], rad[:imin][::-1])
    side2, rad2 = _increasing(d[imin:], rad[imin:])
    both = np.sort(np.concatenate([side1, side2]))
    lo, hi = both[1], both[-2]
    step = (hi - lo) / 20
    t = np.arange(int(np.floor((hi - lo) / step + 1e-9)) + 1) * step + lo
    diam = np.abs(_interpolate(t, side1, rad1) - _interpolate(t, side2, rad2))
    diam[0], diam[-1] = (diam[0] + diam[1]) / 2, (diam[-1] + diam[-2]) / 2
    return np.column_stack([mean + t[:, None] * major, diam])


def contour_stack_centroid(outlines: list[np.ndarray]) -> np.ndarray:
    """One point `(x, y, z, diam)` (µm) per outline of a stack, shape `(len(outlines), 4)`."""
    rows = []
    for xyz in outlines:
        pts, centre = _resample(xyz)
        perimeter = np.linalg.norm(np.roll(xyz, -1, axis=0) - xyz, axis=1).sum()
        rows.append([*centre, np.linalg.norm(pts - centre, axis=1).mean() + perimeter / (2 * np.pi)])
    return np.array(rows)


def contour_centre(xyz: np.ndarray) -> np.ndarray:
    """The centre (µm) of an outline: the mean of its 101 resampled points."""
    return _resample(xyz)[1]


def _resample(xyz: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """101 points equally spaced in xy arc length along the open outline, and their mean."""
    xyz = np.asarray(xyz, float)
    step = np.diff(np.vstack([xyz[:, :2], xyz[:1, :2]]), axis=0)
    perim = np.concatenate([[0.0], np.cumsum(np.sqrt((step**2).sum(axis=1)))[:-1]])
    s = np.arange(101) * (perim[-1] / 100)
    pts = np.column_stack([_interpolate(s, perim, xyz[:, k]) for k in range(3)])
    return pts, np.array([_sum(pts[:, k]) / len(pts) for k in range(3)])


def _sum(x: np.ndarray) -> float:
    """Left-to-right sum (NEURON's `Vector.sum`): outlines whose shape ties points make the result depend on it."""
    return float(np.cumsum(x)[-1])


def _increasing(d: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop points whose `d` does not exceed the previous one's, scanning from the far end."""
    ds, rs = list(d), list(r)
    j = len(ds) - 1
    while j > 0:
        if ds[j] <= ds[j - 1]:
            del ds[j], rs[j]
            if j != len(ds):
                j += 1
        j -= 1
    return np.array(ds), np.array(rs)


def _interpolate(x_new: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """NEURON's ``Vector.interpolate``: linear, constant beyond the ends, steps where `x` does not increase skipped."""
    out = np.empty(len(x_new))
    i = 0
    while i < len(x_new) and x_new[i] <= x[0]:
        out[i] = y[0]
        i += 1
    for k in range(1, len(x)):
        if i >= len(x_new):
            break
        if x[k] <= x[k - 1]:
            continue
        while i < len(x_new) and x_new[i] <= x[k]:
            theta = (x_new[i] - x[k - 1]) / (x[k] - x[k - 1])
            out[i] = (1 - theta) * y[k - 1] + theta * y[k]
            i += 1
    out[i:] = y[-1]
    return out
