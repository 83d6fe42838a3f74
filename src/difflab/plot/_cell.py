r"""Multi-compartment cells: the morphology coloured by a quantity, and a back-propagating AP against distance.

A cell is drawn from the 3-D points its morphology keeps (the readers of SWC and Neurolucida files keep them as
read, in µm), projected onto a plane: every compartment is the piece of its section's polyline between
$x = i/n_\text{seg}$ and $(i + 1)/n_\text{seg}$ of the section's length, so a quantity with one value per
compartment (the state `V` at one time, a density from `Cell.per_section`) colours exactly the stretch of cable
it belongs to.

The cell is read through its `morphology` (any object with one, such as [`Cell`][difflab.neuron.Cell]) or given
as a [`Morphology`][difflab.neuron.Morphology] itself: plots do not import the neuron package, which builds its
validation report with these plots.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..core.internal import Trajectory
from ._matplotlib import axes_for, label, matplotlib_module

_PLANES = {"xy": (0, 1), "xz": (0, 2), "yz": (1, 2)}
#: line width (points) per µm of diameter, and its bounds: the soma stands out, thin dendrites stay visible
_WIDTH_PER_UM, _WIDTH_MIN, _WIDTH_MAX = 0.35, 0.8, 7.0
_REGION_COLOURS = {"soma": "black", "axon": "tab:red", "apic": "tab:blue", "dend": "tab:green"}


def morphology(
    cell: Any,
    values: ArrayLike | Trajectory | None = None,
    *,
    time: float | None = None,
    name: str = "V",
    units: str = "mV",
    clim: tuple[float, float] | None = None,
    cmap: str = "viridis",
    plane: str = "xy",
    colorbar: bool = True,
    ax: Any = None,
) -> Any:
    """Draw a cell's sections in 2-D, coloured by a quantity per compartment (or by region).

    Line widths follow the diameter (0.35 pt per µm, within 0.8–7 pt); the axes are equal in µm.

    Args:
        cell: a [`Cell`][difflab.neuron.Cell] (or any model with a `morphology`) or a
            [`Morphology`][difflab.neuron.Morphology].
        values: one value per compartment, shape `(n_segments,)`, in the morphology's compartment order; or a
            [`Trajectory`][difflab.Trajectory] of the cell, drawn at the saved time nearest `time`; `None`
            colours the sections by region, with a legend.
        time: with a trajectory, the time to draw (in the trajectory's time units, ms).
        name: the quantity's name, for the colour bar; with a trajectory, the variable drawn (default `"V"`).
        units: the quantity's units, for the colour bar; with a trajectory its own units are used.
        clim: `(low, high)` of the colour scale; default the range of the values.
        cmap: a matplotlib colour map name.
        plane: the coordinates drawn: `"xy"`, `"xz"` or `"yz"`.
        colorbar: add a colour bar beside `ax`; `False` for panels that share one
            (`fig.colorbar(ax.collections[0], ax=axes)`).
        ax: a matplotlib `Axes` to draw into; default a new figure.

    Returns:
        The matplotlib `Axes`; its first collection holds one line per compartment, its figure the colour bar.

    Raises:
        TypeError: `cell` has no morphology, or `values` is neither an array nor a Trajectory.
        ValueError: `values` is not one finite value per compartment, `time` is missing or outside the
            trajectory, `clim` is not increasing, or `plane` is unknown.
    """
    morph = _morphology_of(cell)
    if plane not in _PLANES:
        raise ValueError(f"plane must be one of {', '.join(map(repr, _PLANES))}; got {plane!r}")
    if isinstance(values, Trajectory):
        values, units, time = _at_time(values, name, time, morph.n_segments)
        name = f"{name} at t = {time:g} ms"
    pieces, diameters = compartment_lines(morph, _PLANES[plane])
    ax = axes_for(ax, figsize=(6.0, 6.0))
    collections = matplotlib_module("matplotlib.collections")
    widths = np.clip(_WIDTH_PER_UM * diameters, _WIDTH_MIN, _WIDTH_MAX)
    lines = collections.LineCollection(pieces, linewidths=widths, capstyle="round")
    if values is None:
        _colour_by_region(ax, lines, morph)
    else:
        data = _per_compartment(values, morph.n_segments)
        lines.set_array(data)
        lines.set_cmap(cmap)
        lines.set_clim(*_colour_limits(data, clim))
        lines.set_label(label(name, {"units": units}))
        if colorbar:
            ax.figure.colorbar(lines, ax=ax, shrink=0.8, label=lines.get_label())
    ax.add_collection(lines)
    ax.autoscale_view()
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel(f"{plane[0]} (µm)")
    ax.set_ylabel(f"{plane[1]} (µm)")
    return ax


def bap(
    cell: Any,
    traj: Trajectory,
    *,
    onset: float,
    variable: str = "V",
    reference: tuple[ArrayLike, ArrayLike] | None = None,
    ax: Any = None,
) -> Any:
    r"""Plot a back-propagating action potential's amplitude against path distance from the soma.

    The amplitude of compartment $i$ is its peak after the stimulus minus its potential just before it,
    $\max_{t \ge t_0} V_i(t) - V_i(t_b)$ with $t_b$ the last saved time before the onset $t_0$ (mV), as
    BluePyOpt's bAP features measure it; the distance is the path distance from the root section's centre
    ([`Morphology.path_distances`][difflab.neuron.Morphology.path_distances], NEURON's `distance(soma(0.5), seg)`).
    One marker per compartment, coloured by region.

    Args:
        cell: a [`Cell`][difflab.neuron.Cell] (or any model with a `morphology`) or its
            [`Morphology`][difflab.neuron.Morphology].
        traj: a [`Trajectory`][difflab.Trajectory] of the cell (not a batch) that saved `variable` with one value
            per compartment, with at least one saved time before `onset`.
        onset: the stimulus onset $t_0$ (ms).
        variable: the saved potential (mV).
        reference: `(distances, amplitudes)` of a reference (µm, mV), e.g. NEURON's in every compartment,
            drawn as open black circles.
        ax: a matplotlib `Axes` to draw into; default a new figure.

    Returns:
        The matplotlib `Axes`; one collection per region (offsets: distance, amplitude), then the reference's.

    Raises:
        TypeError: `cell` has no morphology or `traj` is not a Trajectory.
        ValueError: `traj` is a batch, its `variable` is not one value per compartment or holds NaN, no saved
            time lies before `onset` or none at or after it, or `reference` is not two 1-D arrays of one length.
    """
    morph = _morphology_of(cell)
    ts, V, units = _saved(traj, variable, morph.n_segments)
    before, after = np.flatnonzero(ts < onset), ts >= onset
    if before.size == 0 or not after.any():
        raise ValueError(f"onset must lie inside the saved times with one before it; got {onset:g} for saved "
                         f"times {ts[0]:g} to {ts[-1]:g}")  # fmt: skip
    amplitude = _per_compartment(V[after].max(axis=0) - V[before[-1]], morph.n_segments, "the amplitudes")
    distance = morph.path_distances()
    region = np.array([morph.sections[k].region for k in morph.seg_section])
    ax = axes_for(ax)
    for r in morph.regions:
        here = region == r
        ax.scatter(distance[here], amplitude[here], s=9, color=_REGION_COLOURS.get(r), label=r, alpha=0.8)
    if reference is not None:
        ref_d, ref_a = (np.asarray(x, dtype=float) for x in reference)
        if ref_d.ndim != 1 or ref_d.shape != ref_a.shape or not np.isfinite([*ref_d, *ref_a]).all():
            raise ValueError(f"reference must be (distances, amplitudes), finite 1-D arrays of one length; got "
                             f"shapes {ref_d.shape} and {ref_a.shape}")  # fmt: skip
        ax.scatter(ref_d, ref_a, s=16, facecolor="none", edgecolor="black", linewidths=0.6, label="reference")
    ax.set_xlabel("path distance from the soma (µm)")
    ax.set_ylabel(label(f"bAP amplitude ({variable} peak − rest)", {"units": units}))
    ax.grid(alpha=0.3)
    ax.legend(loc="best", frameon=False)
    return ax


def compartment_lines(morph: Any, axes: tuple[int, int] = (0, 1)) -> tuple[list[np.ndarray], np.ndarray]:
    """Each compartment's stretch of its section's polyline (two coordinates, µm) and its mean diameter (µm)."""
    pieces, diameters = [], []
    for sec in morph.sections:
        points, arc = np.asarray(sec.points, dtype=float), sec.arc
        cuts = np.linspace(0.0, arc[-1], sec.nseg + 1)
        for lo, hi in itertools.pairwise(cuts):
            s = np.concatenate([[lo], arc[(arc > lo) & (arc < hi)], [hi]])
            xy = np.stack([np.interp(s, arc, points[:, j]) for j in axes], axis=1)
            pieces.append(xy)
            diameters.append(float(np.mean(np.interp(s, arc, points[:, 3]))))
    return pieces, np.asarray(diameters)


def _morphology_of(cell: Any) -> Any:
    morph = getattr(cell, "morphology", cell)
    if not all(hasattr(morph, a) for a in ("sections", "seg_section", "n_segments", "path_distances")):
        raise TypeError(f"cell must be a difflab.neuron Cell (or a model with a morphology) or a Morphology; "
                        f"got {type(cell).__name__}")  # fmt: skip
    return morph


def _per_compartment(values: Any, n: int, what: str = "values") -> np.ndarray:
    try:
        data = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be an array of numbers or a Trajectory; got {type(values).__name__}") from None
    if data.shape != (n,):
        raise ValueError(f"{what} must hold one value per compartment, shape ({n},); got shape {data.shape}")
    if not np.isfinite(data).all():
        bad = np.flatnonzero(~np.isfinite(data))
        raise ValueError(f"{what} must be finite; got NaN or inf at {bad.size} compartments (first {bad[0]})")
    return data


def _colour_limits(data: np.ndarray, clim: tuple[float, float] | None) -> tuple[float, float]:
    if clim is None:
        return float(data.min()), float(data.max())
    low, high = map(float, clim)
    if not low < high:
        raise ValueError(f"clim must be (low, high) with low < high; got {clim}")
    return low, high


def _colour_by_region(ax: Any, lines: Any, morph: Any) -> None:
    cycle = iter(["tab:purple", "tab:orange", "tab:brown", "tab:pink", "tab:olive", "tab:cyan", "tab:gray"])
    colours = {r: _REGION_COLOURS.get(r) or next(cycle, "tab:gray") for r in morph.regions}
    lines.set_color([colours[morph.sections[k].region] for k in morph.seg_section])
    lines2d = matplotlib_module("matplotlib.lines")
    handles = [lines2d.Line2D([], [], color=c, lw=2.0, label=r) for r, c in colours.items()]
    ax.legend(handles=handles, loc="best", frameon=False)


def _saved(traj: Any, variable: str, n: int) -> tuple[np.ndarray, np.ndarray, str]:
    """`(ts, values (time, n), units)` of one saved variable of an unbatched trajectory."""
    if not isinstance(traj, Trajectory):
        raise TypeError(f"traj must be a difflab Trajectory of the cell; got {type(traj).__name__}")
    if traj.is_batched:
        raise ValueError("traj must be one cell's trajectory, not a batch; pick a member first (traj.ys[...][k])")
    values = np.asarray(traj[variable], dtype=float)
    if values.ndim != 2 or values.shape[1] != n:
        raise ValueError(f"traj[{variable!r}] must be (time, {n} compartments); got shape {values.shape}")
    units = next((v.units for v in traj.variables if v.name == variable), "")
    return np.asarray(traj.ts, dtype=float), values, units


def _at_time(traj: Trajectory, variable: str, time: float | None, n: int) -> tuple[np.ndarray, str, float]:
    ts, values, units = _saved(traj, variable, n)
    if time is None or not ts[0] <= time <= ts[-1]:
        raise ValueError(f"time must be a time inside the trajectory, {ts[0]:g} to {ts[-1]:g} ms, when values is "
                         f"a Trajectory; got {time}")  # fmt: skip
    k = int(np.argmin(np.abs(ts - time)))
    return values[k], units, float(ts[k])
