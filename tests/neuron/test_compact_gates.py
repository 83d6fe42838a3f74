"""The cable step's compact state (each gate on its channel's compartments only) is invisible outside the solve.

`CableRushLarsenCN` carries a cell's gates at their channels' sites between fixed steps (`CompactGates`); what a
solve returns must be the model's state, equal to a solve that carries the full arrays, values and derivatives.
"""

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
from _systems import l5pc_soma_calcium, l5pc_soma_channels

import difflab
from difflab.core.internal import AbstractStateLayout
from difflab.neuron import CableRushLarsenCN, Cell, IClamp, Morphology, Region, Section
from difflab.neuron._compact_gates import compact_gates
from difflab.neuron._sites import MAX_RUNS
from difflab.neuron.channels import Ih, pas


class _FullArrays(CableRushLarsenCN):
    """The same step carrying every gate on every compartment (no layout of its own)."""

    state_layout = None


def _cell() -> Cell:
    """A soma with Hay's somatic channels and calcium, a dendrite of one passive run with Ih, and 2·MAX_RUNS + 2
    sections alternating between the two regions, so that both the sliced and the gathered sites are used."""
    sections = [Section.cylinder("soma", 20.0, 20.0), Section.cylinder("dend", 200.0, 1.5, parent="soma", nseg=5)]
    for k in range(2 * MAX_RUNS + 2):
        region = "hot" if k % 2 else "cold"
        sections.append(Section.cylinder(f"{region}[{k}]", 30.0, 2.0, parent=sections[-1].name, nseg=2))
    hot = Region(l5pc_soma_channels(), concentrations=l5pc_soma_calcium())
    cold = Region({"pas": pas(g=0.03, E=-75.0), "Ih": Ih(gbar=0.2)})
    return Cell(Morphology(sections), {"soma": hot, "hot": hot, "cold": cold, "dend": cold}, celsius=34.0)


CELL = _cell()
MASKS = {name: np.asarray(mask) for name, _, mask in CELL.segment_channels()}
STIM = IClamp({"soma(0.5)": difflab.Step(1.5, 1.0, 4.0)})
TS = jnp.linspace(0.0, 8.0, 33)


def test_pack_and_unpack_are_inverse_and_keep_only_the_sites():
    y0 = CELL.initial_state()
    layout = compact_gates(CELL, y0)
    assert isinstance(layout, AbstractStateLayout)
    packed = layout.pack(y0)
    hot = np.flatnonzero(MASKS["NaTs2_t"])
    assert packed["m_NaTs2_t"].shape == (hot.size,) and 0 < hot.size < CELL.morphology.n_segments
    np.testing.assert_array_equal(packed["m_NaTs2_t"], np.asarray(y0["m_NaTs2_t"])[hot])
    assert packed["V"].shape == y0["V"].shape  # the potential and the concentrations stay whole
    assert packed["cai"].shape == y0["cai"].shape
    back = layout.unpack(packed)
    assert back.keys() == y0.keys()
    for k in y0:
        np.testing.assert_array_equal(back[k], y0[k])


def test_a_solve_returns_the_state_of_a_solve_on_full_arrays():
    """Every state, every compartment, every save time: equal to 1e-12 (the same arithmetic), and the gates of a
    channel keep their initial values on the compartments without it."""
    packed = difflab.simulate(CELL, STIM, TS, dt0=0.025)
    full = difflab.simulate(CELL, STIM, TS, dt0=0.025, solver=_FullArrays())
    assert float(jnp.max(packed.ys["V"][:, 0])) > 0.0  # the soma fired
    assert packed.ys.keys() == full.ys.keys()
    for k in full.ys:
        np.testing.assert_allclose(packed.ys[k], full.ys[k], rtol=1e-12, atol=1e-12, err_msg=k)
    absent = np.flatnonzero(MASKS["NaTs2_t"] == 0)
    h0 = np.asarray(CELL.initial_state()["h_NaTs2_t"])[absent]
    np.testing.assert_array_equal(packed.ys["h_NaTs2_t"][:, absent], np.broadcast_to(h0, (TS.size, absent.size)))


def test_derivatives_equal_those_of_a_solve_on_full_arrays():
    """Reverse mode with respect to a density and to the initial gates (on and off the channel's sites)."""

    def loss(gbar, h0, solver):
        y0 = {**CELL.initial_state(), "h_NaTs2_t": h0}
        cell = CELL.replace(**{"soma.gbar_NaTs2_t": gbar})
        ys = difflab.simulate(cell, STIM, TS, dt0=0.025, y0=y0, solver=solver).ys
        return jnp.sum(ys["V"][:, 0] ** 2) * 1e-4 + jnp.sum(ys["h_NaTs2_t"][-1])

    gbar = CELL.parameters()[CELL.resolve("soma.gbar_NaTs2_t")]
    h0 = CELL.initial_state()["h_NaTs2_t"]
    got = jax.grad(loss, argnums=(0, 1))(gbar, h0, CableRushLarsenCN())
    want = jax.grad(loss, argnums=(0, 1))(gbar, h0, _FullArrays())
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)
    absent = MASKS["NaTs2_t"] == 0
    np.testing.assert_array_equal(np.asarray(got[1])[absent], 1.0)  # h there is its initial value throughout


def test_a_batched_cell_started_from_one_cells_state_packs_it_for_every_member():
    """Two members (two somatic sodium densities) from the unbatched cell's initial state: each equals its own
    solve (the packed state takes the members' batch)."""
    gbar = CELL.parameters()[CELL.resolve("soma.gbar_NaTs2_t")]
    two = CELL.replace(**{"soma.gbar_NaTs2_t": jnp.stack([gbar, 0.8 * gbar])})
    # a batched cell's parameters meet its per-compartment constants by broadcasting (JAX's default, which the
    # suite otherwise refuses)
    with jax.numpy_rank_promotion("allow"):
        batched = difflab.simulate(two, STIM, TS, dt0=0.025, y0=CELL.initial_state()).ys
    assert batched["m_NaTs2_t"].shape == (TS.size, 2, CELL.morphology.n_segments)
    second = difflab.simulate(CELL.replace(**{"soma.gbar_NaTs2_t": 0.8 * gbar}), STIM, TS, dt0=0.025).ys
    for k in second:
        np.testing.assert_allclose(batched[k][:, 1], second[k], rtol=1e-12, atol=1e-12, err_msg=k)


def test_an_adaptive_solve_keeps_the_models_layout():
    """An adaptive controller's error norm averages over the whole state: it is never given the compact one."""
    from difflab.core._state_layout import solver_layout

    y0 = CELL.initial_state()
    assert solver_layout(CableRushLarsenCN(), CELL, y0, diffrax.PIDController(rtol=1e-6, atol=1e-6)) is None
    assert solver_layout(CableRushLarsenCN(), CELL, y0, diffrax.ConstantStepSize()) is not None
    assert solver_layout(_FullArrays(), CELL, y0, diffrax.ConstantStepSize()) is None


def test_a_traced_solve_through_diffraxs_loop_equals_the_eager_scan():
    """Save times traced inside `jax.jit` send a fixed-step solve through diffrax's own loop, which evaluates the
    term on the packed state before it starts: the model's vector field sees its own layout there too."""
    eager = difflab.simulate(CELL, STIM, TS, dt0=0.025).ys["V"]
    traced = jax.jit(lambda ts: difflab.simulate(CELL, STIM, ts, dt0=0.025, max_steps=400).ys["V"])(TS)
    assert float(jnp.max(eager[:, 0])) > 0.0  # the soma fired
    np.testing.assert_allclose(traced, eager, rtol=1e-12, atol=1e-12)
