"""Spike trains of a network against a reference, cell by cell."""

import numpy as np

from difflab.neuron import spike_times


def assert_spikes_match(ts, V, reference_spikes, count, tolerance=0.05):
    """Every cell (column of `V`) fires `count` spikes, each within `tolerance` ms of the reference's."""
    for i in range(V.shape[1]):
        got = np.asarray(spike_times(ts, V[:, i]))
        got = got[np.isfinite(got)]
        want = reference_spikes[i]
        assert got.size == want.size == count
        assert np.max(np.abs(got - want)) < tolerance, (i, got, want)
