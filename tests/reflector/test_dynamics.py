"""Actuator servo, sky track, tracking observation and servo calibration."""

import diffrax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab import reflector as rf


def test_sky_track_rotates_about_pole(q2):
    s = np.asarray(rf.sky_track(q2.s, jnp.array([0.0, 3600.0])))
    np.testing.assert_allclose(s[0], q2.s, atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(s, axis=1), 1.0, atol=1e-14)
    phi = np.deg2rad(25.65)
    pole = np.array([0.0, np.cos(phi), np.sin(phi)])
    assert s[1] @ pole == pytest.approx(s[0] @ pole, abs=1e-14)
    a, b = (v - (v @ pole) * pole for v in s)
    angle = np.degrees(np.arccos(a @ b / np.linalg.norm(a) / np.linalg.norm(b)))
    assert angle == pytest.approx(15.0, abs=1e-9)


def test_servo_linear_regime_is_first_order():
    ts = jnp.linspace(0.0, 10.0, 21)
    model = rf.ActuatorServo(jnp.zeros(1), 2.0, 1e-3)
    tight = diffrax.PIDController(rtol=1e-10, atol=1e-15)
    traj = difflab.simulate(model, difflab.Constant(jnp.array([1e-5])), ts, stepsize_controller=tight)
    exact = 1e-5 * (1.0 - np.exp(-np.asarray(ts) / 2.0))
    np.testing.assert_allclose(traj.ys["extension"][:, 0], exact, rtol=1e-4, atol=1e-13)


def test_servo_speed_saturates():
    ts = jnp.linspace(0.0, 100.0, 11)
    model = rf.ActuatorServo(jnp.zeros(1), 2.0, 1e-3)
    traj = difflab.simulate(model, difflab.Constant(jnp.array([0.5])), ts)
    e = np.asarray(traj.ys["extension"][:, 0])
    np.testing.assert_allclose(np.diff(e)[2:], 1e-3 * 10.0, rtol=1e-6)  # 1 mm/s once saturated


def test_tracking_short_observation(geometry):
    ds = rf.simulate_tracking(geometry, duration=120.0, dt_save=60.0, n=4)
    assert ds.sizes["time"] == 3
    assert ds["surface_rms"].attrs["units"] == "m"
    assert float(ds["surface_rms"].max()) < 2e-3  # the servos keep up within millimetres
    assert float(ds["receiving_ratio"].min()) > 0.6
    assert int(ds["edge_violations"].min()) > 0  # the commanded ideal paraboloid itself breaks the edge rule
    np.testing.assert_allclose(ds["beta"].sel(time=0.0), 78.169, atol=1e-9)


@pytest.mark.slow
def test_servo_calibration_recovers_parameters():
    data = rf.synthetic_step_response(2.0, 1e-3, noise=2e-4, seed=3)
    cal = rf.fit_servo(data)
    tau, v = float(cal.best["time_constant"]), float(cal.best["max_speed"])
    tau_se, v_se = float(cal.stderr["time_constant"]), float(cal.stderr["max_speed"])
    assert abs(tau - 2.0) < 3 * tau_se and tau_se < 0.3
    assert abs(v - 1e-3) < 3 * v_se and v_se < 1e-6
