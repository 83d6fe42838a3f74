"""Recover (gNa, gK, gL) of the squid axon from the NEURON trace with 1 mV Gaussian noise.

Reference: datasets/hh/hh_step_10uA.nc (NEURON 9, CVODE at 1e-11; 10 µA/cm² step on [10, 110) ms).
Starts are 50 % off the true values (all three ×0.5, and all three ×1.5). The fit runs in two
stages, each a Levenberg–Marquardt least-squares fit of the trace:

1. the first 45 ms (three spikes), sampled every 0.125 ms, from both starts;
2. the whole 150 ms trace (seven spikes and the return to rest), every 0.1 ms, from the
   stage-1 optimum, with dt = 0.01 ms so that discretisation bias stays well below the noise.

A trace MSE over seven spikes has many local minima far from the truth; the short window
removes them, the long one pins down gL (rest and recovery) and tightens the errors.
"""

import numpy as np
import pytest

import difflab
from difflab.neuron import HodgkinHuxley

# Stage 1 is also the fit of test_cli_fit.py: on one worker the second of the two reuses the first one's compiled step.
pytestmark = pytest.mark.xdist_group("hh_step_fit")

TRUE = {"gNa": 120.0, "gK": 36.0, "gL": 0.3}
PARAMS = {name: difflab.Log() for name in TRUE}


@pytest.fixture(scope="module")
def noisy_trace():
    V = difflab.datasets.load("hh/hh_step_10uA")["V"].isel(amplitude=0, drop=True)
    return V + np.random.default_rng(0).normal(0.0, 1.0, V.shape)


@pytest.mark.slow
def test_recovers_conductances_within_two_percent_with_standard_errors(noisy_trace):
    protocol = difflab.Step(10.0, 10.0, 110.0)
    starts = {name: [0.5 * v, 1.5 * v] for name, v in TRUE.items()}
    window = noisy_trace.sel(time=slice(0.0, 45.0)).isel(time=slice(None, None, 5))
    stage1 = difflab.calibrate(HodgkinHuxley.squid_axon(), protocol, window, params=PARAMS, steps=25, starts=starts)
    assert stage1.losses.sizes["start"] == 2
    full = noisy_trace.isel(time=slice(None, None, 4))
    stage2 = difflab.calibrate(
        stage1.model, protocol, full, params=PARAMS, steps=6, options=difflab.SolveOptions(dt0=0.01)
    )
    assert float(stage2.losses.min()) == pytest.approx(1.0, rel=0.1)  # residual variance = noise variance (1 mV²)
    for name, value in TRUE.items():
        estimate, se = float(stage2.best[name]), float(stage2.stderr[name])
        assert abs(estimate / value - 1) < 0.02, (name, estimate, se)
        assert 0 < se < 0.02 * value, (name, se)
        assert abs(estimate - value) < 4 * se, (name, estimate, se)
