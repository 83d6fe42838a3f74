"""Networks of HH point cells with delayed exponential synapses: NEURON's spike times, exact step means, bad input."""

import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.neuron import AlphaSynapses, ExpSynapses, HodgkinHuxley, Network

from ._spikes import assert_spikes_match


def test_five_cell_network_matches_neuron():
    """Every spike of every cell (6 each over 100 ms, through excitatory and inhibitory loops) within 0.05 ms."""
    ref = difflab.datasets.load("neuron/network")
    syn = ExpSynapses(ref["syn_pre"].values, ref["syn_post"].values, ref["syn_weight"].values,
                      ref["syn_delay"].values, ref["syn_tau"].values, ref["syn_e"].values)  # fmt: skip
    net = Network(HodgkinHuxley.squid_axon(), syn, 5)
    one_hot = np.eye(5)
    stim = difflab.Sum(difflab.Step(jnp.asarray(10 * one_hot[0]), 5.0, 95.0),
                       difflab.Step(jnp.asarray(4 * one_hot[2]), 30.0, 70.0))  # fmt: skip
    ts = ref["time"].values
    V = np.asarray(difflab.simulate(net, stim, ts)["V"])
    assert_spikes_match(ts, V, ref["spike_times"].values, count=6)


@pytest.mark.parametrize("kind", [ExpSynapses, AlphaSynapses])
def test_step_mean_is_the_exact_integral(kind):
    syn = kind([0], [0], weight=0.5, delay=1.0, tau=2.0)
    spikes = jnp.array([[3.0, -1e4]])
    t = np.linspace(3.5, 6.0, 200001)  # the spike arrives at 4.0 ms, inside [3.5, 6.0]
    g = np.asarray(syn.conductance(jnp.asarray(t)[:, None, None], spikes[None]))[:, 0]
    assert float(syn.mean_conductance(3.5, 6.0, spikes)[0]) == pytest.approx(np.trapezoid(g, t) / 2.5, rel=2e-5)


def test_bad_connectivity_is_refused():
    with pytest.raises(ValueError, match=r"synapses\[0\].post names cell 7, which is not in the network"):
        Network(HodgkinHuxley.squid_axon(), ExpSynapses([0], [7], 0.001, 1.0), 3)
    with pytest.raises(ValueError, match="delay must be > 0 ms"):
        ExpSynapses([0], [1], 0.001, 0.0)
    with pytest.raises(ValueError, match=r"weight must be a scalar or one value per synapse \(2\)"):
        ExpSynapses([0, 1], [1, 0], [0.1, 0.2, 0.3], 1.0)
