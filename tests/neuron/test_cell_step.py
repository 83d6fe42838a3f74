"""The multi-compartment cell's default step (`Cell.default_dt0`): NEURON's 0.025 ms, halved per doubling of the
stiffest compartment's Σḡ/cm beyond 976.9 mS/µF (the point cell's bound Σḡ h/C = 24.4 at 0.025 ms)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.neuron import Cell, IClamp
from difflab.neuron._cell import MAX_STIFFNESS
from difflab.neuron._validation import CELLS


@pytest.fixture(scope="module")
def cell():
    return Cell.ball_and_stick()


def test_the_bound_is_the_point_cells():
    """2 · 156.3 mS/µF (twice hh's Σḡ/C) · 5/64 ms: 24.42, i.e. Σḡ/cm up to 976.9 mS/µF at 0.025 ms."""
    assert MAX_STIFFNESS == pytest.approx(2 * 156.3 * 5 / 64, rel=1e-15)
    assert MAX_STIFFNESS / 0.025 == pytest.approx(976.875, rel=1e-14)


def test_squid_axon_cables_keep_neurons_step(cell):
    """hh's 156.3 mS/cm² (soma) and 40.1 (dendrite) at 1 µF/cm²: z = 3.9 at 0.025 ms, far inside the bound."""
    np.testing.assert_allclose(cell.max_conductance(), [156.3] + [40.1] * 21, rtol=1e-14)
    assert cell.default_dt0() == 0.025 and isinstance(cell.default_dt0(), float)
    assert CELLS["da1_lpn"]().default_dt0() == 0.025  # hh everywhere, 1289 sections (the SWC reference)


def test_step_halves_per_doubling_of_the_stiffest_compartment(cell):
    """Soma Σḡ/cm over 976.9: 0.96 (gNa 900), 1.06 (gNa 1000), 1.60 (cm 0.1), 5.16 (gNa 5000) -> k = 0, 1, 1, 3."""
    cells = [cell.replace(**{"soma.gbar_na": 900.0}), cell.replace(**{"soma.gbar_na": 1000.0}),
             cell.replace(**{"soma.cm": 0.1}), cell.replace(**{"soma.gbar_na": 5000.0})]  # fmt: skip
    assert [c.default_dt0() for c in cells] == [0.025, 0.0125, 0.0125, 0.003125]
    # the stiffest compartment anywhere sets it: the dendrite's 40.1 mS/cm² over a small cm, ratio 2.5 -> k = 2
    assert cell.replace(**{"dend.cm": 40.1 / 976.875 / 2.5}).default_dt0() == 0.00625
    # traced densities (jit, vmap): the same steps, as arrays; a batch takes its stiffest member's step
    step = jax.jit(jax.vmap(lambda g: cell.replace(**{"soma.gbar_na": g}).default_dt0()))
    np.testing.assert_array_equal(step(jnp.asarray([120.0, 1000.0, 5000.0])), [0.025, 0.0125, 0.003125])
    batch = cell.replace(**{"soma.gbar_na": jnp.asarray([120.0, 1000.0])})
    assert batch.default_dt0() == 0.0125


def test_a_given_step_wins(cell):
    """simulate takes the cell's default step unless dt0 is given."""
    clamp, ts = IClamp({"soma(0.5)": difflab.Step(0.25, 1.0, 3.0)}), jnp.arange(0.0, 4.0, 0.5)
    stiff = cell.replace(**{"soma.gbar_na": 1000.0})
    assert float(dict(difflab.simulate(stiff, clamp, ts).provenance)["dt0"]) == 0.0125
    assert float(dict(difflab.simulate(stiff, clamp, ts, dt0=0.025).provenance)["dt0"]) == 0.025
