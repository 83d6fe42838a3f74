r"""Fit $(\Omega, \Delta, T_1, T_2)$ of a `RabiQubit` to a measured Rabi trace through a `Readout`.

The fit is `difflab.calibrate` (Levenberg–Marquardt on the mean squared residual of the measured excited fraction)
with the physical bounds $\Omega > 0$, $0 \le \Delta \le \Delta_\text{max}$ (a Rabi trace from $|g\rangle$ does not
see the sign of $\Delta$), $T_1 > 0$ and $T_2 \le 2T_1$ (through $r = T_2/2T_1 \in (0, 1)$). Standard errors are the
Gauss–Newton ones of `calibrate` (independent Gaussian noise of one variance: shot noise
$p(1-p)/\text{shots}$ varies by a factor < 2 over a trace with $p \in [0.1, 0.9]$); the standard error of
$T_2 = 2 r T_1$ follows by linear error propagation with the fitted covariance.
"""

from __future__ import annotations

import diffrax
import numpy as np
import xarray as xr

from ..calibration.internal import Bounded, Calibration, Comparison, GrowingWindows, Positive, RunOptions, calibrate
from ..core.internal import SolveOptions, simulate
from ._rabi import RabiQubit, readout_observer
from ._readout import Readout
from ._solve import check_tolerances


def _options(rtol: float, atol: float) -> SolveOptions:
    check_tolerances(rtol, atol)  # named as the keywords the user passed
    return SolveOptions(stepsize_controller=diffrax.PIDController(rtol=rtol, atol=atol), max_steps=16_384)


def measure_rabi(
    model: RabiQubit, readout: Readout, ts, shots: int, rng: np.random.Generator, *, rtol=1e-8, atol=1e-10
) -> dict[str, np.ndarray]:
    """Synthetic measurement: `{"time": ts (µs), "p_meas": binomial fractions of `shots` readouts}`."""
    traj = simulate(
        model, None, np.asarray(ts, float), observe=readout_observer(Readout()), options=_options(rtol, atol)
    )
    p_excited = np.asarray(traj.ys["p_meas"])
    return {"time": np.asarray(ts, float), "p_meas": readout.sample(p_excited, shots, rng)}


def fit_rabi(
    data,
    initial: RabiQubit,
    readout: Readout,
    *,
    delta_max: float = 2 * np.pi * 5.0,
    steps: int = 40,
    rtol: float = 1e-8,
    atol: float = 1e-10,
    **calibrate_kwargs,
) -> Calibration:
    """Fit `omega`, `delta`, `t1`, `t2_ratio` of `initial` to `data` (`{"time", "p_meas"}` or a Dataset).

    `delta_max` bounds Δ (rad/µs). Extra keywords go to `difflab.calibrate` (e.g. `starts`, `key`). The fit grows
    its window over the trace (`difflab.GrowingWindows()`, first an eighth of it) unless `run=` says otherwise:
    over ten periods a start with Ω 10 % off is a period out of step by the end and stops in a side minimum; over
    the first period and a quarter it is not, and each doubling of the window keeps the phase error small. From
    Ω 30 % below or above the truth the fit then ends at the same estimates as from 5 % off
    (benchmarks/calibration_global.py).
    """
    params = {
        "omega": Positive(),
        "delta": Bounded(0.0, delta_max),
        "t1": Positive(),
        "t2_ratio": Bounded(0.0, 1.0),
    }
    if "strategy" not in calibrate_kwargs and calibrate_kwargs.get("run") is None:  # `strategy=`: the old spelling
        calibrate_kwargs["run"] = RunOptions(strategy=GrowingWindows())
    compare = Comparison(variables=["p_meas"], observe=readout_observer(readout))
    return calibrate(
        initial, None, data, params=params, compare=compare, steps=steps, options=_options(rtol, atol),
        **calibrate_kwargs,
    )  # fmt: skip


def rabi_summary(result: Calibration) -> xr.Dataset:
    """Ω/2π and Δ/2π (MHz), T1 and T2 (µs) with standard errors from a `fit_rabi` result."""
    best, se = result.best, result.stderr
    cov = result.covariance
    t1, r = float(best["t1"]), float(best["t2_ratio"])
    var_t1, var_r = float(se["t1"]) ** 2, float(se["t2_ratio"]) ** 2
    c = float(cov.sel(parameter="t1", parameter_2="t2_ratio")) if cov is not None else 0.0
    # T2 = 2 r T1: grad = (2 r, 2 T1) with respect to (T1, r).
    se_t2 = np.sqrt(max(4 * r**2 * var_t1 + 4 * t1**2 * var_r + 8 * r * t1 * c, 0.0))
    rows = {
        "omega_over_2pi": (float(best["omega"]) / (2 * np.pi), float(se["omega"]) / (2 * np.pi), "MHz"),
        "delta_over_2pi": (float(best["delta"]) / (2 * np.pi), float(se["delta"]) / (2 * np.pi), "MHz"),
        "T1": (t1, float(se["t1"]), "us"),
        "T2": (2 * r * t1, se_t2, "us"),
    }
    data = {}
    for name, (value, error, units) in rows.items():
        data[name] = xr.Variable((), value, {"units": units})
        data[f"{name}_stderr"] = xr.Variable((), error, {"units": units, "long_name": f"standard error of {name}"})
    return xr.Dataset(data)
