"""A trajectory's variables over time, one panel per unit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import xarray as xr

from ..core.internal import Trajectory
from ._matplotlib import axes_for, check_dataset, check_variable, label, lines_over, new_figure

_MAX_LEGEND = 10  # more lines than this (members, compartments) make a legend unreadable


def trajectory(
    traj: Trajectory | xr.Dataset,
    variables: Sequence[str] | None = None,
    *,
    ax: Any = None,
) -> Any:
    """Plot the variables of a simulation over time.

    Variables that share units share a panel (for a Hodgkin–Huxley cell: `V` in mV above the gates `m`, `h`, `n`,
    dimensionless); each panel's y axis is labelled with its variables' names and units, the time axis with the
    time units. A batch (`member` dimension) or a variable with its own axes (compartments) gives one line per
    member or index.

    Args:
        traj: a [`Trajectory`][difflab.Trajectory] (from [`difflab.simulate`][]) or its `to_xarray()` Dataset.
        variables: names of the variables to draw (default: all of them, in the model's order).
        ax: a matplotlib `Axes` to draw into; the variables must then share their units.

    Returns:
        The matplotlib `Figure`.

    Raises:
        TypeError: `traj` is neither a Trajectory nor a Dataset, or `ax` is not an Axes.
        KeyError: a name in `variables` is not a variable of the trajectory.
        ValueError: `ax` is given for variables of different units.
    """
    ds = check_dataset(traj, "traj", "a difflab Trajectory or its to_xarray() Dataset")
    if "time" not in ds.dims:
        raise ValueError(f"traj must have a 'time' dimension; its dimensions are {tuple(ds.dims)}")
    if isinstance(variables, str):
        raise TypeError(f"variables must be a list of names; got the string {variables!r} (write [{variables!r}])")
    names = [str(n) for n in ds.data_vars if "time" in ds[n].dims] if variables is None else list(variables)
    if not names:
        raise ValueError("variables must name at least one variable to plot")
    groups: dict[str, list[xr.DataArray]] = {}
    for name in names:
        da = check_variable(ds, name, "variables entry")
        groups.setdefault(str(da.attrs.get("units", "") or "1"), []).append(da)
    if ax is not None and len(groups) > 1:
        shown = "; ".join(f"{u}: {', '.join(str(d.name) for d in g)}" for u, g in groups.items())
        raise ValueError(f"ax: one axes takes variables of one unit; these have {len(groups)} ({shown}): "
                         "pass variables of one unit, or ax=None for one panel per unit")  # fmt: skip
    if ax is None:
        fig = new_figure((8.0, 2.6 * len(groups) + 0.6))
        panels = list(fig.subplots(len(groups), 1, sharex=True, squeeze=False)[:, 0])
    else:
        panels = [axes_for(ax)]
    time = ds["time"]
    for panel, (units, group) in zip(panels, groups.items()):
        for da in group:
            _draw(panel, time.values, da)
        panel.set_ylabel(label(", ".join(str(d.name) for d in group), {"units": units}))
        panel.grid(alpha=0.3)
        if 1 < len(panel.lines) <= _MAX_LEGEND:
            panel.legend(loc="best", frameon=False)
    panels[-1].set_xlabel(label("time", time.attrs))
    return panels[0].figure


def _draw(ax: Any, t, da: xr.DataArray) -> None:
    values = lines_over(da, "time")
    for k in range(values.shape[1]):
        name = str(da.name) if values.shape[1] == 1 else f"{da.name}[{k}]"
        ax.plot(t, values[:, k], lw=1.2, label=name)
