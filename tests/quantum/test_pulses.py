"""Pulse protocols and the maximum step that keeps adaptive solvers from stepping over a pulse."""

import diffrax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
import difflab.quantum as q


def test_gaussian_pulse_shape_and_area():
    pulse = q.GaussianPulse(2.0, center=5.0, sigma=1.0)
    assert float(pulse(5.0)) == 2.0
    np.testing.assert_allclose(pulse(6.0), 2.0 * np.exp(-0.5), rtol=1e-15)
    truncated = q.GaussianPulse(2.0, center=5.0, sigma=1.0, width=8.0)
    assert float(truncated(1.0)) == 0.0 and float(truncated(9.5)) == 0.0
    np.testing.assert_allclose(truncated.jump_times(), [1.0, 9.0])
    deriv = q.GaussianPulse(2.0, center=5.0, sigma=1.0, derivative=True)
    np.testing.assert_allclose(deriv(6.0), -2.0 * np.exp(-0.5), rtol=1e-15)


def test_piecewise_constant():
    pwc = q.PiecewiseConstant(jnp.array([0.0, 1.0, 3.0]), jnp.array([2.0, -1.0]))
    np.testing.assert_allclose([pwc(t) for t in (-0.5, 0.0, 0.99, 1.0, 2.9, 3.0)], [0, 2, 2, -1, -1, 0])
    with pytest.raises(ValueError, match="one more edge"):
        q.PiecewiseConstant(jnp.array([0.0, 1.0]), jnp.array([1.0, 2.0]))


def test_feature_time():
    assert q.feature_time(q.GaussianPulse(1.0, 0.0, 0.3)) == pytest.approx(0.3)
    assert q.feature_time(q.PiecewiseConstant(jnp.array([0.0, 0.5, 2.0]), jnp.array([1.0, 1.0]))) == 0.5
    assert q.feature_time(difflab.Constant(1.0)) == np.inf


def test_short_pulse_is_not_skipped():
    # A pi pulse of sigma = 0.05 at t = 70 inside [0, 100]: Omega(t) = A exp(-(t-tc)^2/2s^2) with area
    # A s sqrt(2 pi) = pi. Without the maximum step an adaptive solver on H = 0 would take one giant step.
    sigma = 0.05
    amp = np.pi / (sigma * np.sqrt(2 * np.pi))
    drive = q.Drive(q.GaussianPulse(amp, center=70.0, sigma=sigma), 0.5 * q.sigmax())
    model = q.SchrodingerModel(np.zeros((2, 2)), [drive], psi0=q.basis(2, 1))
    ds = q.sesolve(np.zeros((2, 2)), q.basis(2, 1), np.array([0.0, 100.0]), drives=[drive], exp_ops=[q.sigmaz()])
    ds = ds.to_xarray()
    assert model.default_stepsize_controller().dtmax == pytest.approx(sigma / 2)
    np.testing.assert_allclose(ds.expect.isel(time=-1, observable=0), 1.0, atol=1e-5)


@pytest.mark.parametrize("kind", ["piecewise_constant", "sampled", "constant"])
def test_drive_kinds_flip_the_qubit(kind):
    # H = u(t) σx/2 with pulse area ∫u dt = π takes |g> to |e> (<σz> = +1), for every kind of protocol.
    if kind == "piecewise_constant":
        protocol = q.PiecewiseConstant(jnp.array([1.0, 1.5, 3.0]), jnp.array([0.0, np.pi / 1.5]))
    elif kind == "sampled":
        times = jnp.linspace(0.0, 4.0, 401)
        protocol = difflab.Sampled(times, np.pi / 4.0 * jnp.ones_like(times))
    else:
        protocol = difflab.Constant(np.pi / 4.0)
    drive = q.Drive(protocol, 0.5 * q.sigmax())
    control = diffrax.PIDController(rtol=1e-10, atol=1e-10, dtmax=0.5 * q.feature_time(protocol))
    result = q.sesolve(np.zeros((2, 2)), q.basis(2, 1), np.array([0.0, 4.0]), drives=[drive], exp_ops=[q.sigmaz()],
                       stepsize_controller=control)  # fmt: skip
    np.testing.assert_allclose(result.expects[-1, 0].real, 1.0, atol=1e-8)
