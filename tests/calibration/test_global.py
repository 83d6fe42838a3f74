"""Global strategies, resolution refinement and misfit diagnostics of `calibrate`.

Data: NEURON 9's squid axon driven by a held Ornstein–Uhlenbeck current (datasets/hh/hh_ou_hold.nc),
the first 120 ms (7 spikes), plus 1 mV Gaussian noise; and exact exponential decays.
"""

import jax
import numpy as np
import pytest
from _systems import Decay, decay_data

import difflab
from difflab.calibration._result import _evaluate
from difflab.calibration._strategies import window_members, window_problem
from difflab.calibration.internal import build_problem, fit_members
from difflab.neuron import HodgkinHuxley

TRUE = {"gNa": 120.0, "gK": 36.0, "gL": 0.3}
BOUNDS = {"gNa": difflab.Bounded(50.0, 200.0), "gK": difflab.Bounded(10.0, 80.0), "gL": difflab.Bounded(0.05, 1.0)}
# Two decay fits below fit what test_calibrate.py fits (these transforms, 41 samples, Levenberg–Marquardt) and join
# its group: on its worker they reuse its compiled optimiser step instead of compiling their own. The HH fits stay
# in this file's group, on whichever worker is free.
DECAY_PARAMS = {"k": difflab.Positive(), "y0": difflab.Bounded(0.1, 10.0)}
DECAY_FIT = pytest.mark.xdist_group("decay_fit")


def ou_recording(t_end=120.0, noise=1.0, seed=1):
    ref = difflab.datasets.load("hh/hh_ou_hold").sel(time=slice(0.0, t_end))
    ts = ref.time.values
    V = ref.V.values + noise * np.random.default_rng(seed).normal(0.0, 1.0, ts.size)
    return difflab.Sampled(ts, ref.I_stim.values), {"time": ts, "V": V}


def test_linear_estimate_of_conductances_is_within_2_percent_whatever_the_model_values():
    protocol, data = ou_recording()
    paths = ("channels.na.gbar", "channels.k.gbar", "channels.leak.g")
    mask = {"V": np.ones(data["time"].size, bool)}
    for cell in (HodgkinHuxley.squid_axon(), HodgkinHuxley.squid_axon().replace(gNa=60.0, gK=70.0, gL=0.9)):
        estimate = cell.linear_estimate(paths, protocol, data["time"], {"V": data["V"]}, mask)
        got = dict(zip(TRUE, (estimate[p] for p in paths), strict=True))
        print(got)
        for name, value in TRUE.items():
            assert abs(got[name] / value - 1) < 0.05 if name == "gL" else abs(got[name] / value - 1) < 0.02, got
    # not every fitted parameter is a conductance: no estimate
    assert HodgkinHuxley.squid_axon().linear_estimate(("channels.na.E",), protocol, data["time"], {"V": data["V"]},
                                                      mask) is None  # fmt: skip


@pytest.mark.slow
def test_auto_strategy_reaches_the_truth_from_starts_anywhere_in_the_bounds(capfd):
    protocol, data = ou_recording()
    away = HodgkinHuxley.squid_axon().replace(gNa=70.0, gK=60.0, gL=0.9)  # every start loses to the estimate
    fit = difflab.calibrate(away, protocol, data, params=BOUNDS, starts=4, key=jax.random.key(3), steps=15,
                            run=difflab.RunOptions(progress=True))  # fmt: skip
    # in a log: the steps, then the refinement at a finer step and the standard errors, counted to the end
    after = [line for line in capfd.readouterr().err.splitlines() if line.startswith("refine and errors: ")]
    assert after[-1].startswith("refine and errors: 17/17 [") and after[-1].endswith("standard errors"), after
    assert fit.strategy == "linear"
    assert fit.losses.shape == (4,)
    for name, value in TRUE.items():
        ends = fit.history[name].isel(step=-1).values
        assert np.all(np.abs(ends / value - 1) < 0.01), (name, ends)
        # the 95 % interval holds the truth (refined so that the step does not bias the estimate)
        assert abs(fit.best[name] - value) < 2.5 * fit.stderr[name], (name, fit.best[name], fit.stderr[name])
    diag = fit.diagnostics
    assert 0.9 < float(diag.noise_sigma) < 1.1  # 1 mV of added noise, from the data's second differences
    assert 0.8 < float(diag.misfit_ratio) < 1.2
    assert float(diag.shift_over_stderr.max()) < 0.5


def test_the_estimate_never_replaces_a_start_that_fits_better():
    """gL alone, its start at the truth: the start's loss is lower than the estimate's, so the start stays."""
    protocol, data = ou_recording(t_end=40.0)
    # which start runs is decided before any step; the refinement (and its compilation at the finer step) is not
    # what this checks
    fit = difflab.calibrate(HodgkinHuxley.squid_axon(), protocol, data, params={"gL": BOUNDS["gL"]}, steps=10,
                            run=difflab.RunOptions(progress=False, refine=False))  # fmt: skip
    assert fit.strategy == "multistart"
    assert abs(fit.best["gL"] - 0.3) < 0.03, fit.best


def test_estimate_outside_the_bounds_or_from_coarse_data_is_refused_or_flagged():
    protocol, data = ou_recording(t_end=40.0)
    model = HodgkinHuxley.squid_axon().replace(gNa=100.0)
    tight = {"gNa": difflab.Bounded(150.0, 200.0)}  # the estimate (about 120) lies below
    with pytest.raises(ValueError, match=r"strategy='linear' cannot start .* estimate gNa = 1\d\d.* outside its bounds "
                       r"\(150, 200\)"):  # fmt: skip
        difflab.calibrate(
            model.replace(gNa=160.0), protocol, data, params=tight, run=difflab.RunOptions(strategy="linear"), steps=2
        )
    coarse = {"time": data["time"][::40], "V": data["V"][::40]}  # every 1 ms
    with pytest.raises(ValueError, match=r"sampled every 1 ms; .* needs samples at most 0.25 ms apart"):
        difflab.calibrate(
            model, protocol, coarse, params={"gNa": BOUNDS["gNa"]}, run=difflab.RunOptions(strategy="linear"), steps=2
        )
    with pytest.warns(difflab.CalibrationWarning) as caught:  # the misfit of the unfitted start is warned about too
        fit = difflab.calibrate(
            model, protocol, coarse, params={"gNa": BOUNDS["gNa"]}, steps=0, run=difflab.RunOptions(progress=False)
        )
    said = [str(w.message) for w in caught]
    assert any(s.startswith("strategy='auto' runs from the given start(s) without the linear estimate: the data are "
                            "sampled every 1 ms") for s in said), said  # fmt: skip
    assert fit.strategy == "multistart"


def test_strategy_linear_without_an_estimate_and_unknown_strategies_are_refused():
    with pytest.raises(ValueError, match=r"strategy='linear' cannot start this fit: Decay gives no estimate"):
        difflab.calibrate(Decay(), None, decay_data(noise=0.01), params={"k": difflab.Positive()},
                          run=difflab.RunOptions(strategy="linear"), steps=2)  # fmt: skip
    with pytest.raises(ValueError, match=r"strategy must be one of \('auto', 'multistart', 'linear'\)"):
        difflab.calibrate(
            Decay(), None, decay_data(), params={"k": difflab.Positive()}, run=difflab.RunOptions(strategy="global")
        )
    with pytest.raises(ValueError, match=r"GrowingWindows first must be in \(0, 1\]"):
        difflab.GrowingWindows(first=0.0)
    with pytest.raises(ValueError, match="GrowingWindows factor must be > 1"):
        difflab.GrowingWindows(factor=1.0)


@DECAY_FIT
def test_growing_windows_cover_the_data_and_end_at_the_optimum():
    ends = difflab.GrowingWindows(first=0.25, factor=2.0).ends(np.linspace(2.0, 10.0, 9))
    assert ends == [4.0, 6.0, 10.0]
    data = decay_data(noise=0.02, seed=2)
    params = DECAY_PARAMS
    windows = difflab.calibrate(
        Decay(k=2.0, y0=1.0), None, data, params=params, steps=30, run=difflab.RunOptions(strategy="windows")
    )
    plain = difflab.calibrate(
        Decay(k=2.0, y0=1.0), None, data, params=params, steps=30, run=difflab.RunOptions(strategy="multistart")
    )
    assert windows.strategy.startswith("GrowingWindows")
    for name in params:
        assert windows.best[name] == pytest.approx(plain.best[name], rel=1e-6)


def test_a_window_stage_solves_its_window_only_and_scores_as_the_whole_solve_masked():
    """A `GrowingWindows` stage solves up to its window's end and holds the state there for the masked samples.

    The squid axon under a 10 µA/cm² step from 2.5 ms (spikes at 4.4, 19.3 and 33.9 ms), sampled every 0.125 ms to
    35 ms, at gNa = 110 against data at 120 mS/cm²: the stage to 10 ms solves 81 samples (0 to 10 ms), and its loss
    is the loss of the whole solve with the later samples masked, to rounding (the two grids end at different times).
    """
    ts = np.arange(0.0, 35.0, 0.125)
    protocol = difflab.Step(10.0, 2.5, 35.0)
    data = {"time": ts, "V": difflab.simulate(HodgkinHuxley.squid_axon(), protocol, ts).ys["V"]}
    problem, fit = build_problem(HodgkinHuxley.squid_axon(), data, {"gNa": difflab.Positive()}, "mse",
                                 difflab.Comparison(), difflab.SolveOptions(dt0=0.0625))  # fmt: skip
    members = fit_members(protocol, fit)
    theta = {"gNa": problem.transforms["gNa"].inverse(np.array([110.0]))}
    stage, window = window_members(members, fit.ts, 10.0), window_problem(problem, 10.0)
    assert window.until == 81 and float(window.sim_ts[window.until - 1]) == 10.0
    windowed, whole = (float(_evaluate(p, theta, stage)[0][0]) for p in (window, problem))
    assert whole > 1.0  # the spike at 4.4 ms is off: the comparison is not of two zeros
    assert windowed == pytest.approx(whole, rel=1e-9)
    pred, ok = window.predict(window.physical({"gNa": theta["gNa"][0]}), protocol)
    v = np.asarray(pred["V"])
    assert bool(ok) and v.shape == ts.shape and np.all(v[81:] == v[80])  # held after the window
    # data interpolated from a finer simulation grid: the window's solve reaches the first grid time at or after 10
    fine = build_problem(Decay(), decay_data(), DECAY_PARAMS, "mse", difflab.Comparison(ts=np.linspace(0, 8, 801)),
                         None)[0]  # fmt: skip
    assert window_problem(fine, 3.3).until == 331 and window_problem(fine, 3.304).until == 332


@pytest.mark.slow
@DECAY_FIT
def test_auto_is_multistart_without_a_linear_estimate_and_windows_refuse_checkpoints(tmp_path):
    data = decay_data(noise=0.02, seed=2)
    fit = difflab.calibrate(Decay(k=2.0, y0=2.0), None, data, params=DECAY_PARAMS, steps=20)
    assert fit.strategy == "multistart"
    with pytest.raises(ValueError, match="checkpoint/resume is not available with GrowingWindows"):
        difflab.RunOptions(strategy="windows", checkpoint=tmp_path / "fit.nc")


@pytest.mark.slow
def test_a_wrong_fixed_parameter_is_reported_as_misfit():
    # the decay's start is fixed at a wrong value: no rate fits the data to the noise level
    data = decay_data(k=0.5, y0=2.0, n=201, noise=0.01, seed=4)
    with pytest.warns(difflab.CalibrationWarning, match="residual variance is .* the noise variance") as record:
        fit = difflab.calibrate(Decay(k=0.7, y0=2.4), None, data, params={"k": difflab.Positive()}, steps=30)
    assert {w.filename for w in record} == {__file__}  # the warning names this call, however deep it was raised
    assert float(fit.diagnostics.misfit_ratio) > 10.0
    assert float(fit.diagnostics.noise_sigma) == pytest.approx(0.01, rel=0.15)


@pytest.mark.slow
def test_standard_errors_are_unknown_not_zero_when_underdetermined():
    data = {"time": np.array([0.0, 1.0]), "y": np.array([2.0, 1.2])}
    fit = difflab.calibrate(Decay(k=0.4, y0=1.5), None, data, steps=10, run=difflab.RunOptions(strategy="multistart"),
                            params={"k": difflab.Positive(), "y0": difflab.Positive(), })  # fmt: skip
    assert np.isnan(fit.stderr["k"]) and np.isnan(fit.stderr["y0"])


@pytest.mark.slow
def test_fixed_step_bias_is_refined_away_and_reported_when_the_user_fixed_the_step():
    # dy/dt = -k y with explicit Euler at a coarse step: the fitted rate absorbs the step's error
    data = decay_data(n=401, noise=1e-3, seed=6)
    params = {"k": difflab.Positive(), "y0": difflab.Positive()}
    coarse = difflab.SolveOptions(
        solver=__import__("diffrax").Euler(), stepsize_controller=__import__("diffrax").ConstantStepSize(), dt0=0.02
    )
    with pytest.warns(difflab.CalibrationWarning, match="standard errors when the model is solved more finely"):
        fixed = difflab.calibrate(Decay(), None, data, params=params, steps=20, options=coarse)
    assert float(fixed.diagnostics.shift_over_stderr.max()) > 1.0
    assert abs(fixed.best["k"] - 0.5) > 3 * fixed.stderr["k"]  # biased beyond its error, as reported


@pytest.mark.slow
def test_recordings_in_other_units_are_converted_or_refused():
    import xarray as xr

    data = decay_data(noise=0.01, seed=3)
    # the same recording in volts and seconds: converted to the model's mV and ms
    in_si = xr.Dataset({"y": ("time", data["y"] * 1e-3, {"units": "V"})},
                       coords={"time": ("time", data["time"] * 1e-3, {"units": "s"})})  # fmt: skip
    # y0 is Positive here: through Bounded the two optima agree to 3e-9, not to the 1e-9 asserted
    params = {"k": difflab.Positive(), "y0": difflab.Positive()}
    a = difflab.calibrate(Decay(k=1.0, y0=1.0), None, data, params=params, steps=30)
    b = difflab.calibrate(Decay(k=1.0, y0=1.0), None, in_si, params=params, steps=30)
    assert b.best["k"] == pytest.approx(a.best["k"], rel=1e-9)
    assert b.best["y0"] == pytest.approx(a.best["y0"], rel=1e-9)
    in_si["y"].attrs["units"] = "degC"
    with pytest.raises(ValueError, match="data 'y' is in 'degC' but the model expects 'mV'"):
        difflab.calibrate(Decay(), None, in_si, params=params)


def test_a_stimulus_shorter_than_the_recording_is_refused():
    protocol, _data = ou_recording(t_end=50.0)
    longer = {"time": np.arange(0.0, 60.0, 0.025), "V": np.zeros(2400)}
    with pytest.raises(ValueError, match=r"protocol has samples on \[0, 50\] but the data span \[0, 59.975\]"):
        difflab.calibrate(HodgkinHuxley.squid_axon(), protocol, longer, params={"gNa": difflab.Positive()})
    with pytest.raises(ValueError, match=r"protocol\[1\] has samples"):
        two = {"time": longer["time"], "V": np.zeros((2, 2400))}
        difflab.calibrate(HodgkinHuxley.squid_axon(), [difflab.Sampled(longer["time"], longer["V"]), protocol], two,
                          params={"gNa": difflab.Positive()})  # fmt: skip


def test_nan_starts_are_refused_by_name():
    data = decay_data(noise=0.01)
    for params in ({"k": difflab.Positive()}, {"k": None}, {"k": (0.1, 2.0)}):
        with pytest.raises(ValueError, match=r"parameter 'k' = \[nan\] must be finite"):
            difflab.calibrate(Decay(), None, data, params=params, starts={"k": [np.nan]})


def test_the_linear_estimate_is_an_optional_hook_of_calibration():
    """Only models that implement it are `LinearlyEstimable`; the others need nothing (no method on every model)."""
    assert isinstance(HodgkinHuxley.squid_axon(), difflab.LinearlyEstimable)
    assert not isinstance(Decay(), difflab.LinearlyEstimable)
    assert not hasattr(difflab.AbstractModel, "linear_estimate")
