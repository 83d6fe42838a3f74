"""plot.spike_features on NEURON's squid axon under a 10 µA/cm² step: a marker where each feature was measured."""

import numpy as np
import pytest

import difflab
from difflab import plot
from difflab.neuron import spike_features

from ._render import render


@pytest.fixture(scope="module")
def trace():
    ref = difflab.datasets.load("hh/hh_step_10uA")
    ts = ref["time"].values
    V = ref["V"].isel(amplitude=0).values
    return ts, V, spike_features(ts, V, (10.0, 110.0))


def test_every_spike_is_marked_where_it_was_measured(trace):
    ts, V, f = trace
    ax = plot.spike_features(ts, V, f, stimulus=(10.0, 110.0))
    render(ax.figure)
    lines = {line.get_label(): line for line in ax.lines}
    n = int(f["Spikecount"])
    assert n == 7  # NEURON's seven spikes
    np.testing.assert_array_equal(lines["V"].get_ydata(), V)
    np.testing.assert_allclose(lines["peak"].get_xdata(), np.asarray(f["peak_time"])[:n])
    np.testing.assert_allclose(lines["peak"].get_ydata(), np.asarray(f["peak_voltage"])[:n])
    assert len(lines["AP begin"].get_xdata()) == n
    ahp = np.asarray(f["min_AHP_indices"])[:n]
    np.testing.assert_allclose(lines["AHP"].get_ydata(), V[ahp])  # on the trace, at eFEL's sample
    corner = ax.texts[0].get_text()
    assert "7 spikes" in corner and f"{float(f['mean_frequency']):.2f} Hz" in corner


def test_a_batch_of_traces_or_other_input_is_refused_by_name(trace):
    ts, V, f = trace
    with pytest.raises(ValueError, match="ts and V must be 1-D arrays of one length"):
        plot.spike_features(ts, np.stack([V, V]), f)
    with pytest.raises(ValueError, match="it lacks peak_time"):
        plot.spike_features(ts, V, {"Spikecount": 3})
    batch = spike_features(ts, np.stack([V, V]), (10.0, 110.0))
    with pytest.raises(ValueError, match="features must be those of one trace"):
        plot.spike_features(ts, V, batch)
