"""What every sensitivity method checks and shares: bounds, the model's parameter names, finite outputs, bootstrap.

A study is refused before any point runs when a bound is empty or reversed or names no parameter of the model;
after the sweep, an output that is not finite at some point is refused by point (its index and parameter values),
because one NaN in a mean would silently turn an index into NaN, and dropping the point would bias the estimator
(the Saltelli and Morris designs are structured: a point belongs to a block or a trajectory).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
import xarray as xr

from ..core.internal import AbstractModel

#: How many non-finite points an error message lists before it counts the rest.
_SHOWN = 5


def check_bounds(bounds: Mapping[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """`bounds` as `{name: (low, high)}` of finite floats with low < high, or a ValueError naming the parameter."""
    if not isinstance(bounds, Mapping) or not bounds:
        raise ValueError(f"bounds must map at least one parameter name to (low, high); got {bounds!r}")
    out = {}
    for name, pair in bounds.items():
        try:
            low, high = (float(x) for x in pair)
        except (TypeError, ValueError):
            raise ValueError(f"bounds[{name!r}] must be a pair (low, high) of numbers; got {pair!r}") from None
        if not (math.isfinite(low) and math.isfinite(high)) or not low < high:
            raise ValueError(f"bounds[{name!r}] needs finite low < high; got ({low}, {high})")
        out[str(name)] = (low, high)
    return out


def check_names(model: AbstractModel, bounds: Mapping[str, tuple[float, float]]) -> None:
    """Refuse a bound on a name that is not a parameter (or alias) of `model`, before anything runs."""
    for name in bounds:
        try:
            model.resolve(name)
        except KeyError as err:
            raise KeyError(f"bounds: {err.args[0]}") from None


def check_count(argument: str, value: int, minimum: int, why: str) -> int:
    """A whole number >= `minimum`, or a ValueError naming `argument` and why the estimator needs that many."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{argument} must be a whole number >= {minimum} ({why}); got {value!r}")
    return int(value)


def check_confidence(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1 (e.g. 0.95); got {confidence!r}")
    return float(confidence)


def outputs(ds: xr.Dataset, names: list[str] | None = None) -> dict[str, np.ndarray]:
    """The observables of a sweep's result as `{output: values along "sample"}`, each finite at every point.

    A scalar observable is one output; an observable with more dimensions gives one output per element,
    named `name[i, j]`. Non-finite values and failed solves are refused naming the points.
    """
    if not isinstance(ds, xr.Dataset) or "sample" not in ds.dims:
        raise TypeError(f"result must be the Dataset of a sweep over a sampled design (dim 'sample'); got {ds!r}")
    if names is None:
        names = [n.strip() for n in str(ds.attrs.get("observables", "")).split(",") if n.strip()]
        names = names or [str(v) for v in ds.data_vars if ds[v].dims[:1] == ("sample",)]
    if "solver_ok" in ds:
        refuse_nonfinite(ds, "solver_ok", np.asarray(ds["solver_ok"].values) == 1, "the solver failed")
    out = {}
    for name in names:
        if name not in ds:
            raise KeyError(f"observable {name!r} is not in the result; it has {', '.join(map(str, ds.data_vars))}")
        da = ds[name].transpose("sample", ...)
        values = np.asarray(da.values, dtype=float).reshape(da.sizes["sample"], -1)
        refuse_nonfinite(ds, name, np.isfinite(values).all(axis=1), "it is not finite")
        for j in range(values.shape[1]):
            out[name if da.ndim == 1 else f"{name}{list(np.unravel_index(j, da.shape[1:]))}"] = values[:, j]
    return out


def refuse_nonfinite(ds: xr.Dataset, name: str, good: np.ndarray, what: str) -> None:
    """A ValueError naming the points (index and parameter values) where `good` is False, if any."""
    bad = np.flatnonzero(~good)
    if bad.size == 0:
        return
    params = [str(c) for c in ds.coords if ds[c].dims == ("sample",) and c != "sample"]
    shown = "; ".join(
        f"point {i} (" + ", ".join(f"{p}={float(ds[p].values[i]):.6g}" for p in params) + ")" for i in bad[:_SHOWN]
    )
    more = f" and {bad.size - _SHOWN} more" if bad.size > _SHOWN else ""
    raise ValueError(
        f"observable {name!r}: {what} at {bad.size} of {good.size} points: {shown}{more}. Sensitivity estimators "
        "average over every point of a structured design, so none may be dropped: narrow the bounds, or make the "
        "observable finite there"
    )


def bootstrap(
    estimate: Callable[[np.ndarray], np.ndarray], n: int, resamples: int, confidence: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of `estimate(rows)` over resamples of `n` rows drawn with replacement.

    `estimate` takes an index array of shape `(batch, n)` and returns estimates of shape `(batch, ...)`.
    Returns `(low, high)`, the `(1 - confidence) / 2` and `(1 + confidence) / 2` quantiles (Efron & Tibshirani,
    *An Introduction to the Bootstrap*, 1993, ch. 13).
    """
    rng = np.random.default_rng(seed)
    draws = []
    for start in range(0, resamples, 100):  # bounded memory: 100 resamples of every row at a time
        rows = rng.integers(0, n, size=(min(100, resamples - start), n))
        draws.append(estimate(rows))
    stacked = np.concatenate(draws)
    tail = (1.0 - confidence) / 2.0
    return np.quantile(stacked, tail, axis=0), np.quantile(stacked, 1.0 - tail, axis=0)


def indices_dataset(
    values: Mapping[str, np.ndarray], outputs: list[str], parameters: list[str], attrs: Mapping[str, str]
) -> xr.Dataset:
    """Indices as data variables over (`output`, `parameter`); `<index>_ci` variables get a `bound` dimension."""
    coords = {"output": outputs, "parameter": parameters, "bound": ["low", "high"]}
    data = {}
    for name, array in values.items():
        dims = ("output", "parameter", "bound")[: np.ndim(array)]
        data[name] = xr.Variable(dims, np.asarray(array))
    return xr.Dataset(data, coords=coords, attrs=dict(attrs))
