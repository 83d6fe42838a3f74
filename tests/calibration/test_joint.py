"""Joint fits (`Comparison(joint=True)`): one parameter set for several recordings, each under its own protocol.

The system is dy/dt = -k y + c, y(0) = y0, whose exact solution is y = c/k + (y0 - c/k) exp(-k t). The joint fit
of noisy recordings under several inputs c is ordinary least squares on all their samples at once, so its
estimates, standard errors and covariance must equal scipy's `curve_fit` on the stacked samples.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.optimize
import xarray as xr
from _systems import Decay, Line

import difflab
from difflab import plot
from difflab.bayes._density import LogDensity
from difflab.calibration import Bounded, Positive, SpikeTimes, calibrate
from difflab.calibration.internal import build_problem, fit_members

pytestmark = pytest.mark.xdist_group("decay_fit")

PARAMS = {"k": Positive(), "y0": Bounded(0.1, 10.0)}
TS = np.linspace(0.0, 8.0, 41)
INPUTS = np.array([0.0, 1.5])
K, Y0 = 0.5, 2.0


def exact(ts, k, y0, c):
    return c / k + (y0 - c / k) * np.exp(-k * ts)


def recordings(noise=0.03, seed=4):
    y = np.stack([exact(TS, K, Y0, c) for c in INPUTS])
    y = y + noise * np.random.default_rng(seed).standard_normal(y.shape)
    return xr.Dataset({"y": (("input", "time"), y, {"units": "mV"})}, coords={"time": TS, "input": INPUTS})


def joint_fit(data, protocol, **kwargs):
    compare = difflab.Comparison(joint=True)
    return calibrate(Decay(k=1.0, y0=1.0), protocol, data, params=PARAMS, steps=25, compare=compare, **kwargs)


def test_a_joint_fit_is_least_squares_on_all_recordings():
    data = recordings()
    result = joint_fit(data, [difflab.Constant(c) for c in INPUTS])

    def stacked(_, k, y0):
        return np.concatenate([exact(TS, k, y0, c) for c in INPUTS])

    popt, pcov = scipy.optimize.curve_fit(stacked, None, data["y"].values.ravel(), p0=(1.0, 1.0))
    np.testing.assert_allclose([result.best["k"], result.best["y0"]], popt, rtol=1e-6)
    np.testing.assert_allclose([result.stderr["k"], result.stderr["y0"]], np.sqrt(np.diag(pcov)), rtol=1e-4)
    np.testing.assert_allclose(result.covariance.values, pcov, rtol=1e-4)
    # one parameter set: no recording dimension anywhere in the result
    assert result.losses.dims == ("start",)
    assert result.estimates["k"].dims == ()
    assert np.shape(result.model.k) == ()
    residual = data["y"].values - np.stack([exact(TS, *popt, c) for c in INPUTS])
    assert float(result.losses.min()) == pytest.approx(np.mean(residual**2), rel=1e-6)
    assert result.losses.attrs["units"] == "mV^2"
    # the plot draws one recording: its data, and the one fitted model under that recording's protocol
    fig = plot.calibration(result, [difflab.Constant(c) for c in INPUTS], data, recording=1)
    measured, fitted = fig.axes[0].lines
    np.testing.assert_array_equal(measured.get_ydata(), data["y"].values[1])
    np.testing.assert_allclose(fitted.get_ydata(), exact(TS, *popt, INPUTS[1]), rtol=1e-5)


def test_one_protocol_serves_repeated_recordings():
    """Two noisy trials under the same input c = 1.5 are fitted as one data set of twice the samples."""
    y = exact(TS, K, Y0, 1.5) + 0.03 * np.random.default_rng(5).standard_normal((2, TS.size))
    data = xr.Dataset({"y": (("trial", "time"), y)}, coords={"time": TS})
    result = joint_fit(data, difflab.Constant(1.5))
    popt, pcov = scipy.optimize.curve_fit(lambda _, k, y0: np.tile(exact(TS, k, y0, 1.5), 2), None, y.ravel(),
                                          p0=(1.0, 1.0))  # fmt: skip
    np.testing.assert_allclose([result.best["k"], result.best["y0"]], popt, rtol=1e-6)
    np.testing.assert_allclose([result.stderr["k"], result.stderr["y0"]], np.sqrt(np.diag(pcov)), rtol=1e-4)
    # no protocol at all (free decay, c = 0): the same for every trial
    y = exact(TS, K, Y0, 0.0) + 0.03 * np.random.default_rng(6).standard_normal((2, TS.size))
    free = joint_fit(xr.Dataset({"y": (("trial", "time"), y)}, coords={"time": TS}), None)
    popt, _ = scipy.optimize.curve_fit(lambda _, k, y0: np.tile(exact(TS, k, y0, 0.0), 2), None, y.ravel(),
                                       p0=(1.0, 1.0))  # fmt: skip
    np.testing.assert_allclose([free.best["k"], free.best["y0"]], popt, rtol=1e-6)


def test_a_checkpoint_of_a_joint_fit_is_not_resumed_as_independent_fits(tmp_path):
    data, protocols = recordings(), [difflab.Constant(c) for c in INPUTS]
    path = tmp_path / "fit.nc"
    joint_fit(data, protocols, run=difflab.RunOptions(checkpoint=path, refine=False))
    with pytest.raises(ValueError, match=r"differs from this one in its (protocol and )?recordings fitted jointly"):
        calibrate(Decay(k=1.0, y0=1.0), protocols, data, params=PARAMS, steps=25,
                  run=difflab.RunOptions(resume=path, refine=False))  # fmt: skip


def test_joint_fits_refuse_a_protocol_count_other_than_the_recordings():
    with pytest.raises(ValueError, match="3 protocols for 2 recordings"):
        joint_fit(recordings(), [difflab.Constant(c) for c in (0.0, 1.0, 2.0)])
    with pytest.raises(TypeError, match="joint must be True"):
        difflab.Comparison(joint="yes")


def test_the_spike_time_loss_pools_the_spikes_of_every_trace():
    """Traces on an axis after time: each trace's crossings, scaled by the number of spikes of all traces."""
    ts = np.linspace(0.0, 10.0, 101)
    loss = SpikeTimes(variable="V", threshold=0.0, max_spikes=3, ts=ts)

    def bumps(centres):  # a Gaussian bump of 40 mV at each centre over a baseline of -20 mV
        return sum(np.exp(-((ts - c) ** 2)) * 40 - 20 for c in centres) + 20 * (len(centres) - 1)

    data = np.stack([bumps([2.0, 6.0]), bumps([4.0])], axis=1) - 10.0  # (time, trace): 2 + 1 spikes
    pred = np.stack([bumps([2.2, 6.0]), bumps([3.7])], axis=1) - 10.0
    mask = np.ones_like(data, dtype=bool)
    r = np.asarray(loss.residuals({"V": pred}, {"V": data}, {"V": mask})).reshape(2, 3)
    single = [np.asarray(loss.residuals({"V": pred[:, j]}, {"V": data[:, j]}, {"V": mask[:, j]})) for j in (0, 1)]
    # each trace's own residuals carry 1/sqrt(its spikes): 2 and 1; pooled they carry 1/sqrt(3)
    np.testing.assert_allclose(r[0], single[0] * np.sqrt(2 / 3), rtol=1e-12)
    np.testing.assert_allclose(r[1], single[1] * np.sqrt(1 / 3), rtol=1e-12)
    assert r[0, 0] == pytest.approx(0.2 / np.sqrt(3), abs=2e-3)
    assert r[1, 0] == pytest.approx(-0.3 / np.sqrt(3), abs=2e-3)
    assert float(loss.count({"V": data}, {"V": mask})) == 3


def test_the_posteriors_log_density_of_a_joint_fit_sums_the_recordings():
    """`posterior` builds its problem as `calibrate` does: with `joint=True` the Gaussian log-likelihood of the
    straight line y = a t + b is -RSS/(2σ²) over the samples of both recordings (up to a constant)."""
    ts, sigma = np.linspace(0.0, 2.0, 21), 0.1
    y = 0.7 * ts + 0.3 + sigma * np.random.default_rng(7).standard_normal((2, ts.size))
    bounds = {"a": (-5.0, 5.0), "b": (-5.0, 5.0)}
    problem, fit = build_problem(Line(), {"time": ts, "y": y}, bounds, "mse", difflab.Comparison(joint=True), None)
    member = jax.tree.map(lambda x: x[0], fit_members(None, fit))
    density = LogDensity(problem=problem, member=member, sigma=jnp.asarray(sigma), priors=())

    def closed_form(a, b):
        jacobian = sum(np.log((x + 5) * (5 - x) / 10) for x in (a, b))  # d/du of -5 + 10 σ(u)
        return -np.sum((y - a * ts - b) ** 2) / (2 * sigma**2) + jacobian

    points = [(0.6, 0.2), (0.9, -0.4)]
    theta = [{"a": problem.transforms["a"].inverse(a), "b": problem.transforms["b"].inverse(b)} for a, b in points]
    got = [float(density(t)) for t in theta]
    np.testing.assert_allclose(got[0] - got[1], closed_form(*points[0]) - closed_form(*points[1]), rtol=1e-9)
