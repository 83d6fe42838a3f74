"""A tiny exact validation case: first-order relaxation against its closed-form step response.

tau dy/dt = -y + u(t), u a step of amplitude A on [start, stop), y(0) = y0:
y(t) = y0 e^{-t/tau} + A (1 - e^{-(clip(t, start, stop) - start)/tau}) e^{-(max(t, stop) - stop)/tau}.
"""

from __future__ import annotations

import functools

import numpy as np
import xarray as xr
from _systems import Relaxation

import difflab
from difflab import validation as dv

TAU, Y0 = 2.0, 1.0


def exact(t, amplitude, start, stop, tau=TAU, y0=Y0):
    free = y0 * np.exp(-t / tau)
    rise = amplitude * (1 - np.exp(-(np.clip(t, start, stop) - start) / tau))
    return free + rise * np.exp(-(np.maximum(t, stop) - stop) / tau)


def reference_dataset(amplitude=3.0, start=2.0, stop=6.0) -> xr.Dataset:
    t = np.linspace(0.0, 10.0, 201)
    y = exact(t, amplitude, start, stop)
    return xr.Dataset(
        {"y": ("time", y, {"units": "mV", "long_name": "relaxing variable"})},
        coords={"time": ("time", t, {"units": "ms"})},
        attrs={"simulator": "closed form"},
    )


def run_relaxation(case: dv.CaseSpec) -> dv.CaseOutcome:
    ref = case.load_dataset()
    protocol = dv.protocol_from_table(case.get("protocol", dict))
    tau = case.get("tau", float, default=TAU)
    traj = difflab.simulate(Relaxation(tau), protocol, ref["time"].values)
    y, y_ref = np.asarray(traj["y"]), ref["y"].values
    detail = f"final value: model {y[-1]:.6f}, reference {y_ref[-1]:.6f} mV"
    metrics = [
        dv.metric(case, "y_rms_error", dv.rms_error(y, y_ref), units="mV"),
        dv.metric(case, "y_max_abs_error", dv.max_abs_error(y, y_ref), units="mV", detail=detail),
    ]
    # drawn when the report is written (a case runs without matplotlib)
    draw = functools.partial(dv.overlay_figure, ref["time"].values, y, y_ref, xlabel="time (ms)", ylabel="y (mV)")
    return dv.CaseOutcome(metrics, [("y: model over reference, and residual", draw)], dict(traj.provenance))


RELAXATION = dv.Runner(
    run=run_relaxation,
    metrics=("y_rms_error", "y_max_abs_error"),
    required={"protocol": dict},
    optional={"tau": float},
)

CASE_TOML = """\
title = "Relaxation, step response"
kind = "test.relaxation"
model = "relaxation"
dataset_file = "relaxation.nc"
description = "First-order relaxation against its closed-form solution."

[protocol]
type = "step"
amplitude = 3.0
start = 2.0
stop = 6.0

[metrics]
y_rms_error = {{ tolerance = {rms} }}
y_max_abs_error = {{ tolerance = 1e-4 }}
"""


def write_case(folder, name="relaxation", rms=1e-5, text=None):
    """Write the reference netCDF and a case file into ``folder``; returns the case file."""
    nc = folder / "relaxation.nc"
    if not nc.exists():
        reference_dataset().to_netcdf(nc)
    file = folder / f"{name}.toml"
    file.write_text(CASE_TOML.format(rms=rms) if text is None else text)
    return file
