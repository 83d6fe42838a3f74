"""calibrate on dy/dt = -k y (exact solution y0 exp(-k t)): recovery, standard errors, recompilation, bad input.

All fits share data shapes and optimiser settings so that they reuse one compiled step.
"""

import dataclasses

import equinox as eqx
import jax
import numpy as np
import pytest
import scipy.optimize
import xarray as xr
from _systems import Decay, decay_data

import difflab
from difflab.calibration import Bounded, Log, Positive, calibrate
from difflab.calibration._calibrate import TRACES
from difflab.calibration._diagnostics import finer, traced_tolerances, user_fixed_resolution
from difflab.calibration._distributed import merge_blocks
from difflab.calibration.internal import build_problem

# test_checkpoint.py fits the same problem with Levenberg–Marquardt and Adam: one worker compiles both steps once
pytestmark = pytest.mark.xdist_group("decay_fit")

PARAMS = {"k": Positive(), "y0": Bounded(0.1, 10.0)}


def fit(data, **kwargs):
    kwargs = {"params": PARAMS, "steps": 25, **kwargs}
    return calibrate(Decay(k=1.0, y0=1.0), None, data, **kwargs)


@pytest.mark.slow
def test_lm_recovers_exact_parameters(capfd):
    result = fit(decay_data())
    assert "calibrate" not in capfd.readouterr().err  # no progress bar when stderr is not a terminal
    assert result.best["k"] == pytest.approx(0.5, rel=1e-5)
    assert result.best["y0"] == pytest.approx(2.0, rel=1e-5)
    assert float(result.losses.min()) < 1e-12
    assert result.estimates["k"].attrs["units"] == "1/ms"


def test_standard_errors_match_scipy_curve_fit():
    data = decay_data(noise=0.02, seed=3)
    result = fit(data)
    popt, pcov = scipy.optimize.curve_fit(lambda t, k, a: a * np.exp(-k * t), data["time"], data["y"], p0=(1, 1))
    np.testing.assert_allclose([result.best["k"], result.best["y0"]], popt, rtol=1e-6)
    np.testing.assert_allclose([result.stderr["k"], result.stderr["y0"]], np.sqrt(np.diag(pcov)), rtol=1e-4)
    np.testing.assert_allclose(result.covariance.values, pcov, rtol=1e-4)


def test_second_step_and_new_data_do_not_recompile():
    fit(decay_data(noise=0.01, seed=1))
    before = dict(TRACES)
    result = fit(decay_data(k=0.7, y0=3.0, noise=0.01, seed=2))
    assert result.steps > 1
    assert TRACES["step"] == before["step"]
    assert TRACES["init"] == before["init"]


def test_the_refinement_solves_with_the_programs_of_the_fit():
    """Tolerances ÷ 16 change array values only: the fit's compiled step, evaluation and statistics serve them."""
    problem, _ = build_problem(Decay(), decay_data(), PARAMS, "mse", difflab.Comparison(), None)
    pinned = traced_tolerances(problem)
    fine = finer(pinned, None, halvings=2)
    static = lambda p: eqx.filter(p, eqx.is_array, inverse=True)  # noqa: E731  (what jit keys its cache on)
    assert jax.tree.structure(fine) == jax.tree.structure(pinned)
    assert eqx.tree_equal(static(fine), static(pinned))
    coarse, finest = pinned.sim_options["stepsize_controller"], fine.sim_options["stepsize_controller"]
    assert (float(finest.rtol), float(finest.atol)) == (float(coarse.rtol) / 256, float(coarse.atol) / 256)
    assert (float(coarse.rtol), float(coarse.atol)) == (1e-6, 1e-8)  # the model's own default
    assert not user_fixed_resolution(pinned)  # difflab's pinned tolerances are still refined
    chosen = dataclasses.replace(problem, sim_options={"rtol": 1e-5})
    assert traced_tolerances(chosen) is chosen  # the user's tolerances are kept as given


def test_nan_samples_are_masked():
    data = decay_data()
    data["y"][[3, 10, 11, 30]] = np.nan
    result = fit(data)
    assert result.best["k"] == pytest.approx(0.5, rel=1e-5)
    assert result.diagnostics.attrs["masked_samples"] == 4 and "4 NaN data sample(s) masked" in repr(result)
    data["y"][5] = np.inf  # not a missing sample: refused, by name and index
    with pytest.raises(ValueError, match=r"data variable 'y' holds 1 infinite sample\(s\), first at index \[0, 5\]"):
        fit(data)


def test_all_nan_is_refused():
    data = decay_data()
    data["y"][:] = np.nan
    with pytest.raises(ValueError, match="'y' has no finite sample"):
        fit(data)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"checkpoint_every": 0}, ValueError, r"checkpoint_every must be a whole number of steps >= 1; got 0"),
        ({"checkpoint_every": 2.5}, ValueError, r"checkpoint_every must be a whole number of steps >= 1; got 2.5"),
        ({"checkpoint_every": True}, ValueError, r"checkpoint_every must be a whole number of steps >= 1; got True"),
        ({"starts": 2, "key": 3}, TypeError, r"key must be one JAX random key, made by jax\.random\.key.*; got int 3"),
        ({"callback": 3}, TypeError, r"callback must be a function callback\(step, losses\) or None; got int"),
    ],
)
def test_bad_run_settings_are_refused_by_name(kwargs, error, message):
    run = {k: kwargs.pop(k) for k in list(kwargs) if k in ("checkpoint_every", "callback")}
    with pytest.raises(error, match=message):
        fit(decay_data(), **kwargs, **({"run": difflab.RunOptions(**run)} if run else {}))


def test_old_style_keys_are_accepted():
    # 4 starts, as in the multistart test below: the two fits share one compiled step
    result = fit(decay_data(), starts=4, key=jax.random.PRNGKey(0))
    assert result.best["k"] == pytest.approx(0.5, rel=1e-5)


@pytest.mark.slow
def test_other_time_grid_is_interpolated_or_refused():
    data = decay_data()
    fine = np.linspace(0.0, 8.0, 801)
    result = fit(data, compare=difflab.Comparison(ts=fine))
    assert result.best["k"] == pytest.approx(0.5, rel=1e-4)
    with pytest.raises(ValueError, match="not inside the simulation grid"):
        fit(data, compare=difflab.Comparison(ts=np.linspace(0.0, 4.0, 41)))


def test_unknown_parameter_lists_valid_names():
    with pytest.raises(KeyError, match=r"unknown parameter 'kk'.*valid names: k, rate, y0"):
        fit(decay_data(), params={"kk": Positive()})


@pytest.mark.slow
def test_alias_and_unknown_variable():
    result = fit(decay_data(), params={"rate": Log(), "y0": Bounded(0.1, 10.0)})
    assert result.best["rate"] == pytest.approx(0.5, rel=1e-5)
    with pytest.raises(ValueError, match=r"data has no variable the model produces.*\['v'\]"):
        fit({"time": np.linspace(0, 1, 5), "v": np.ones(5)})


@pytest.mark.slow
def test_multistart_draws_inside_bounds_and_picks_the_best():
    result = fit(decay_data(), starts=4, key=jax.random.key(0))
    first = result.history.isel(step=0)
    assert result.losses.sizes["start"] == 4
    assert float(first["y0"].min()) > 0.1 and float(first["y0"].max()) < 10.0
    assert len(np.unique(first["y0"].values)) == 4
    assert float(result.losses.min()) < 1e-12
    with pytest.raises(ValueError, match="key is required"):
        fit(decay_data(), starts=2)


def test_a_sum_of_losses_reports_each_terms_loss_at_every_start():
    """`LossSum((MSE(), MSE(weights={"y": 3})), (1, 2))` on y0 exp(-k t): the terms are m and 3 m at each start,
    with m the start's mean squared error computed here, and the fit's loss is their weighted sum, 7 m."""
    data = decay_data(noise=0.05, seed=4)
    loss = difflab.LossSum((difflab.MSE(), difflab.MSE(weights={"y": 3.0})), weights=(1.0, 2.0))
    starts = {"k": [0.4, 0.8], "y0": [1.5, 2.5]}
    result = fit(data, loss=loss, steps=0, starts=starts)
    terms = result.term_losses
    assert terms.dims == ("start", "term") and list(terms["term"].values) == ["MSE_0", "MSE_1"]
    assert terms.attrs["weights"] == [1.0, 2.0]
    k, y0 = np.asarray(starts["k"])[:, None], np.asarray(starts["y0"])[:, None]
    mse = np.mean((y0 * np.exp(-k * data["time"]) - data["y"]) ** 2, axis=1)
    np.testing.assert_allclose(terms.values[:, 0], mse, rtol=1e-5)  # the solve's own error, about 1e-6
    np.testing.assert_allclose(terms.values[:, 1], 3 * terms.values[:, 0], rtol=1e-12)
    np.testing.assert_allclose(result.losses.values, terms.values @ [1.0, 2.0], rtol=1e-12)
    saved = result.to_dataset()
    np.testing.assert_array_equal(saved["final_term_loss"].values, terms.values)
    # starts fitted in blocks (on a cluster) are merged with their terms, renumbered as the losses are
    other = fit(data, loss=loss, steps=0, starts={"k": [0.6, 0.5], "y0": [2.0, 1.8]})
    merged = merge_blocks([result, other])
    np.testing.assert_array_equal(merged.term_losses.values, np.concatenate([terms.values, other.term_losses.values]))
    assert list(merged.term_losses["start"].values) == [0, 1, 2, 3]
    with pytest.warns(difflab.CalibrationWarning, match="residual variance"):  # the starts are not the optimum
        assert fit(data, steps=0, starts=starts).term_losses is None  # one loss: nothing to split


def test_a_start_on_a_bound_starts_just_inside_it():
    """A fit's estimate saturates onto a bound where the logistic rounds to 0 or 1; chained into the next fit as its
    start it must not be refused: a start exactly on a bound of Bounded(0.1, 10) begins 0.1 % of the width (0.0099)
    inside it. A start beyond a bound is refused by name."""
    data = decay_data(noise=0.05, seed=4)
    with pytest.warns(difflab.CalibrationWarning, match="residual variance"):  # the starts are not the optimum
        result = fit(data, steps=0, starts={"k": [0.4, 0.8], "y0": [0.1, 10.0]})
    k, y0 = np.array([[0.4], [0.8]]), np.array([[0.1 + 0.0099], [10.0 - 0.0099]])
    mse = np.mean((y0 * np.exp(-k * data["time"]) - data["y"]) ** 2, axis=1)
    np.testing.assert_allclose(result.losses.values, mse, rtol=1e-5)  # the solve's own error, about 1e-6
    with pytest.raises(ValueError, match=r"parameter 'y0' = \[0.05\] lies outside its transform's domain"):
        fit(data, steps=0, starts={"k": [0.4], "y0": [0.05]})


def test_a_fitted_model_on_a_bound_is_a_start_too():
    """`calibrate(fit.model, ...)`: the model's own value, saturated onto a bound, starts 0.1 % of the width inside
    it (y0 = 10 − 0.0099 on Bounded(0.1, 10)), as an explicit start on the bound does."""
    data = decay_data(noise=0.05, seed=4)
    with pytest.warns(difflab.CalibrationWarning, match="residual variance"):  # the start is not the optimum
        result = calibrate(Decay(k=0.4, y0=10.0), None, data, params=PARAMS, steps=0)
    mse = np.mean(((10.0 - 0.0099) * np.exp(-0.4 * data["time"]) - data["y"]) ** 2)
    np.testing.assert_allclose(result.losses.values, [mse], rtol=1e-5)  # the solve's own error, about 1e-6


@pytest.mark.slow
def test_many_recordings_are_labelled():
    ks = np.array([0.3, 0.5, 0.8])
    ts = np.linspace(0.0, 8.0, 41)
    y = 2.0 * np.exp(-ks[:, None] * ts[None, :])
    data = xr.Dataset({"y": (("cell", "time"), y)}, coords={"time": ts, "cell": ["a", "b", "c"]})
    result = fit(data)
    np.testing.assert_allclose(result.estimates["k"].sel(cell=["a", "b", "c"]), ks, rtol=1e-5)
    assert result.losses.dims == ("cell", "start")
    assert result.model.k.shape == (3,)


@pytest.mark.slow
def test_adam_reduces_the_loss():
    result = fit(decay_data(), optimizer="adam", steps=150)
    loss = result.history["loss"].values[:, 0]
    assert loss[-1] < 1e-3 * loss[0]
    assert result.best["k"] == pytest.approx(0.5, rel=2e-2)


def test_least_squares_solver_refuses_a_scalar_loss():
    with pytest.raises(ValueError, match="needs a least-squares loss"):
        fit(decay_data(), loss=lambda p, d, m: ((p["y"] - d["y"]) ** 2).sum(), optimizer="lm")


def test_model_must_be_a_model():
    with pytest.raises(TypeError, match="model must be an AbstractModel"):
        calibrate(object(), None, decay_data(), params=PARAMS)


def test_package_still_imports():
    assert difflab.simulate is not None


@pytest.mark.slow
def test_one_protocol_per_recording():
    """dy/dt = -k y + c with c = 0.5 and 1.5: y = c/k + (y0 - c/k) exp(-k t)."""
    ts = np.linspace(0.0, 8.0, 41)
    inputs, k, y0 = np.array([0.5, 1.5]), 0.5, 2.0
    y = inputs[:, None] / k + (y0 - inputs[:, None] / k) * np.exp(-k * ts[None, :])
    data = xr.Dataset({"y": (("input", "time"), y)}, coords={"time": ts, "input": inputs})
    protocols = [difflab.Constant(c) for c in inputs]
    result = calibrate(Decay(k=1.0, y0=1.0), protocols, data, params=PARAMS, steps=25)
    np.testing.assert_allclose(result.estimates["k"], [k, k], rtol=1e-5)
    with pytest.raises(ValueError, match="3 protocols for 2 recordings"):
        calibrate(Decay(), protocols + protocols[:1], data, params=PARAMS, steps=1)


def test_data_of_one_sample_is_refused_by_name():
    data = decay_data()
    with pytest.raises(ValueError, match=r"data must hold at least 2 time samples to be fitted; got 1"):
        fit({"time": data["time"][:1], "y": data["y"][:1]})


def test_progress_in_a_log_is_a_few_plain_lines(capfd):
    """`progress=True` off a terminal (a batch job's log): plain lines, the last one with the step and the loss."""
    result = fit(decay_data(), run=difflab.RunOptions(progress=True))
    capfd_err = capfd.readouterr().err.splitlines()
    err = [line for line in capfd_err if line.startswith("calibrate: ")]
    assert "\r" not in "".join(err) and 1 <= len(err) <= 3  # one per 5 s at most, and the last step's
    steps = int(result.history.sizes["step"])
    assert err[-1].startswith(f"calibrate: {steps}/25 [") and "loss " in err[-1]
    # then the work after the steps (the step's bias checked, the standard errors) has lines of its own
    after = [line for line in capfd_err if line.startswith("refine and errors: ")]
    assert after and after[-1].startswith("refine and errors: 27/27 [") and after[-1].endswith("standard errors")


def test_estimates_are_printed_to_the_precision_of_their_errors():
    """`value ± error` with the error at two significant digits and the value to the same decimal."""
    from difflab.calibration._result import _with_error

    assert _with_error(118.8712, 0.665953) == "118.87 ± 0.67"
    assert _with_error(30.0101, 0.0121) == "30.010 ± 0.012"
    assert _with_error(12345.6, 150.0) == "12350 ± 150"
    assert _with_error(5.0, float("nan")) == "5 ± nan"  # an unknown error: the value at six digits
    assert _with_error(np.array([1.0, 2.0]), np.array([0.1, 0.02])) == "[1.00 ± 0.10, 2.000 ± 0.020]"  # recordings
