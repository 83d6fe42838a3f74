"""A single-compartment L5PC soma (BluePyOpt's released somatic densities) against NEURON 9, and the library
channels in a multi-compartment cell.

NEURON's reference is `datasets/neuron/l5pc_channels.nc` (current clamp, CVODE at 1e-10).
"""

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _systems import l5pc_soma_calcium, l5pc_soma_channels

import difflab
from difflab.neuron import Cell, HodgkinHuxley, IClamp, Morphology, Region, Section, spike_times
from difflab.neuron.channels import SK_E2, Ca_HVA, Ih, NaTs2_t, SKv3_1, pas


@pytest.fixture(scope="module")
def ref():
    return difflab.datasets.load("neuron/l5pc_channels")


def _soma():
    """The generator's current-clamp cell: BluePyOpt's released somatic L5PC densities (S/cm² × 1000)."""
    return HodgkinHuxley(channels=l5pc_soma_channels(), concentrations=l5pc_soma_calcium(), celsius=34.0, v_init=-65.0)


STIMULUS = difflab.Step(10.0, 20.0, 220.0)  # 0.01 nA on 100 µm² on [20, 220) ms


def _spikes(ts, V):
    got = np.asarray(spike_times(jnp.asarray(ts), jnp.asarray(V)))
    return got[np.isfinite(got)]


def _reference_spikes(ref):
    """NEURON's spike times read from its V samples as ours are: its NetCon's own, interpolated within CVODE's step,
    differ by up to 0.0026 ms from the linear interpolation between 0.025 ms samples."""
    want = _spikes(ref.cc_time.values, ref.cc_V.values)
    assert np.max(np.abs(want - ref.cc_spike_times.values)) < 0.003
    return want


def test_current_clamp_matches_neuron_adaptive(ref):
    """The soma's 9 spikes within 1e-4 ms of NEURON's, V and cai along the whole trace (adaptive Tsit5)."""
    ts = jnp.asarray(ref.cc_time.values)
    controller = diffrax.PIDController(rtol=1e-9, atol=1e-12)
    traj = difflab.simulate(_soma(), STIMULUS, ts, solver=diffrax.Tsit5(), stepsize_controller=controller)
    got, want = _spikes(ts, traj.ys["V"]), _reference_spikes(ref)
    assert got.size == want.size == 9
    assert np.max(np.abs(got - want)) < 1e-4, got - want
    assert np.max(np.abs(np.asarray(traj.ys["V"]) - ref.cc_V.values)) < 0.05
    np.testing.assert_allclose(np.asarray(traj.ys["cai"]), ref.cc_cai.values, rtol=1e-4)


def test_current_clamp_fixed_step_spike_times(ref):
    """The default solver (Rush–Larsen gates and cai, Crank–Nicolson V) at 1/160 ms: every spike within 0.02 ms."""
    ts = jnp.asarray(ref.cc_time.values)
    traj = difflab.simulate(_soma(), STIMULUS, ts, dt0=0.00625)
    got, want = _spikes(ts, traj.ys["V"]), _reference_spikes(ref)
    assert got.size == want.size
    assert np.max(np.abs(got - want)) < 0.02, got - want
    np.testing.assert_allclose(np.asarray(traj.ys["cai"]), ref.cc_cai.values, rtol=2e-3)


def test_current_clamp_at_the_default_step(ref):
    """The default step follows Σḡ/C (1298 mS/µF, 4.15 × twice hh's): 5/512 ms, every spike within 0.025 ms of
    NEURON.

    Measured 0.013 ms (at 5/256 ms 0.094; with the former Crank–Nicolson voltage update 0.044 and 0.40 ms, and
    the former default step, 5/128 ms, failed)."""
    cell = _soma()
    assert cell.default_dt0() == 5 / 512
    ts = jnp.asarray(ref.cc_time.values)
    traj = difflab.simulate(cell, STIMULUS, ts)
    got, want = _spikes(ts, traj.ys["V"]), _reference_spikes(ref)
    assert got.size == want.size == 9
    assert np.max(np.abs(got - want)) < 0.025, got - want
    np.testing.assert_allclose(np.asarray(traj.ys["cai"]), ref.cc_cai.values, rtol=3e-3)


def _ball_and_stick():
    morph = Morphology(
        [Section.cylinder("soma", 20.0, 20.0), Section.cylinder("dend", 200.0, 2.0, parent="soma", nseg=5)]
    )
    soma = Region(
        {"NaTs2_t": NaTs2_t(gbar=300.0), "SKv3_1": SKv3_1(gbar=100.0, E=-85.0), "Ca_HVA": Ca_HVA(gbar=1.0),
         "pas": pas(g=0.03, E=-75.0)}
    )  # fmt: skip
    dend = Region({"pas": pas(g=0.03, E=-75.0), "Ih": Ih(gbar=0.1)}, cm=2.0)
    return morph, Cell(morph, {"soma": soma, "dend": dend}, celsius=34.0)


def test_library_channels_in_a_multicompartment_cell():
    """Channels with a temperature rule (a nested module) run in a Cell and are parameters by name."""
    morph, cell = _ball_and_stick()
    assert "soma.temperature.q10_NaTs2_t" in cell.parameters()
    assert float(cell.replace(**{"soma.gbar_NaTs2_t": 200.0}).parameters()["soma.gbar_NaTs2_t"]) == 200.0
    traj = difflab.simulate(cell, IClamp({"soma(0.5)": difflab.Step(0.5, 5.0, 25.0)}), jnp.arange(0.0, 30.0, 0.025))
    V = np.asarray(traj.ys["V"])
    assert V[:, 0].max() > 30.0 and np.all(np.isfinite(V))
    with pytest.raises(ValueError, match="region 'soma': channel 'SK_E2' reads 'cai' but no concentration mechanism"):
        Cell(morph, {"soma": Region({"SK_E2": SK_E2()}), "dend": Region({"pas": pas()})})


def test_gradient_through_calcium_matches_finite_differences():
    """d(mean V)/d(gamma) through cai, SK_E2 and the Nernst potential: autodiff equals central differences."""
    ts = jnp.arange(0.0, 60.0, 0.025)

    def mean_v(gamma):
        cell = _soma().replace(**{"concentrations.ca.gamma": gamma})
        return jnp.mean(difflab.simulate(cell, STIMULUS, ts, dt0=0.0125).ys["V"])

    gamma, eps = 0.01, 1e-6
    grad = float(jax.grad(mean_v)(gamma))
    fd = (float(mean_v(gamma + eps)) - float(mean_v(gamma - eps))) / (2 * eps)
    assert np.isfinite(grad) and grad != 0.0
    assert grad == pytest.approx(fd, rel=1e-4)


def test_float32_soma_stays_finite(ref):
    ts = jnp.asarray(ref.cc_time.values, jnp.float32)
    traj = difflab.simulate(_soma().astype(jnp.float32), STIMULUS, ts, dt0=0.00625)
    assert traj.ys["cai"].dtype == jnp.float32 and bool(jnp.all(jnp.isfinite(traj.ys["V"])))
    got = _spikes(ts, traj.ys["V"])
    assert got.size == 9 and np.max(np.abs(got - _reference_spikes(ref))) < 0.05


def test_point_cell_states_and_parameters():
    cell = _soma()
    names = [s.name for s in cell.states]
    assert names[0] == "V" and names[-1] == "cai" and "z_SK_E2" in names
    y0 = cell.initial_state()
    assert float(y0["cai"]) == 5e-5
    assert "concentrations.ca.gamma" in cell.parameters() and "gNa" not in cell.parameters()
