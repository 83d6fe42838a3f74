"""matplotlib, imported when the first figure is drawn, and the helpers every plot shares.

matplotlib is installed by the `plot` extra (`pip install 'difflab[plot]'`). It is imported here, on first use, so
that `import difflab.plot` costs nothing and a missing install is reported with the extra to install. Figures are
made with `matplotlib.figure.Figure` directly, never through pyplot: no GUI backend is chosen and no global figure
state is touched, so plotting works the same in scripts, notebooks, tests and the validation report.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

_INSTALL = "pip install 'difflab[plot]'"


def matplotlib_module(name: str) -> Any:
    """Import `name` (a matplotlib module), or raise an ImportError naming the `plot` extra."""
    try:
        return importlib.import_module(name)
    except ImportError as err:
        raise ImportError(f"difflab.plot needs matplotlib, which is not installed; install it with {_INSTALL}") from err


def new_figure(figsize: tuple[float, float]) -> Any:
    """A `matplotlib.figure.Figure` with constrained layout (no pyplot), `figsize` in inches.

    Raises:
        ImportError: matplotlib is not installed; the message names the `plot` extra.
    """
    return matplotlib_module("matplotlib.figure").Figure(figsize=figsize, layout="constrained")


def axes_for(ax: Any, figsize: tuple[float, float] = (7.0, 4.0), projection: str | None = None) -> Any:
    """`ax` after checking it, or the one axes of a new figure.

    Raises:
        TypeError: `ax` is not a matplotlib `Axes`.
        ValueError: `ax` is not a 3-D axes where `projection="3d"` is needed.
    """
    if ax is None:
        return new_figure(figsize).add_subplot(projection=projection)
    if not isinstance(ax, matplotlib_module("matplotlib.axes").Axes):
        raise TypeError(f"ax must be a matplotlib Axes (or None for a new figure); got {type(ax).__name__}")
    if projection is not None and ax.name != projection:
        raise ValueError(f"ax must be a {projection!r} axes, e.g. fig.add_subplot(projection={projection!r}); "
                         f"got a {ax.name!r} axes")  # fmt: skip
    return ax


def label(name: str, attrs: Mapping[str, Any]) -> str:
    """Axis label `name (units)` from CF attributes; dimensionless (`"1"` or no units) shows as `name (1)`."""
    units = str(attrs.get("units", "") or "1")
    return f"{name} ({units})"


def check_dataset(data: Any, argument: str, expected: str) -> xr.Dataset:
    """`data` as a Dataset: a Dataset itself, or the `to_xarray()` of a difflab result."""
    if isinstance(data, xr.Dataset):
        return data
    to_xarray = getattr(type(data), "to_xarray", None)
    if callable(to_xarray) and not isinstance(data, xr.DataArray):
        ds = data.to_xarray()
        if isinstance(ds, xr.Dataset):
            return ds
    raise TypeError(f"{argument} must be {expected}; got {type(data).__name__}")


def check_variable(ds: xr.Dataset, name: str, argument: str = "variable") -> xr.DataArray:
    """`ds[name]`, or a KeyError naming the argument and the variables there are."""
    if name not in ds.data_vars:
        known = ", ".join(map(str, ds.data_vars)) or "none"
        raise KeyError(f"{argument} {name!r} is not a variable of the data; its variables: {known}")
    return ds[name]


def lines_over(da: xr.DataArray, dim: str) -> np.ndarray:
    """The values of `da` as columns of lines along `dim`: shape `(len(dim), lines)`."""
    rest = [d for d in da.dims if d != dim]
    return np.asarray(da.transpose(dim, *rest).values, dtype=float).reshape(da.sizes[dim], -1)
