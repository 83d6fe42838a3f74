r"""Profile likelihood of one fitted parameter: intervals that need not be symmetric.

For least-squares fits with Gaussian noise of unknown variance, $-2\log L = n \log(\mathrm{RSS}/n) + c$.
Fixing parameter $\theta_j = v$ and refitting all others gives the profile $\mathrm{RSS}_p(v)$, and

$$\Lambda(v) = n \log \frac{\mathrm{RSS}_p(v)}{\mathrm{RSS}_\text{min}} \le \chi^2_{1, 0.95} = 3.841$$

is the 95 % profile-likelihood interval (Venzon & Moolgavkar, *Appl. Statist.* 37:87, 1988; Raue et
al., *Bioinformatics* 25:1923, 2009). Where the model is nearly linear in the parameter it equals the
±1.96 standard-error interval; where it is not (a skewed or bounded likelihood, a parameter that is
barely identifiable), the two differ, and the profile is the one to trust.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from ._calibrate import calibrate
from ._measured import as_fit_data
from ._run import RunOptions

#: χ² quantile with one degree of freedom at 95 %.
CHI2_1_95 = 3.841458820694124


def profile(
    model,
    protocol: Any,
    data: Any,
    *,
    params: Mapping[str, Any],
    name: str,
    values: Sequence[float],
    **calibrate_kwargs: Any,
) -> xr.Dataset:
    r"""The profile of parameter `name` over `values`: every other parameter of `params` refitted at each.

    Args:
        model: the model, ideally at the best fit (its values start every refit).
        protocol: the input, as for [`difflab.calibrate`][] (one recording).
        data: the measured data, as for [`difflab.calibrate`][] (one recording).
        params: all fitted parameters and their transforms, `name` among them.
        name: the profiled parameter.
        values: where to fix it (its units), e.g. a grid around the estimate.
        **calibrate_kwargs: passed to every refit (`steps`, `options`, `compare`, `run`, ...); the progress bar is
            off unless `run` turns it on.

    Returns:
        Dataset on dim `name`: `loss` (the least-squares loss, e.g. the MSE), `statistic`
        ($\Lambda$), the refitted values of the other parameters, and attrs `interval_lo` /
        `interval_hi` (NaN where the profile does not rise above the threshold inside `values`).
    """
    if name not in params:
        raise ValueError(f"name must be one of the fitted params {sorted(params)}; got {name!r}")
    grid = np.asarray(values, dtype=float)
    if grid.ndim != 1 or grid.size < 3 or not np.all(np.isfinite(grid)) or np.any(np.diff(grid) <= 0):
        raise ValueError(f"values must be at least 3 finite, increasing numbers; got {list(np.ravel(grid))}")
    others = {k: v for k, v in params.items() if k != name}
    if not others:
        raise ValueError("profile needs at least one other fitted parameter to refit; use the loss itself")
    calibrate_kwargs = _quiet(calibrate_kwargs)
    best = calibrate(model, protocol, data, params=params, **calibrate_kwargs)
    if best.covariance is None or best.diagnostics is None:
        raise ValueError("profile needs a least-squares loss (e.g. 'mse')")
    n = _measured(model, data, calibrate_kwargs)
    refit_losses: list[float] = []
    refits: dict[str, list[float]] = {k: [] for k in others}
    start = best.model
    for v in grid:
        fit = calibrate(start.replace(**{name: v}), protocol, data, params=others, **calibrate_kwargs)
        refit_losses.append(float(fit.losses.min()))
        for k in others:
            refits[k].append(float(np.asarray(fit.best[k])))
    losses = np.asarray(refit_losses)
    floor = min(float(best.losses.min()), float(losses.min()))
    stat = n * np.log(losses / floor)
    lo, hi = _crossings(grid, stat, float(np.asarray(best.best[name])))
    out = xr.Dataset(
        {"loss": (name, losses), "statistic": (name, stat, {"long_name": "n log(RSS / RSS_min)"}),
         **{k: (name, np.asarray(v)) for k, v in refits.items()}},
        coords={name: grid},
        attrs={"estimate": float(np.asarray(best.best[name])), "interval_lo": lo, "interval_hi": hi,
               "threshold": CHI2_1_95, "n": n},
    )  # fmt: skip
    return out


def _quiet(kwargs: dict[str, Any]) -> dict[str, Any]:
    """`kwargs` with the progress bar off, unless they turn it on (through `run` or the old `progress` keyword)."""
    if "progress" in kwargs:  # the old spelling: calibrate warns about it
        return kwargs
    run = kwargs.get("run") or RunOptions()
    return {**kwargs, "run": run if not isinstance(run, RunOptions) or run.progress is not None else
            run.replace(progress=False)}  # fmt: skip


def _measured(model, data, kwargs) -> int:
    """Number of measured samples of the fitted variables (as `calibrate` counts them)."""
    compare = kwargs.get("compare")
    variables = kwargs.get("variables", getattr(compare, "variables", None))
    observe = kwargs.get("observe", getattr(compare, "observe", None))
    variables = None if variables is None else list(variables)
    available = list(variables or []) if observe is not None else [s.name for s in model.states]
    fd = as_fit_data(data, available, variables)
    return int(sum(np.sum(m) for m in fd.mask.values()))


def _crossings(grid: np.ndarray, stat: np.ndarray, estimate: float) -> tuple[float, float]:
    """Where the statistic crosses the threshold on each side of the estimate (linear interpolation)."""

    def cross(indices):
        for a, b in itertools.pairwise(indices):
            if stat[a] <= CHI2_1_95 < stat[b]:
                return float(grid[a] + (CHI2_1_95 - stat[a]) * (grid[b] - grid[a]) / (stat[b] - stat[a]))
        return float("nan")

    centre = int(np.argmin(np.abs(grid - estimate)))
    return cross(list(range(centre, -1, -1))), cross(list(range(centre, grid.size)))
