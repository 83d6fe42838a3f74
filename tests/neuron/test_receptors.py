"""NMDA receptors (the Jahr–Stevens magnesium block) and Tsodyks–Markram short-term plasticity: the recursion's
closed forms, the network's conductances against the exact kernels, second order with the block, gradients, bad
input.

Systems: cell 0 a squid-axon cell firing under 10 µA/cm² from 0 ms; cell 1 passive (no sodium or potassium,
leak reversal -40 mV, starting there), so its potential is known and stays near -40 mV for a small weight.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.neuron import (
    Exp2Synapses,
    ExpSynapses,
    HodgkinHuxley,
    Network,
    NMDASynapses,
    TsodyksMarkram,
    magnesium_block,
)

from ._spikes import assert_spikes_match

HOLD = -40.0  # mV, the passive cell's rest
TS = np.linspace(0.0, 40.0, 161)  # ms
STIM = difflab.Step(jnp.array([10.0, 0.0]), 0.0, 100.0)


def _cells():
    return HodgkinHuxley.squid_axon().replace(
        gNa=jnp.array([120.0, 0.0]), gK=jnp.array([36.0, 0.0]), EL=jnp.array([-54.3, HOLD]),
        v_init=jnp.array([-65.0, HOLD]),
    )  # fmt: skip


def _kernel_exp2(u, tau1, tau2):
    """exp2syn.mod's kernel, peak 1: factor (e^{-u/τ2} − e^{-u/τ1}) for u >= 0."""
    tp = tau1 * tau2 / (tau2 - tau1) * np.log(tau2 / tau1)
    factor = 1 / (np.exp(-tp / tau2) - np.exp(-tp / tau1))
    return np.where(u >= 0, factor * (np.exp(-np.maximum(u, 0) / tau2) - np.exp(-np.maximum(u, 0) / tau1)), 0.0)


# ---------------------------------------------------------------- Tsodyks–Markram


def _train(tm, period, n):
    """Amplitudes u_n R_n and states of a regular train of ``n`` arrivals, through `TsodyksMarkram.arrive`."""

    def arrive(state, t):
        amplitude, state = tm.arrive(state, t[None], jnp.array([True]))
        return state, amplitude[0]

    times = 5.0 + period * jnp.arange(n, dtype=jnp.float64)
    state, amplitudes = jax.lax.scan(arrive, TsodyksMarkram.initial_state(1, jnp.float64), times)
    return np.asarray(amplitudes), np.asarray(state[0])


def test_depressing_train_first_amplitudes_and_steady_state():
    """U = 0.5, τ_rec = 800 ms, no facilitation, 50 Hz: by hand A1 = 0.5, A2 = 0.5 (1 − 0.5 d),
    A3 = 0.5 (1 − (1 − 0.5 R2) d) with d = e^{−20/800}; the train settles at U R_∞ (1e-12 after 200 spikes)."""
    tm = TsodyksMarkram(U=0.5, tau_rec=800.0, tau_facil=0.0)
    A, (u, R, _) = _train(tm, 20.0, 200)
    d = np.exp(-20.0 / 800.0)
    R2 = 1 - 0.5 * d
    np.testing.assert_allclose(A[:3], [0.5, 0.5 * R2, 0.5 * (1 - (1 - 0.5 * R2) * d)], rtol=1e-14)
    u_inf, R_inf = (float(v) for v in tm.steady_state(20.0))
    assert u_inf == 0.5 and R_inf == pytest.approx((1 - d) / (1 - 0.5 * d), rel=1e-14)
    assert (u, R) == pytest.approx((u_inf, R_inf), rel=1e-12)
    assert A[-1] == pytest.approx(u_inf * R_inf, rel=1e-12)


def test_facilitating_train_first_amplitudes_and_steady_state():
    """U = 0.1, τ_rec = 100 ms, τ_facil = 1000 ms, 50 Hz: u2 = 0.1 + 0.09 f, R2 = 1 − 0.1 d (f = e^{−0.02},
    d = e^{−0.2}); A3 by the recursion written out; u_∞ = U / (1 − (1 − U) f) and R_∞ (1e-12)."""
    tm = TsodyksMarkram(U=0.1, tau_rec=100.0, tau_facil=1000.0)
    A, (u, R, _) = _train(tm, 20.0, 600)
    f, d = np.exp(-20.0 / 1000.0), np.exp(-20.0 / 100.0)
    u2, R2 = 0.1 + 0.1 * 0.9 * f, 1 - 0.1 * d
    u3 = u2 * f + 0.1 * (1 - u2 * f)
    R3 = 1 - (1 - R2 * (1 - u2)) * d
    np.testing.assert_allclose(A[:3], [0.1, u2 * R2, u3 * R3], rtol=1e-14)
    u_inf = 0.1 / (1 - 0.9 * f)
    R_inf = (1 - d) / (1 - (1 - u_inf) * d)
    np.testing.assert_allclose(np.array(tm.steady_state(20.0)), [u_inf, R_inf], rtol=1e-14)
    assert (u, R) == pytest.approx((u_inf, R_inf), rel=1e-12)
    assert A[-1] > 1.5 * A[0]  # facilitation: later spikes deliver more (measured 1.76 times)


def _plastic_network(U):
    syn = ExpSynapses([0], [1], 0.0002, 1.5, tau=3.0, plasticity=TsodyksMarkram(U=U, tau_rec=60.0, tau_facil=30.0))
    return Network(_cells(), syn, 2, buffer=8)


PLASTIC = _plastic_network(0.3)


@jax.jit
def _run_plastic(U):
    return difflab.simulate(PLASTIC.replace(**{"synapses.0.plasticity.U": U}), STIM, TS).ys


def test_network_delivers_the_recursions_amplitudes():
    """Cell 0 fires 3 spikes in 40 ms; the network's kernel sum at the end is Σ A_n e^{−(t − t_n − d)/τ} with
    A_n from the recursion at the spikes' arrivals (spike times from the network's own buffer): 1e-12."""
    ys = _run_plastic(jnp.asarray(0.3))
    spikes = np.sort(np.asarray(ys["spikes"][-1, 0]))
    arrivals = spikes[spikes > 0] + 1.5
    arrivals = arrivals[arrivals < TS[-1]]
    assert arrivals.size >= 3
    tm = TsodyksMarkram(U=0.3, tau_rec=60.0, tau_facil=30.0)
    state, A = TsodyksMarkram.initial_state(1, jnp.float64), []
    for t in arrivals:
        amplitude, state = tm.arrive(state, jnp.array([t]), jnp.array([True]))
        A.append(float(amplitude[0]))
    assert A[1] != pytest.approx(A[0], rel=1e-3)  # plasticity acted
    want = np.sum(np.array(A) * np.exp(-(TS[-1] - arrivals) / 3.0))
    assert float(ys["synapses"][-1, 0, 0]) == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(np.asarray(ys["plasticity"][-1, 0]), np.asarray(state[0]), rtol=1e-12)


def test_gradient_in_U_matches_central_differences():
    """d(mean V of cell 1)/dU, reverse mode through the arrivals' amplitudes, against central differences with a
    step of 1e-6: 1e-6 relative."""

    def loss(U):
        return jnp.mean(_run_plastic(U)["V"][:, 1])

    U0 = jnp.asarray(0.3)
    grad = float(jax.jit(jax.grad(loss))(U0))
    h = 1e-6
    central = float((loss(U0 + h) - loss(U0 - h)) / (2 * h))
    assert abs(grad) > 1e-2  # the synapse moves cell 1
    assert grad == pytest.approx(central, rel=1e-6)


def test_bad_plasticity_is_refused_by_name():
    with pytest.raises(ValueError, match=r"U must be in \(0, 1\]"):
        TsodyksMarkram(U=0.0)
    with pytest.raises(ValueError, match=r"U must be in \(0, 1\]"):
        TsodyksMarkram(U=1.2)
    with pytest.raises(ValueError, match="tau_rec must be >= 0 ms; got -1"):
        TsodyksMarkram(tau_rec=-1.0)
    with pytest.raises(ValueError, match="tau_facil must be >= 0 ms; got -5"):
        TsodyksMarkram(tau_facil=-5.0)
    with pytest.raises(ValueError, match=r"plasticity.U must be a scalar or one value per synapse \(2\)"):
        ExpSynapses([0, 1], [1, 0], 0.001, 1.0, plasticity=TsodyksMarkram(U=[0.1, 0.2, 0.3]))
    with pytest.raises(ValueError, match=r"synapses.0.plasticity.U must be in \(0, 1\]"):
        PLASTIC.replace(**{"synapses.0.plasticity.U": 1.5})


# ---------------------------------------------------------------- NMDA


def test_magnesium_block_values():
    """B(0 mV, 1 mM) = 3.57/4.57 exactly; at −65 mV, 2 mM and +20 mV, 1 mM from the formula written out."""
    assert float(magnesium_block(0.0, 1.0)) == pytest.approx(3.57 / 4.57, rel=1e-15)
    assert float(magnesium_block(-65.0, 2.0)) == pytest.approx(1 / (1 + np.exp(0.062 * 65) * 2 / 3.57), rel=1e-14)
    assert float(magnesium_block(20.0, 1.0)) == pytest.approx(1 / (1 + np.exp(-1.24) / 3.57), rel=1e-14)
    assert float(magnesium_block(-65.0, 1.0)) == pytest.approx(0.0597, abs=1e-4)


def _nmda_network(weight, mg=1.0):
    return Network(_cells(), NMDASynapses([0], [1], weight, 1.0, tau1=2.0, tau2=20.0, mg=mg), 2)


NMDA = _nmda_network(1e-6)


@functools.partial(jax.jit, static_argnums=1)
def _run_nmda(weight, dt0):
    return difflab.simulate(NMDA.replace(**{"synapses.0.weight": weight}), STIM, TS, dt0=dt0).ys


def test_single_event_is_the_exp2_kernel_times_the_block():
    """A small weight keeps cell 1 within 0.1 mV of −40 mV: its synaptic conductance, at every saved time, is
    w K_Exp2(t − t_s − d) B(V(t)) · 1e5/area with V(t) the cell's saved potential and t_s the first spike: 1e-10."""
    w = 1e-6
    ys = _run_nmda(jnp.asarray(w), 0.025)
    net = _nmda_network(w)
    spikes = np.asarray(ys["spikes"][-1, 0])
    t_spike = float(spikes[spikes > 0].min())
    assert 1.0 < t_spike < 3.0
    G = np.array([float(net.synaptic_conductance({k: v[i] for k, v in ys.items()})[0][1]) for i in range(TS.size)])
    V = np.asarray(ys["V"][:, 1])
    assert np.max(np.abs(V - HOLD)) < 0.1
    # only the first spike's kernel: the second arrives later than its first 12 ms
    window = TS < t_spike + 1.0 + 12.0
    want = w * _kernel_exp2(TS - t_spike - 1.0, 2.0, 20.0) * (1 / (1 + np.exp(-0.062 * V) / 3.57)) * 1e5 / 100.0
    assert want[window].max() > 0.1 * w * 1e3  # the event's peak (B(-40 mV) = 0.23) is inside the window
    np.testing.assert_allclose(G[window], want[window], rtol=1e-10, atol=1e-15)


def test_block_at_the_midpoint_is_second_order():
    """A weight that depolarises cell 1 by 32 mV (its block goes from 0.23 to about 0.6 along the event): the
    error of V at dt = 0.025 and 0.0125 ms against dt = 0.0015625 ms falls by about 4 (order 2; measured 3.46,
    then 3.76 from 0.0125 to 0.00625 ms)."""
    w = jnp.asarray(0.001)
    runs = {dt: np.asarray(_run_nmda(w, dt)["V"][:, 1]) for dt in (0.025, 0.0125, 0.0015625)}
    assert np.ptp(runs[0.0015625]) > 20.0  # the synapse moved the potential
    e1, e2 = (np.max(np.abs(runs[dt] - runs[0.0015625])) for dt in (0.025, 0.0125))
    assert e1 < 0.01  # mV
    assert 3.0 < e1 / e2 < 5.0


def test_bad_nmda_input_is_refused_by_name():
    with pytest.raises(ValueError, match="mg must be > 0 mM"):
        NMDASynapses([0], [1], 0.001, 1.0, mg=0.0)
    with pytest.raises(ValueError, match="mg must be > 0 mM"):
        NMDASynapses([0], [1], 0.001, 1.0, mg=-1.0)
    with pytest.raises(ValueError, match=r"tau1 must be < tau2"):
        NMDASynapses([0], [1], 0.001, 1.0, tau1=50.0, tau2=20.0)
    with pytest.raises(ValueError, match=r"synapses.0.mg must be > 0 mM"):
        _nmda_network(0.001).replace(**{"synapses.0.mg": 0.0})


def test_plastic_and_static_populations_in_one_pass():
    """A plastic ExpSynapses population beside a static Exp2Synapses one, stepped by the network's one pass over
    400 steps: the plastic rows hold Σ A_n e^{−(t − a_n)/τ} with A_n from the recursion at the arrivals a_n, the
    static rows their population's own step (1e-12)."""
    tm = TsodyksMarkram(U=0.4, tau_rec=5.0, tau_facil=3.0)
    plastic = ExpSynapses([0, 1], [1, 0], [0.5, 0.2], [1.0, 1.3], tau=2.0, plasticity=tm)
    static = Exp2Synapses([0], [1], 0.3, 2.2, tau1=0.5, tau2=3.0)
    net = Network(HodgkinHuxley.squid_axon(), [plastic, static], 2)
    spikes = jnp.array([[6.01, 3.0, 0.37, -1e4], [4.2, 1.111, -1e4, -1e4]])  # ms, newest first

    @jax.jit
    def step(state, plastic_state, own, t0, t1):
        *_, state, plastic_state = net.advance_synapses(state, t0, t1, spikes, plastic_state)
        return state, plastic_state, static.advance(own, t0, t1, spikes)[3]

    y = net.initial_state()
    state, plastic_state, own, t0 = y["synapses"], y["plasticity"], static.initial_state(), 0.0
    for _ in range(400):
        state, plastic_state, own = step(state, plastic_state, own, jnp.asarray(t0), jnp.asarray(t0 + 0.025))
        t0 = t0 + 0.025
    for k, (cell, delay) in enumerate([(0, 1.0), (1, 1.3)]):
        arrivals = np.sort(np.asarray(spikes[cell])[np.asarray(spikes[cell]) > 0]) + delay
        tm_state, A = TsodyksMarkram.initial_state(1, jnp.float64), []
        for a in arrivals:
            amplitude, tm_state = tm.arrive(tm_state, jnp.array([a]), jnp.array([True]))
            A.append(float(amplitude[0]))
        want = np.sum(np.array(A) * np.exp(-(t0 - arrivals) / 2.0))
        assert float(state[k, 0]) == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(np.asarray(state[2:]), np.asarray(own), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.asarray(plastic_state[2]), [0.0, 1.0, -1e4])  # the static row is left alone


def test_nmda_pair_matches_neuron():
    """Two hh cells, one NMDA synapse (NEURON 9 with an Exp2Syn-times-block mechanism, CVODE 1e-9; cell 1 fires
    4 spikes, all driven by the synapse): every spike of both cells within 0.02 ms at the default step (measured
    0.0058 ms; 0.0035 ms at 0.0125 ms)."""
    ref = difflab.datasets.load("neuron/network_nmda")
    a = ref.attrs
    syn = NMDASynapses([0], [1], a["nmda_weight"], a["nmda_delay"], tau1=a["nmda_tau1"], tau2=a["nmda_tau2"],
                       E=a["nmda_e"], mg=a["nmda_mg"])  # fmt: skip
    net = Network(HodgkinHuxley.squid_axon(), syn, 2)
    ts = ref["time"].values
    V = np.asarray(difflab.simulate(net, difflab.Step(jnp.array([10.0, 0.0]), 5.0, 45.0), ts)["V"])
    spikes = ref["spike_times"].values
    for cell, count in ((0, 3), (1, 4)):
        assert_spikes_match(ts, V[:, [cell]], spikes[[cell]][:, :count], count=count, tolerance=0.02)
