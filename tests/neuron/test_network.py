"""Networks of HH point cells with delayed exponential synapses: NEURON's spike times, exact step means, bad input."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.neuron import AlphaSynapses, Exp2Synapses, ExpSynapses, HodgkinHuxley, Network

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


def test_a_delay_shorter_than_the_step_is_refused():
    """A spike must not act inside the step that found it: a delay under dt0 would arrive a step late."""
    net = Network(HodgkinHuxley.squid_axon(), ExpSynapses([0], [1], 0.05, [0.01]), 2)
    ts, stim = jnp.arange(0.0, 0.5, 0.025), difflab.Step(10.0, 0.0, 5.0)
    with pytest.raises(Exception, match=r"a synaptic delay is shorter than the solver's step dt0"):
        difflab.simulate(net, stim, ts, dt0=0.025)["V"].block_until_ready()
    assert bool(difflab.simulate(net, stim, ts, dt0=0.01).succeeded)  # a delay of exactly one step is allowed


def test_cells_area_and_synapse_constraints_are_refused_by_name():
    """A network checks its cells' constraints as the point cell does, eagerly, under jit and per member."""
    net = Network(HodgkinHuxley.squid_axon(), ExpSynapses([0], [1], 0.05, 1.0), 2)
    with pytest.raises(ValueError, match=r"gNa must be >= 0 mS/cm\^2; got -20.0"):
        net.replace(gNa=-20.0)
    with pytest.raises(ValueError, match=r"cells.C must be > 0 uF/cm\^2; got 0.0"):
        net.replace(**{"cells.C": 0.0})
    with pytest.raises(ValueError, match=r"area must be > 0 um\^2; got 0.0"):
        Network(HodgkinHuxley.squid_axon(), ExpSynapses([0], [1], 0.05, 1.0), 2, area=0.0)
    ts, stim = jnp.arange(0.0, 0.5, 0.025), difflab.Step(10.0, 0.0, 5.0)
    with pytest.raises(Exception, match=r"gK must be >= 0 mS/cm\^2"):
        jax.jit(lambda g: difflab.simulate(net.replace(gK=g), stim, ts)["V"])(-1.0).block_until_ready()
    with pytest.raises(ValueError, match=r"gK must be >= 0 mS/cm\^2; got -1.0 \(member 1"):
        difflab.make_batch(net, gK=jnp.array([36.0, -1.0]))
    traced = jax.vmap(lambda g: difflab.simulate(net.replace(gK=g), stim, ts, throw=False).succeeded)
    assert np.asarray(traced(jnp.array([36.0, -1.0]))).tolist() == [True, False]


def _small_network(dtype=jnp.float64):
    from difflab.neuron import Exp2Synapses

    syn = ExpSynapses([0, 1], [1, 2], [0.0006, 0.0005], [1.5, 1.0], tau=2.0)
    inhibitory = Exp2Synapses([2], [0], 0.0004, 2.0, tau1=0.5, tau2=3.0, E=-80.0)
    stim = difflab.Step(jnp.array([10.0, 0.0, 0.0], dtype), 5.0, 45.0)
    return Network(HodgkinHuxley.squid_axon(dtype), [syn, inhibitory], 3), stim


def test_float32_network_stays_float32():
    """Synapses built in float64 follow the cells' float32 (measured 0.0073 mV from float64 over 50 ms)."""
    ts = np.linspace(0.0, 50.0, 201)
    net64, stim64 = _small_network()
    net32, stim32 = _small_network(jnp.float32)
    V32 = difflab.simulate(net32, stim32, ts.astype(np.float32))["V"]
    assert V32.dtype == jnp.float32
    assert float(np.max(np.asarray(V32))) > 20.0  # cells fired: the synapses acted
    np.testing.assert_allclose(V32, difflab.simulate(net64, stim64, ts)["V"], atol=0.05)


def test_float32_network_takes_a_float64_recording():
    """A recorded input arrives as float64 (NumPy's default): a float32 network takes it in its own precision and
    stays within 0.001 ms of float64 on every spike (it had stopped with a type error)."""
    from difflab.neuron import spike_times

    rng = np.random.default_rng(3)
    times = np.arange(0.0, 40.1, 0.1)
    recording = difflab.Sampled(times, 9.0 + 2.0 * rng.standard_normal((times.size, 3)))  # µA/cm², float64
    ts = np.arange(0.0, 40.0, 0.025)
    runs = {}
    for dtype in (jnp.float32, jnp.float64):
        net, _ = _small_network(dtype)
        runs[dtype] = difflab.simulate(net, recording, ts.astype(dtype))["V"]
    assert runs[jnp.float32].dtype == jnp.float32
    for cell in range(3):
        got, want = (np.asarray(spike_times(ts, np.asarray(runs[d][:, cell], np.float64), max_spikes=8))
                     for d in (jnp.float32, jnp.float64))  # fmt: skip
        assert np.isfinite(want).sum() >= 2  # every cell fired
        np.testing.assert_allclose(got, want, atol=0.001)


def test_gradient_in_the_weights_matches_central_differences():
    """Reverse mode through spikes, delays and synapse states (jitted) against central differences with a step of
    1e-8 µS (1e-6 µS crosses a kink of the spike-timing map): 1e-5 relative; measured 1e-7."""
    ts = np.linspace(0.0, 50.0, 201)
    net, stim = _small_network()

    def loss(w):
        return jnp.mean(difflab.simulate(net.replace(**{"synapses.0.weight": w}), stim, ts).ys["V"][:, 2])

    w0 = jnp.array([0.0006, 0.0005])
    grad = jax.jit(jax.grad(loss))(w0)
    h = 1e-8
    central = [(loss(w0.at[i].add(h)) - loss(w0.at[i].add(-h))) / (2 * h) for i in range(2)]
    np.testing.assert_allclose(grad, np.array(central), rtol=1e-5)


def test_one_pass_over_mixed_populations_is_each_population_own_step():
    """Exp, alpha and Exp2 populations, with shared time constants (one number per population) and per-synapse
    ones: the network's one pass over all synapses gives what each population's own step gives (1e-13 relative,
    1e-16 µS over 400 steps of 0.025 ms with spikes arriving), in the state's layout (populations by rows, the
    ExpSynapses in the first column)."""
    populations = [
        ExpSynapses([0, 1, 2], [1, 2, 3], [0.5, 0.2, 0.1], [1.0, 1.3, 2.2], tau=2.0),
        AlphaSynapses([3, 1], [0, 0], [0.3, 0.4], [0.7, 1.9], tau=[1.0, 3.0], E=-80.0),
        Exp2Synapses([2, 0, 3, 1], [0, 3, 1, 2], 0.2, [0.5, 0.9, 1.4, 3.0], tau1=0.5, tau2=3.0),
    ]
    net = Network(HodgkinHuxley.squid_axon(), populations, 4)
    spikes = jnp.array(
        [[6.01, 3.0, 0.37, -1e4], [4.2, 1.111, -1e4, -1e4], [2.5, -1e4, -1e4, -1e4], [0.05] + [-1e4] * 3]
    )
    state = net.initial_state()["synapses"]
    assert state.shape == (9, 2)
    own = [syn.initial_state() for syn in populations]

    @jax.jit
    def both(state, own, t0, t1):
        steps = [syn.advance(s, t0, t1, spikes) for syn, s in zip(populations, own, strict=True)]
        return net.advance_synapses(state, t0, t1, spikes), steps

    h, t0 = 0.025, 0.0
    for _ in range(400):  # each step starts where the last ended, as in diffrax
        (*got, state, _), steps = both(state, own, jnp.asarray(t0), jnp.asarray(t0 + h))
        own = [s[3] for s in steps]
        want = [np.concatenate([s[j] for s in steps]) for j in range(3)]
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-13, atol=1e-16)
        np.testing.assert_allclose(np.asarray(state[:3, 0]), np.asarray(own[0][:, 0]), rtol=1e-13, atol=1e-16)
        np.testing.assert_allclose(np.asarray(state[3:]), np.asarray(jnp.concatenate(own[1:])), rtol=1e-13, atol=1e-16)
        t0 = t0 + h
    assert np.all(np.asarray(state[:3, 1]) == 0.0)
    assert float(np.max(want[1])) > 0.05  # spikes did arrive (µS)
