"""eFEL's spike features: equal to eFEL 5.7 on NEURON traces, refined smoothly between samples, and fitted.

`datasets/neuron/efel_features.json` holds eFEL's values for six NEURON traces (three L5PC step responses and an
apical trace without spikes, the squid axon's step and its Ornstein-Uhlenbeck drive). The tests rebuild the trace
eFEL measured (its time grid, which it makes by adding the step, and its linear interpolation of the samples), so
the two libraries see the same numbers.
"""

import json
import warnings

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import xarray as xr

import difflab
from difflab.neuron import FeatureSettings, HodgkinHuxley, SpikeFeatures, spike_features

REFERENCE = json.loads(difflab.datasets.path("neuron/efel_features.json").read_text())
CASES = REFERENCE["cases"]
# difflab's names of eFEL's features where they differ
NAMES = {"min_AHP_values": "AHP_depth_abs"}
features = jax.jit(spike_features, static_argnames=("stimulus", "settings", "max_spikes", "interpolate"))


def efel_trace(case):
    """The case's trace as eFEL measured it: times summed step by step from the first, V interpolated linearly."""
    ds = xr.open_dataset(difflab.datasets.path(case["file"]))
    v = ds[case["variable"]].isel(case["selection"])
    ts, vs = ds[case["time"]].values.astype(float), v.values.astype(float)
    grid = np.add.accumulate(np.r_[ts[0], np.full(case["n_samples"] - 1, case["grid_step"])])
    return grid, np.interp(grid, ts, vs)


@pytest.fixture(scope="module")
def measured():
    """`{case: (t, V, exact features, interpolated features)}`."""
    out = {}
    for name, case in CASES.items():
        t, v = efel_trace(case)
        stim = tuple(case["stimulus"])
        out[name] = (t, v, features(t, v, stim, max_spikes=64, interpolate=False), features(t, v, stim, max_spikes=64))
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_features_equal_efel_on_the_same_samples(measured, name):
    """Indices exactly, values to 1e-8 (mV, ms, Hz: the two interpolations round apart).

    An AHP at one of two equal samples may be either.
    """
    _, v, got, _ = measured[name]
    for feature, ref in CASES[name]["features"].items():
        mine = np.asarray(got[NAMES.get(feature, feature)])
        if ref is None:  # eFEL has no value: no spike, so nothing here either (a rate of 0 Hz)
            assert np.all((mine == -1) | np.isnan(mine) | (mine == 0)), feature
            continue
        ref = np.asarray(ref)
        if mine.ndim == 0:
            np.testing.assert_allclose(mine, ref[0], rtol=0, atol=1e-8, err_msg=feature)
            continue
        assert np.all(np.isnan(mine[ref.size :]) | (mine[ref.size :] == -1)), feature
        mine = mine[: ref.size]
        if feature == "min_AHP_indices":  # a tie of two samples: eFEL's interpolation breaks it at 1e-15 mV
            tie = (mine != ref) & (np.abs(v[mine] - v[ref.astype(int)]) < 1e-9)
            assert tie.sum() <= 1 and np.all((mine == ref) | tie), (mine, ref)
        elif feature.endswith("_indices") or feature == "Spikecount":
            np.testing.assert_array_equal(mine, ref, err_msg=feature)
        else:
            np.testing.assert_allclose(mine, ref, rtol=0, atol=1e-8, err_msg=feature)


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c["features"]["Spikecount"][0] > 2])
def test_interpolated_features_stay_within_a_sample_of_efel(measured, name):
    """Times within one sample interval (a width: two), voltages within V's largest change over one interval."""
    _, v, _, got = measured[name]
    step, dv = CASES[name]["grid_step"], np.max(np.abs(np.diff(v)))
    ref = CASES[name]["features"]
    bounds = {"peak_time": step, "all_ISI_values": 2 * step, "AP_duration_half_width": 2 * step,
              "AP_width": 2 * step, "time_to_first_spike": step, "doublet_ISI": 2 * step, "peak_voltage": dv,
              "AP_amplitude": 2 * dv, "AHP_depth": dv, "AHP_depth_abs_slow": dv, "AHP_slow_time": 0.01}  # fmt: skip
    for feature, bound in bounds.items():
        r = np.asarray(ref[feature])
        gap = np.abs(np.atleast_1d(np.asarray(got[feature]))[: r.size] - r)
        assert np.all(gap <= bound), (feature, gap.max(), bound)
    # the per-trace features of smooth times
    assert abs(float(got["mean_frequency"]) - ref["mean_frequency"][0]) < 1e-3 * ref["mean_frequency"][0]
    assert abs(float(got["ISI_CV"]) - ref["ISI_CV"][0]) < 1e-3
    assert abs(float(got["adaptation_index2"]) - ref["adaptation_index2"][0]) < 1e-3
    assert abs(float(got["maximum_voltage_from_voltagebase"]) - ref["maximum_voltage_from_voltagebase"][0]) < 1e-8


STEP = difflab.Step(10.0, 10.0, 60.0)
FIT_STEP = difflab.Step(10.0, 10.0, 50.0)
TS = np.arange(0.0, 70.0 + 1e-9, 0.025)
SHAPE = ("AP_amplitude", "AP_duration_half_width", "AHP_depth", "mean_frequency", "ISI_CV")


def squid_features(gNa, gK):
    """Shape and rate features of the squid axon's 10 µA/cm² step response, as a vector."""
    model = HodgkinHuxley.squid_axon().replace(gNa=gNa, gK=gK)
    v = difflab.simulate(model, STEP, TS, options=difflab.SolveOptions(adjoint=diffrax.ForwardMode()))["V"]
    f = spike_features(TS, v, (10.0, 60.0), max_spikes=8)
    return jnp.stack([jnp.nanmean(f[k]) for k in SHAPE])


def test_interpolated_features_are_differentiable_through_the_solve():
    """d features / d(gNa, gK) by forward mode equals central differences (h = 1e-3 mS/cm²) to 1e-3 relative."""
    jac = np.asarray(jax.jit(jax.jacfwd(squid_features, argnums=(0, 1)))(120.0, 36.0))
    f = jax.jit(squid_features)
    h = 1e-3
    fd = [(np.asarray(f(120.0 + h, 36.0)) - np.asarray(f(120.0 - h, 36.0))) / (2 * h),
          (np.asarray(f(120.0, 36.0 + h)) - np.asarray(f(120.0, 36.0 - h))) / (2 * h)]  # fmt: skip
    for ad, nd in zip(jac, fd, strict=True):
        np.testing.assert_allclose(ad, nd, rtol=1e-3, atol=1e-6)
    assert np.all(np.abs(jac[0]) > 0)  # every feature moves with gNa


def test_a_feature_fit_recovers_the_conductances():
    """Levenberg-Marquardt on five features reaches the truth to 1e-9 from starts 15 % off (noise-free data).

    The step ends between two spikes, so that no spike enters or leaves the stimulus window along the way (a
    feature mean jumps where one does). A start that does not fire repetitively (gNa -15 %, gK +15 %) has no
    features and so no gradient: feature fits need starts that spike.
    """
    truth = HodgkinHuxley.squid_axon()
    data = difflab.simulate(truth, FIT_STEP, TS)
    scales = {"AP_amplitude": 1.0, "AP_duration_half_width": 0.05, "AHP_depth": 0.5, "mean_frequency": 1.0,
              "ISI_CV": 0.01}  # fmt: skip
    loss = SpikeFeatures(scales=scales, stimulus=(10.0, 50.0), max_spikes=8)
    params = {"gNa": difflab.Bounded(80.0, 180.0), "gK": difflab.Bounded(20.0, 60.0)}
    starts = {"gNa": [138.0, 102.0, 138.0], "gK": [30.6, 30.6, 41.4]}
    with warnings.catch_warnings():  # noise-free data: the standard errors are ~0, below the discretisation's
        warnings.filterwarnings("ignore", "the optimum moves by", difflab.CalibrationWarning)
        fit = difflab.calibrate(truth, FIT_STEP, {"time": TS, "V": data["V"]}, params=params, loss=loss, steps=25,
                                starts=starts, run=difflab.RunOptions(refine=False))  # fmt: skip
    assert np.all(fit.losses.values < 1e-12), fit.losses.values  # against 2.1-38 at the starts (no ISI_CV: 3 spikes)
    np.testing.assert_allclose([float(fit.best["gNa"]), float(fit.best["gK"])], [120.0, 36.0], rtol=1e-9)


def test_a_missing_sample_holds_the_last_one_and_a_missing_feature_costs_missing():
    t, v = TS, np.asarray(difflab.simulate(HodgkinHuxley.squid_axon(), STEP, TS)["V"])
    loss = SpikeFeatures(scales={"AP_amplitude": 1.0, "mean_frequency": 1.0}, stimulus=(10.0, 60.0), ts=jnp.asarray(t))
    gappy = v.copy()
    gappy[100:110] = np.nan  # before the stimulus: the same features
    mask = {"V": jnp.asarray(np.isfinite(gappy))}
    r = loss.residuals({"V": jnp.asarray(v)}, {"V": jnp.asarray(gappy)}, mask)
    np.testing.assert_allclose(np.asarray(r), 0.0, atol=1e-12)
    flat = jnp.full_like(jnp.asarray(v), -65.0)  # a prediction without spikes: no amplitude, a rate of 0 Hz
    r = np.asarray(loss.residuals({"V": flat}, {"V": jnp.asarray(gappy)}, mask))
    rate = float(features(t, v, (10.0, 60.0))["mean_frequency"])
    # AP_amplitude missing; mean_frequency 0 Hz against the data's; each over the square root of the 2 features
    np.testing.assert_allclose(r, np.array([250.0, -rate]) / np.sqrt(2))
    assert int(loss.count({"V": jnp.asarray(gappy)}, mask)) == 2


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: SpikeFeatures(scales={"AP_halfwidth": 1.0}, stimulus=(0, 1)), "unknown feature 'AP_halfwidth'"),
        (lambda: SpikeFeatures(scales={"AP_amplitude": 0.0}, stimulus=(0, 1)), r"scales\['AP_amplitude'\]"),
        (lambda: SpikeFeatures(scales={}, stimulus=(0, 1)), "scales must be a non-empty dict"),
        (lambda: SpikeFeatures(scales={"ISI_CV": 0.1}, stimulus=(5, 1)), "stimulus must be"),
        (lambda: SpikeFeatures(scales={"ISI_CV": 0.1}, stimulus=(0, 1), max_spikes=0), "max_spikes"),
        (lambda: SpikeFeatures(scales={"ISI_CV": 0.1}, stimulus=(0, 1), missing=-1.0), "missing"),
        (lambda: FeatureSettings(derivative_window=0), "derivative_window"),
        (lambda: FeatureSettings(voltage_base_start_perc=1.5), "voltage_base_start_perc"),
        (lambda: FeatureSettings(threshold=float("nan")), "threshold"),
        (lambda: spike_features(TS, np.zeros(10), (0, 1)), "times on its last axis"),
        (lambda: spike_features(TS, np.where(TS > 5, np.nan, -65.0), (0, 1)), r"V \(a missing sample.*must be finite"),
        (lambda: spike_features(TS[::-1], np.zeros_like(TS), (0, 1)), "ts must increase strictly"),
        (lambda: spike_features(TS, np.zeros_like(TS), (0, 1), settings="eFEL"), "settings must be"),
        (lambda: spike_features(TS, np.zeros_like(TS), "10-60"), "stimulus must be"),
        (lambda: spike_features(TS, np.zeros_like(TS), (100.0, 200.0)), r"does not overlap the samples, 0 to 70 ms"),
        (lambda: SpikeFeatures(scales={"ISI_CV": 0.1}, stimulus=(80, 90)).with_times(jnp.asarray(TS)), "overlap"),
    ],
)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
