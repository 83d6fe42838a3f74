"""Against NEURON 9 (CVODE, atol = rtol = 1e-11): the 10 µA/cm² step and the coarse F-I curve."""

import jax
import jax.numpy as jnp
import numpy as np

import difflab
import difflab.datasets
from difflab.neuron import HodgkinHuxley, fi_curve, spike_times


def test_step_10uA_seven_spikes_within_0_05_ms_of_neuron():
    ref = difflab.datasets.load("hh/hh_step_10uA")
    ts = jnp.asarray(ref.time.values)
    traj = difflab.simulate(HodgkinHuxley.squid_axon(), difflab.Step(10.0, 10.0, 110.0), ts)
    spikes = np.asarray(spike_times(ts, traj.ys["V"]))
    spikes = spikes[~np.isnan(spikes)]
    want = ref.spike_times.values[0]
    want = want[~np.isnan(want)]
    assert len(spikes) == len(want) == 7
    errors = np.abs(spikes - want)
    rms = float(np.sqrt(np.mean((np.asarray(traj.ys["V"]) - ref.V.values[0]) ** 2)))
    print(f"spike-time errors (ms): {np.array2string(errors, precision=4)}; V RMS error {rms:.3f} mV")
    assert errors.max() < 0.05, errors
    assert rms < 1.0, rms  # measured 0.309 mV at the default dt = 5/64 ms (phase error in the spikes)


def test_coarse_fi_curve_within_1_Hz_at_every_current():
    ref = difflab.datasets.load("hh/hh_fi_curve_coarse")
    rates = jax.jit(lambda currents: fi_curve(HodgkinHuxley.squid_axon(), currents))(jnp.asarray(ref.current.values))
    diff = np.asarray(rates) - ref.rate.values
    print(f"F-I differences (Hz): {diff}")
    assert np.abs(diff).max() <= 1.0, diff
    assert np.asarray(rates)[2] > 60.0  # type II onset: 0 Hz at 5 µA/cm², ~69 Hz at 10


def test_recorded_input_held_at_its_sample_spacing_within_0_05_ms_of_neuron():
    # A recorded Ornstein–Uhlenbeck current held over every 0.025 ms sample: the default step (5/64 ms)
    # would step over the samples, so simulate shortens it to divide the spacing (0.025 ms).
    ref = difflab.datasets.load("hh/hh_ou_hold").sel(time=slice(0.0, 300.0))
    ts = jnp.asarray(ref.time.values)
    protocol = difflab.Sampled(ts, jnp.asarray(ref.I_stim.values))
    traj = difflab.simulate(HodgkinHuxley.squid_axon(), protocol, ts)
    assert dict(traj.provenance)["dt0"] == "0.025"
    spikes = np.asarray(spike_times(ts, traj.ys["V"], max_spikes=32))
    spikes = spikes[~np.isnan(spikes)]
    want = ref.spike_times.values[ref.spike_times.values < 300.0]
    assert len(spikes) == len(want) == 17
    errors = np.abs(spikes - want)
    print(f"largest spike-time error {errors.max():.4f} ms")
    assert errors.max() < 0.05, errors  # measured 0.012 ms over 300 ms (0.014 ms over the whole 1000 ms)
