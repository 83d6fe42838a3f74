"""Posterior draws as a corner plot: each parameter's marginal on the diagonal, every pair below it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from ._matplotlib import check_variable, label, matplotlib_module, new_figure


def posterior(
    ds: xr.Dataset,
    params: Sequence[str] | None = None,
    *,
    truth: Mapping[str, float] | None = None,
    bins: int = 30,
    fig: Any = None,
) -> Any:
    """Corner plot of the draws of [`difflab.posterior`][]: marginals on the diagonal, pairs below it.

    The diagonal holds a histogram of each parameter's draws over all chains, normalised to a probability density
    (its integral is 1), titled with the parameter's R-hat and bulk ESS; below it, every pair of parameters as a
    scatter of the draws. Divergent transitions, when there are any, are drawn in red on the pair plots. Axes are
    labelled with each parameter's name and units.

    Args:
        ds: the Dataset of `difflab.posterior` (draws on dims `chain`, `draw`; `rhat`, `ess_bulk` on `parameter`).
        params: the parameters to draw, in order (default: every parameter of `ds`, from its `parameter`
            coordinate); each must hold one number per draw.
        truth: values to mark (a line on the marginals, a cross on the pairs), e.g. those a synthetic recording was
            made with, in the parameters' units.
        bins: histogram bins of the marginals (>= 1).
        fig: a matplotlib `Figure` to draw into (it must be empty); default a new one.

    Returns:
        The matplotlib `Figure`.

    Raises:
        TypeError: `ds` is not a posterior Dataset, or `fig` not a `Figure`.
        KeyError: a parameter of `params` or `truth` is not in `ds`.
        ValueError: a parameter holds more than one number per draw, `bins` < 1, or a truth value is not finite.
    """
    if not isinstance(ds, xr.Dataset) or not {"chain", "draw", "parameter"} <= set(ds.dims):
        raise TypeError(f"ds must be the Dataset of difflab.posterior (dims chain, draw, parameter); got {ds!r}")
    names = [str(p) for p in ds["parameter"].values] if params is None else [str(p) for p in params]
    if not names:
        raise ValueError("params must name at least one parameter of the posterior")
    draws = {name: _draws(ds, name) for name in names}
    marks = _truth(truth, names)
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 1:
        raise ValueError(f"bins must be a whole number >= 1; got {bins!r}")
    fig = _figure(fig, len(names))
    divergent = np.asarray(ds["divergent"].values, dtype=bool).ravel() if "divergent" in ds else None
    n = len(names)
    grid = fig.subplots(n, n, squeeze=False)
    for i, row in enumerate(names):
        for j, column in enumerate(names):
            ax = grid[i, j]
            if j > i:
                ax.set_visible(False)
                continue
            if i == j:
                _marginal(ax, ds, row, draws[row], bins, marks.get(row))
            else:
                _pair(ax, draws[column], draws[row], divergent, marks.get(column), marks.get(row))
            if i == n - 1:
                ax.set_xlabel(label(column, ds[column].attrs))
            if j == 0 and i > 0:
                ax.set_ylabel(label(row, ds[row].attrs))
    return fig


def _draws(ds: xr.Dataset, name: str) -> np.ndarray:
    """The draws of one scalar parameter over all chains, flattened."""
    da = check_variable(ds, name, "params")
    if set(da.dims) != {"chain", "draw"}:
        raise ValueError(f"params: {name!r} has dims {da.dims}; only parameters with one number per draw "
                         "(dims chain, draw) can be drawn")  # fmt: skip
    return np.asarray(da.transpose("chain", "draw").values, dtype=float).ravel()


def _truth(truth: Mapping[str, float] | None, names: list[str]) -> dict[str, float]:
    if truth is None:
        return {}
    if not isinstance(truth, Mapping):
        raise TypeError(f"truth must map parameter names to values; got {type(truth).__name__}")
    out = {}
    for name, value in truth.items():
        if name not in names:
            raise KeyError(f"truth {name!r} is not a parameter drawn here; drawn: {', '.join(names)}")
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"truth[{name!r}] must be finite; got {value}")
        out[name] = value
    return out


def _figure(fig: Any, n: int) -> Any:
    if fig is None:
        return new_figure((2.4 * n + 1.0, 2.4 * n + 0.6))
    if not isinstance(fig, matplotlib_module("matplotlib.figure").Figure):
        raise TypeError(f"fig must be a matplotlib Figure (or None for a new one); got {type(fig).__name__}")
    return fig


def _marginal(ax: Any, ds: xr.Dataset, name: str, x: np.ndarray, bins: int, mark: float | None) -> None:
    ax.hist(x, bins=bins, density=True, color="C0", alpha=0.75)
    ax.set_yticks([])
    title = name
    if "rhat" in ds and "ess_bulk" in ds:
        rhat, ess = float(ds["rhat"].sel(parameter=name)), float(ds["ess_bulk"].sel(parameter=name))
        title = f"{name}: R-hat {rhat:.3f}, ESS {ess:.0f}"
    ax.set_title(title, fontsize=8)
    if mark is not None:
        ax.axvline(mark, color="k", lw=1.0, ls="--")


def _pair(ax: Any, x: np.ndarray, y: np.ndarray, divergent: Any, mark_x: Any, mark_y: Any) -> None:
    ax.scatter(x, y, s=3, alpha=0.4, color="C0", linewidths=0)
    if divergent is not None and divergent.size == x.size and divergent.any():
        ax.scatter(x[divergent], y[divergent], s=8, color="C3", label="divergent")
    if mark_x is not None and mark_y is not None:
        ax.plot([mark_x], [mark_y], "k+", ms=10, mew=1.5)
