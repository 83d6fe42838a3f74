"""A parameter study over its design: lines against one parameter, or a heat map over a 2-D grid."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from ._matplotlib import axes_for, check_variable, label, lines_over

_SCATTERED = "sample"  # the dimension of a sampled design (RandomDesign, LatinHypercube, Sobol)


def sweep(ds: xr.Dataset, x: str, y: str | None = None, variable: str | None = None, *, ax: Any = None) -> Any:
    """Plot an observable of [`difflab.sweep`][]'s result over the design's parameters.

    With `x` alone: the observable against parameter `x`, one line per value of any other grid dimension (a
    sampled design gives one marker per sample). With `x` and `y`: a heat map of the observable over a 2-D
    [`Grid`][difflab.Grid] of those two parameters, with a colour bar. Axes and colour bar carry the parameters'
    and the observable's units (the `units` attributes the sweep writes).

    Args:
        ds: the Dataset `difflab.sweep` returned (or read back from its netCDF).
        x: the parameter on the horizontal axis.
        y: the parameter on the vertical axis of a heat map (grids only).
        variable: the observable to draw (default: the sweep's only observable).
        ax: a matplotlib `Axes` to draw into; default a new figure.

    Returns:
        The matplotlib `Axes`.

    Raises:
        TypeError: `ds` is not a Dataset.
        KeyError: `x`, `y` or `variable` is not a parameter / observable of `ds`.
        ValueError: a heat map of a sampled design (its points are scattered, not on a grid), or a heat map of an
            observable with dimensions other than `x` and `y`.
    """
    if not isinstance(ds, xr.Dataset):
        raise TypeError(f"ds must be the xarray Dataset that difflab.sweep returns; got {type(ds).__name__}")
    da = check_variable(ds, _variable(ds, variable))
    for argument, name in (("x", x), ("y", y)):
        if name is not None and name not in ds.coords:
            params = [str(c) for c in ds.coords if c != _SCATTERED]
            raise KeyError(f"{argument} {name!r} is not a parameter of the sweep; its parameters: {', '.join(params)}")
    ax = axes_for(ax, (7.0, 4.6) if y is not None else (7.0, 4.0))
    if y is None:
        _lines(ax, ds, da, x)
    else:
        _heat_map(ax, ds, da, x, y)
    ax.set_xlabel(label(x, ds[x].attrs))
    return ax


def _variable(ds: xr.Dataset, variable: str | None) -> str:
    if variable is not None:
        return variable
    observables = [n.strip() for n in str(ds.attrs.get("observables", "")).split(",") if n.strip()]
    if not observables:  # a Dataset made by hand: its one data variable, if it has only one
        observables = [str(n) for n in ds.data_vars]
    if len(observables) != 1:
        known = ", ".join(observables)
        raise ValueError(f"variable: name the observable to plot; this sweep has {known}")
    return observables[0]


def _lines(ax, ds, da, x) -> None:
    if _SCATTERED in da.dims:  # points in no order along x: markers, sorted so that a line would read well
        order = np.argsort(ds[x].values)
        values = lines_over(da, _SCATTERED)[order]
        ax.plot(ds[x].values[order], values, ".", ms=4)
    else:
        others = [d for d in da.dims if d != x]
        values = lines_over(da, x)
        lines = ax.plot(ds[x].values, values, "-o", ms=3, lw=1.2)
        if len(others) == 1 and len(lines) <= 10:
            other = others[0]
            units = ds[other].attrs.get("units", "") if other in ds.coords else ""
            for line, value in zip(lines, ds[other].values):
                line.set_label(f"{other} = {value:g} {units}".rstrip())
            ax.legend(loc="best", frameon=False)
    ax.set_ylabel(label(str(da.name), da.attrs))
    ax.grid(alpha=0.3)


def _heat_map(ax, ds, da, x, y) -> None:
    if _SCATTERED in da.dims:
        raise ValueError(
            f"y: a heat map needs a Grid design; this sweep's design ({ds.attrs.get('design', 'sampled')}) is "
            f"scattered along {_SCATTERED!r}: plot one parameter with plot.sweep(ds, x={x!r}) instead"
        )
    if set(da.dims) != {x, y}:
        raise ValueError(f"a heat map needs {da.name!r} over exactly ({x!r}, {y!r}); its dimensions are {da.dims}: "
                         "select the others first, e.g. ds.isel(...) or ds.sel(...)")  # fmt: skip
    values = np.asarray(da.transpose(y, x).values, dtype=float)
    mesh = ax.pcolormesh(ds[x].values, ds[y].values, values, shading="nearest", cmap="viridis")
    ax.figure.colorbar(mesh, ax=ax, label=label(str(da.name), da.attrs))
    ax.set_ylabel(label(y, ds[y].attrs))
