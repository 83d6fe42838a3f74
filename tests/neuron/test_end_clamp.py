"""Point currents and recordings at the zero-area ends of sections (`dend(1)`, `soma(0)`), as NEURON 9 has them.

A current into an end node flows on into its neighbouring compartments, each taking its share of the node's
axial conductance, and the node's potential carries the drop I / Σg (datasets/neuron/end_clamp.nc).
"""

import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.neuron import (
    Cell,
    IClamp,
    LeakChannel,
    Morphology,
    PotassiumChannel,
    Region,
    Section,
    SodiumChannel,
    spike_times,
)


def _cell():
    """As generate_end_clamp.py: hh soma, passive dendrites at soma(1) and soma(0)."""
    hh = {"na": SodiumChannel(120.0, 50.0), "k": PotassiumChannel(36.0, -77.0), "leak": LeakChannel(0.3, -54.3)}
    pas = {"leak": LeakChannel(0.1, -65.0)}
    morph = Morphology([
        Section.cylinder("soma", 20.0, 20.0),
        Section.cylinder("dend", 200.0, 1.0, parent="soma", nseg=5),
        Section.cylinder("dend2", 100.0, 2.0, parent="soma", parent_x=0.0, nseg=3),
    ])  # fmt: skip
    return Cell(morph, {"soma": Region(hh, Ra=100.0), "dend": Region(pas, Ra=100.0), "dend2": Region(pas, Ra=100.0)})


STIM = IClamp({"dend(1)": difflab.Step(0.3, 5.0, 25.0), "soma(0)": difflab.Step(0.05, 15.0, 35.0)})


def test_end_clamps_match_neuron():
    """0-22 ms at the default step: V at both clamped ends and beside them within 0.05 mV RMS of NEURON (CVODE,
    1e-9), the three spikes at soma(0.5) and dend(0.9) within 0.002 ms."""
    ref = difflab.datasets.load("neuron/end_clamp")
    ts = ref["time"].values[:881]
    cell = _cell()
    observe, info = cell.recorder([str(loc) for loc in ref["location"].values])
    traj = difflab.simulate(cell, STIM, ts, observe=observe, observe_info=info)
    for k, loc in enumerate(ref["location"].values):
        got, want = np.asarray(traj[str(loc)]), ref["V"].values[:881, k]
        assert np.sqrt(np.mean((got - want) ** 2)) < 0.05, loc  # measured 0.041 mV at soma(0.5)
    for site in ("soma(0.5)", "dend(0.9)"):
        got = np.asarray(spike_times(ts, traj[site]))
        want = np.asarray(spike_times(ts, ref["V"].sel(location=site).values[:881]))
        np.testing.assert_allclose(got[np.isfinite(got)], want[np.isfinite(want)], atol=0.002)


def test_the_tip_carries_the_half_segment_drop():
    """At rest, 0.3 nA at dend(1) raises the tip above its last compartment by I × (half-segment resistance)."""
    cell = _cell()
    V = cell.initial_state()["V"]
    morph = cell.morphology
    g_tip = float(cell.axial_conductance()[morph.node("dend(1)")])  # µS: last compartment to the tip
    stim = IClamp({"dend(1)": difflab.Constant(0.3)})
    tip = cell.voltage_at(V, "dend(1)", stim, 1.0)
    assert float(tip - V[morph.node("dend(0.9)")]) == pytest.approx(0.3 / g_tip, rel=1e-12)
    assert 0.3 / g_tip == pytest.approx(0.3 * 1e-2 * 100.0 * 4 * 20.0 / (np.pi * 1.0**2), rel=1e-12)  # 0.76 mV
    # the whole current enters the last compartment: the density there is 1e5 I / A
    density = cell.stimulus_density(stim, 1.0, V)
    A = morph.area[morph.node("dend(0.9)")]
    np.testing.assert_allclose(np.asarray(density), np.where(np.arange(V.size) == morph.node("dend(0.9)"),
                                                             1e5 * 0.3 / A, 0.0), rtol=1e-12)  # fmt: skip


def test_a_current_at_a_junction_is_shared_by_conductance():
    """soma(0) joins the soma's compartment and dend2's first: each takes g_j / (g_1 + g_2) of the current."""
    cell = _cell()
    morph = cell.morphology
    V = cell.initial_state()["V"]
    g = np.asarray(cell.axial_conductance())
    (soma, e1), (first, e2) = morph.end_neighbours(morph.node("soma(0)"))
    density = np.asarray(cell.stimulus_density(IClamp({"soma(0)": difflab.Constant(1.0)}), 0.0, V))
    share = np.array([g[e1], g[e2]]) / (g[e1] + g[e2])
    np.testing.assert_allclose(density[[soma, first]] * morph.area[[soma, first]] / 1e5, share, rtol=1e-12)
    assert {soma, first} == {morph.node("soma(0.5)"), morph.node("dend2(0.1)")}
    assert jnp.sum(density * morph.area[: morph.n_segments] / 1e5) == pytest.approx(1.0, rel=1e-12)
