"""Spike features on signals with known crossings; the rheobase bisection."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from difflab.neuron import (
    HodgkinHuxley,
    firing_rate,
    rheobase,
    soft_spike_count,
    spike_count,
    spike_times,
)

TS = jnp.arange(0.0, 100.0, 0.025)


def sine(period, phase=0.0):
    """30 sin(2π (t - phase)/period) - 10: upward 0 crossings at phase + period (k + asin(1/3)/2π)."""
    return 30 * jnp.sin(2 * jnp.pi * (TS - phase) / period) - 10


def crossings(period, phase=0.0):
    first = phase + period * np.arcsin(1 / 3) / (2 * np.pi)
    out = first + period * np.arange(0, 200)
    return out[(out > 0) & (out < float(TS[-1]))]


def test_spike_times_are_interpolated_crossings_batched_and_nan_padded():
    V = jnp.stack([jnp.stack([sine(20.0), sine(12.5, 3.0)]), jnp.stack([sine(40.0, 1.0), -70.0 + 0 * TS])])
    got = np.asarray(jax.jit(spike_times, static_argnames="max_spikes")(TS, V, max_spikes=10))
    assert got.shape == (2, 2, 10)
    for (i, j), (period, phase) in {(0, 0): (20.0, 0.0), (0, 1): (12.5, 3.0), (1, 0): (40.0, 1.0)}.items():
        want = crossings(period, phase)
        np.testing.assert_allclose(got[i, j, : len(want)], want, atol=2e-4)
        assert np.isnan(got[i, j, len(want) :]).all()
    assert np.isnan(got[1, 1]).all()
    counts = np.asarray(spike_count(TS, V))
    np.testing.assert_array_equal(counts, [[5, 8], [3, 0]])
    rate = firing_rate(TS, V, window=(0.0, 100.0))
    np.testing.assert_allclose(rate, counts * 10.0)  # spikes per 100 ms -> Hz
    np.testing.assert_array_equal(spike_count(TS, V, window=(25.0, 75.0))[0, 0], 2)


def test_soft_spike_count_approximates_count_and_has_a_gradient():
    V = sine(20.0)
    np.testing.assert_allclose(soft_spike_count(V, width=1.0), 5.0, atol=0.05)
    grad = jax.grad(lambda a: soft_spike_count(a * V - 10.0 * (1 - a), width=1.0))(1.0)
    assert np.isfinite(grad)


@pytest.mark.slow
def test_rheobase_matches_neuron_thresholds():
    """NEURON: any spike from 2.211 µA/cm²; sustained firing (F-I protocol) from 6.215 (6.2149-6.2157)."""
    model = HodgkinHuxley.squid_axon()
    any_spike = float(rheobase(model, kind="any", low=1.0, high=4.0, tol=2e-3))
    assert abs(any_spike - 2.211) < 0.004, any_spike
    sustained = rheobase(
        model, kind="sustained", low=6.15, high=6.3, tol=2e-3, start=0.0, stop=1100.0, window=(100.0, 1100.0), dt0=0.025
    )
    assert abs(float(sustained) - 6.2153) < 0.004, float(sustained)
    with pytest.raises(ValueError, match="rheobase must be bracketed"):
        rheobase(model, kind="any", low=3.0, high=8.0, tol=1.0)
    with pytest.raises(ValueError, match="kind must be 'any' or 'sustained'"):
        rheobase(model, kind="tonic")
