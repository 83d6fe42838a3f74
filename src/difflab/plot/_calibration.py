"""A calibration at a glance: data and fitted trace, residuals, and the loss and parameters over the steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import equinox as eqx
import jax
import numpy as np

from ..calibration.internal import Calibration, as_fit_data
from ..core.internal import SolveOptions, simulate
from ._matplotlib import label, lines_over, new_figure


def calibration(
    result: Calibration,
    protocol: Any,
    data: Any,
    *,
    variable: str | None = None,
    recording: int = 0,
    observe: Callable | None = None,
    options: SolveOptions | None = None,
    fig: Any = None,
) -> Any:
    """Plot a fit: the data with the fitted model's trace, the residuals, and the history of the steps.

    The fitted model (`result.model`) is simulated under `protocol` at the data's times; the data are read as
    [`difflab.calibrate`][] reads them (units converted to the model's, NaN samples left out). Panels, top to
    bottom: data and fitted trace; residual `data − fit`; the loss of every start over the optimiser steps (log
    scale); each fitted parameter of every start over the steps, in its units. The history panels are left out
    when the fit recorded no step (`strategy="linear"` with `steps=0`).

    Args:
        result: the [`Calibration`][difflab.Calibration] that `calibrate` returned.
        protocol: the protocol the fit used (with several recordings, the list of them).
        data: the data the fit used (Dataset, DataArray or dict with `"time"`).
        variable: which data variable to draw (default: the first one the model produces).
        recording: which recording to draw, when the fit had several (an index).
        observe: the `observe` function the fit used, if any.
        options: the [`SolveOptions`][difflab.SolveOptions] the fit used (default: `simulate`'s).
        fig: a matplotlib `Figure` (or sub-figure) to draw into; default a new one.

    Returns:
        The matplotlib `Figure`.

    Raises:
        TypeError: `result` is not a `Calibration`.
        KeyError: `variable` is not a variable of the data that the model produces.
        IndexError: `recording` is not one of the fit's recordings.
    """
    if not isinstance(result, Calibration):
        raise TypeError(f"result must be the Calibration that difflab.calibrate returns; got {type(result).__name__}")
    model, rec_dim = result.model, _recording_dim(result)
    available = [s.name for s in model.states] if observe is None else None
    units = {} if observe is not None else {s.name: s.units for s in model.states}
    fit = as_fit_data(data, available or list(_names(data)), None, units, model.time_units)
    name = next(iter(fit.values)) if variable is None else variable
    if name not in fit.values:
        raise KeyError(f"variable {name!r} is not a fitted variable of the data; these are: {', '.join(fit.values)}")
    n_rec = fit.n_recordings
    if not -n_rec <= recording < n_rec:
        raise IndexError(f"recording must index one of the fit's {n_rec} recording(s); got {recording}")
    history = result.history
    # one protocol per recording, for independent fits and joint ones (`Comparison(joint=True)`: one model)
    protocol = protocol[recording] if isinstance(protocol, list | tuple) else protocol
    if rec_dim is not None:
        model = jax.tree.map(lambda x: x[recording] if eqx.is_array(x) else x, model)
        history = history.isel({rec_dim: recording})
    traj = simulate(model, protocol, fit.ts, options=options, observe=observe)
    fitted = np.asarray(traj.ys[name], dtype=float).reshape(len(fit.ts), -1)
    measured = np.where(fit.mask[name][recording], fit.values[name][recording], np.nan).reshape(len(fit.ts), -1)
    steps = history.sizes.get("step", 0)
    params = [str(n) for n in result.estimates.data_vars if not str(n).endswith("_stderr")] if steps else []
    n_panels = 2 + (1 + len(params) if steps else 0)
    fig = new_figure((8.0, 2.2 * n_panels + 0.6)) if fig is None else fig
    axes = fig.subplots(n_panels, 1, squeeze=False)[:, 0]
    _trace_panels(axes[0], axes[1], fit.ts, measured, fitted, name, fit.units.get(name, ""))
    axes[1].set_xlabel(label("time", {"units": model.time_units}))
    if steps:
        _history_panels(axes[2:], history, params, result.estimates)
    return fig


def _trace_panels(top, bottom, ts, measured, fitted, name, units) -> None:
    top.plot(ts, measured, ".", ms=3, color="black", label="data")
    top.plot(ts, fitted, color="tab:blue", lw=1.2, label="fit")
    top.set_ylabel(label(name, {"units": units}))
    top.legend(handles=top.lines[:: measured.shape[1]][:2], loc="best", frameon=False)
    top.grid(alpha=0.3)
    top.sharex(bottom)
    bottom.plot(ts, measured - fitted, color="tab:red", lw=1.0)
    bottom.axhline(0.0, color="grey", lw=0.6)
    bottom.set_ylabel(label(f"{name}: data − fit", {"units": units}))
    bottom.grid(alpha=0.3)


def _history_panels(axes, history, params, estimates) -> None:
    step = history["step"].values
    axes[0].plot(step, lines_over(history["loss"], "step"), lw=1.0)
    axes[0].set_yscale("log")
    axes[0].set_ylabel(label("loss", history["loss"].attrs) if history["loss"].attrs.get("units") else "loss")
    for ax, name in zip(axes[1:], params):
        ax.plot(step, lines_over(history[name], "step"), lw=1.0)
        ax.set_ylabel(label(name, estimates[name].attrs))
    for ax in axes:
        ax.grid(alpha=0.3)
    for ax in axes[1:]:
        ax.sharex(axes[0])
    axes[-1].set_xlabel("optimiser step")


def _recording_dim(result: Calibration) -> str | None:
    dims = [d for d in result.losses.dims if d != "start"]
    return str(dims[0]) if dims else None


def _names(data) -> list[str]:
    if isinstance(data, dict):
        return [k for k in data if k != "time"]
    return [str(n) for n in getattr(data, "data_vars", [getattr(data, "name", "")])]
