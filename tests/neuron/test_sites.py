"""Channels evaluated where they are (difflab.neuron._sites, _sited_membrane) equal the masked evaluation."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _systems import l5pc_soma_calcium, l5pc_soma_channels

import difflab
from difflab.neuron import Cell, IClamp, Morphology, Region, Section
from difflab.neuron._sited_membrane import SitedMembrane
from difflab.neuron._sites import MAX_RUNS, Sites
from difflab.neuron.channels import Ih, pas

MASKS = {
    "everywhere": np.ones(9),
    "one run": np.r_[0, 0, 1, 1, 1, 0, 0, 0, 0],
    "ends": np.r_[1, 0, 0, 0, 0, 0, 0, 1, 1],
    "interleaved (gathers)": np.tile([1, 0], 2 * MAX_RUNS),
}


@pytest.mark.parametrize("name", MASKS)
def test_sites_take_put_and_spread_equal_index_arithmetic(name):
    mask = MASKS[name]
    sites, idx = Sites(mask), np.flatnonzero(mask)
    assert sites.sliced == (name != "interleaved (gathers)")  # the path each mask is meant to take
    rng = np.random.default_rng(0)
    full, part = rng.normal(size=(2, mask.size)), rng.normal(size=(2, idx.size))
    np.testing.assert_array_equal(sites.take(jnp.asarray(full)), full[:, idx])
    want = full.copy()
    want[:, idx] = part
    np.testing.assert_array_equal(sites.put(jnp.asarray(full), jnp.asarray(part)), want)
    # batch axes broadcast: one full row into two members' parts
    want = np.broadcast_to(full[0], (2, mask.size)).copy()
    want[:, idx] = part
    np.testing.assert_array_equal(sites.put(jnp.asarray(full[0]), jnp.asarray(part)), want)
    spread = np.zeros((2, mask.size))
    spread[:, idx] = part
    np.testing.assert_array_equal(sites.spread(jnp.asarray(part)), spread)
    # reverse mode through put: the cotangent of the part is the output's at the sites, of the full the rest
    weights = rng.normal(size=mask.size)
    d_full, d_part = jax.grad(lambda f, p: jnp.sum(sites.put(f, p) * weights), argnums=(0, 1))(
        jnp.asarray(full[0]), jnp.asarray(part[0])
    )
    np.testing.assert_array_equal(d_part, weights[idx])
    np.testing.assert_array_equal(d_full, np.where(mask > 0, 0.0, weights))


def _interleaved_cell() -> Cell:
    """A soma and 2·MAX_RUNS + 2 one-compartment sections alternating between a region with Hay's somatic
    channels and calcium pool and a passive region with Ih: every somatic channel lies in more runs than
    `Sites` slices."""
    sections = [Section.cylinder("soma", 20.0, 20.0)]
    for k in range(2 * MAX_RUNS + 2):
        region = "hot" if k % 2 else "cold"
        sections.append(Section.cylinder(f"{region}[{k}]", 30.0, 2.0, parent=sections[-1].name, nseg=2))
    hot = Region(l5pc_soma_channels(), concentrations=l5pc_soma_calcium())
    cold = Region({"pas": pas(g=0.03, E=-75.0), "Ih": Ih(gbar=0.2)})
    return Cell(Morphology(sections), {"soma": hot, "hot": hot, "cold": cold}, celsius=34.0)


def test_a_sited_membrane_gives_the_masked_conductances_currents_and_reversals():
    cell = _interleaved_cell()
    n = cell.morphology.n_segments
    rng = np.random.default_rng(1)
    y = {k: jnp.asarray(rng.uniform(0.05, 0.95, n)) for k in cell.gate_names}
    y["cai"] = jnp.asarray(rng.uniform(5e-5, 5e-3, n))
    V = jnp.asarray(rng.uniform(-90.0, 30.0, n))
    sited = SitedMembrane(cell)
    assert any(not sites.sliced for _, _, sites in sited.channels)  # the gather path is exercised
    channels, mechanisms = cell.segment_channels(), cell.concentration_mechanisms()
    reversals = cell.reversals(channels, mechanisms, y)
    G = sum(mask * ch.conductance(y) for _, ch, mask in channels)
    GE = sum(mask * ch.conductance(y) * E for (_, ch, mask), E in zip(channels, reversals, strict=True))
    got_G, got_GE = sited.conductances(y)
    np.testing.assert_allclose(got_G, G, rtol=1e-14, atol=0)
    np.testing.assert_allclose(got_GE, GE, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(sited.ion_currents(V, y)["ca"], cell.ion_currents(V, y)["ca"], rtol=1e-14, atol=0)
    for (_, _, sites), E_sited, E in zip(sited.channels, sited.reversals(y), reversals, strict=True):
        np.testing.assert_allclose(E_sited, np.broadcast_to(E, (n,))[sites.index], rtol=1e-14)


def test_a_cell_without_channels_integrates_its_current_exactly():
    """No channel: the membrane is a capacitor, V rises by I·Δt / C (0.1 nA for 1 ms into 1256.6 µm² at
    1 µF/cm² is 7.958 mV), which the Crank–Nicolson step integrates exactly."""
    cell = Cell(Morphology([Section.cylinder("soma", 20.0, 20.0)]), {"soma": Region({})})
    V = difflab.simulate(cell, IClamp({"soma(0.5)": difflab.Step(0.1, 1.0, 2.0)}), jnp.linspace(0.0, 3.0, 4)).ys["V"]
    capacitance_pF = 1.0 * np.pi * 20.0 * 20.0 * 1e-2  # µF/cm² × µm² → pF
    rise = 0.1 * 1.0 / capacitance_pF * 1e3  # nA · ms / pF = V, in mV
    np.testing.assert_allclose(np.asarray(V[:, 0]), [-65.0, -65.0, -65.0 + rise, -65.0 + rise], rtol=0, atol=1e-9)
