"""Sensitivity indices as grouped bars with their confidence intervals as error bars."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from ._matplotlib import axes_for, check_variable

#: The indices drawn by default for each method's Dataset, in order (the first that the Dataset holds).
_DEFAULTS = (("first_order", "total"), ("mu_star",), ("total_bound",), ("nu",))


def sensitivity(ds: xr.Dataset, output: str | None = None, indices: Any = None, *, ax: Any = None) -> Any:
    """Bar chart of the sensitivity indices of one output, one group of bars per parameter, CIs as error bars.

    Draws what `difflab.sensitivity` returns: by default the first-order and total Sobol' indices
    (`sobol_indices`), `mu_star` (`morris`) or `total_bound` (`dgsm`). An index `name` with a `name_ci` variable
    (dim `bound`: low, high) gets that interval as its error bar.

    Args:
        ds: the Dataset of `sobol_indices`, `morris` or `dgsm` (dims `output`, `parameter`).
        output: the output to draw (default: the Dataset's only output).
        indices: a name or list of names of index variables to draw (default: by method, above).
        ax: a matplotlib `Axes` to draw into; default a new figure.

    Returns:
        The matplotlib `Axes`.

    Raises:
        TypeError: `ds` is not a Dataset.
        KeyError: `output` or an index is not in `ds`.
        ValueError: `output` not given where `ds` holds several.
    """
    if not isinstance(ds, xr.Dataset) or "parameter" not in ds.dims or "output" not in ds.dims:
        raise TypeError(f"ds must be the Dataset of a sensitivity method (dims output, parameter); got {ds!r}")
    outputs = [str(o) for o in ds["output"].values]
    if output is None:
        if len(outputs) != 1:
            raise ValueError(f"output: name the output to draw; this Dataset has {', '.join(outputs)}")
        output = outputs[0]
    if output not in outputs:
        raise KeyError(f"output {output!r} is not in the Dataset; its outputs: {', '.join(outputs)}")
    names = _indices(ds, indices)
    params = [str(p) for p in ds["parameter"].values]
    ax = axes_for(ax, (max(4.0, 1.2 * len(params) + 2.0), 3.8))
    width = 0.8 / len(names)
    x = np.arange(len(params))
    for k, name in enumerate(names):
        values = np.asarray(check_variable(ds, name, "indices").sel(output=output).values, dtype=float)
        err = None
        if f"{name}_ci" in ds:
            ci = ds[f"{name}_ci"].sel(output=output)
            low, high = (np.asarray(ci.sel(bound=b).values, dtype=float) for b in ("low", "high"))
            err = np.stack([np.maximum(values - low, 0.0), np.maximum(high - values, 0.0)])
        ax.bar(x + (k - (len(names) - 1) / 2) * width, values, width, yerr=err, capsize=3, label=name.replace("_", " "))
    ax.set_xticks(x, params)
    ax.set_xlabel("parameter")
    ax.set_ylabel("index (1)" if names[0] in ("first_order", "total", "total_bound") else names[0].replace("_", " "))
    ax.set_title(f"{output}: {ds.attrs.get('method', 'sensitivity').split(';')[0]}", fontsize=9)
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.legend(frameon=False)
    ax.grid(axis="y", alpha=0.3)
    return ax


def _indices(ds: xr.Dataset, indices: Any) -> list[str]:
    if indices is not None:
        names = [indices] if isinstance(indices, str) else list(indices)
        for name in names:
            check_variable(ds, name, "indices")
        return names
    for group in _DEFAULTS:
        if all(name in ds for name in group):
            return list(group)
    raise KeyError(f"indices: name the variables to draw; this Dataset has {', '.join(map(str, ds.data_vars))}")
