"""Calibrating the actuator servo from step-response measurements.

One recording drives a single actuator with a two-level command: a small step (5 mm at t = 5 s, linear regime,
reveals τ) followed by a large step (to 0.1 m at t = 40 s, saturated regime, reveals v_max). The extension is
sampled every second for 200 s. `synthetic_step_response` makes such a recording from known parameters with
Gaussian measurement noise; `fit_servo` recovers (τ, v_max) with `difflab.calibrate` (least squares,
Levenberg-Marquardt, bounded parameters) and reports Gauss-Newton standard errors.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from ..calibration.internal import calibrate
from ..core.internal import SolveOptions, Step, Sum, simulate
from ._checks import check_positive
from ._servo import ActuatorServo

#: The step command: (small amplitude m, start s, switch time s, large level m).
STEP_COMMAND = (0.005, 5.0, 40.0, 0.1)


def step_command() -> Sum:
    """Command u(t): 5 mm from 5 s to 40 s, then 0.1 m."""
    small, start, switch, large = STEP_COMMAND
    return Sum(Step(small, start, switch), Step(large, switch))


def synthetic_step_response(
    time_constant: float = 2.0,
    max_speed: float = 1e-3,
    noise: float = 2e-4,
    *,
    duration: float = 200.0,
    dt: float = 1.0,
    seed: int = 0,
) -> xr.Dataset:
    """A simulated step-response recording with N(0, noise²) measurement noise (m); times in s."""
    check_positive(duration, "duration", "s")
    check_positive(dt, "dt", "s", what="sampling interval")
    if not (np.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise (standard deviation, m) must be a finite number >= 0; got {noise}")
    ts = jnp.arange(0.0, duration + 0.5 * dt, dt)
    model = ActuatorServo(0.0, time_constant, max_speed)
    traj = simulate(model, step_command(), ts, max_steps=4096)
    e = np.asarray(traj.ys["extension"])
    e = e + noise * np.asarray(jax.random.normal(jax.random.key(seed), e.shape))
    return xr.Dataset(
        {"extension": ("time", e, {"units": "m", "long_name": "measured actuator extension"})},
        coords={"time": ("time", np.asarray(ts), {"units": "s"})},
        attrs={"true_time_constant_s": time_constant, "true_max_speed_m_per_s": max_speed, "noise_m": noise},
    )


def fit_servo(data: xr.Dataset, *, time_constant0: float = 5.0, max_speed0: float = 3e-3, steps: int = 60):
    """Fit (τ, v_max) to a step-response recording; returns a `difflab.Calibration`.

    The starts must lie inside the fit's bounds, τ in [0.1, 30] s and v_max in [1e-4, 1e-2] m/s.
    """
    for name, value, (low, high), units in (
        ("time_constant0", time_constant0, (0.1, 30.0), "s"),
        ("max_speed0", max_speed0, (1e-4, 1e-2), "m/s"),
    ):
        if not low <= value <= high:  # NaN fails too
            raise ValueError(f"{name} must be a start inside the bounds [{low:g}, {high:g}] {units}; got {value}")

    model = ActuatorServo(0.0, time_constant0, max_speed0)
    return calibrate(
        model,
        step_command(),
        data,
        params={"time_constant": (0.1, 30.0), "max_speed": (1e-4, 1e-2)},
        optimizer="lm",
        steps=steps,
        options=SolveOptions(max_steps=4096),
    )
