"""Battery cases, classes 5, 13: multi-compartment cells, morphologies and NWB recordings."""

from __future__ import annotations

from battery.framework import case


@case("cell.gbar-negative", "5", r"dend.gbar_na must be >= 0 mS/cm\^2; got -20")
def _(ctx):
    from difflab.neuron import Cell

    return Cell.ball_and_stick(nseg=3).replace(**{"dend.gbar_na": -20.0})


@case("cell.cm-zero", "5", r"soma.cm must be > 0 uF/cm\^2; got 0")
def _(ctx):
    from difflab.neuron import Cell

    return Cell.ball_and_stick(nseg=3).replace(**{"soma.cm": 0.0})


@case("cell.Ra-negative-member", "5", r"dend.Ra must be > 0 ohm cm; got -1.0 \(member 1")
def _(ctx):
    import difflab
    from difflab.neuron import Cell

    return difflab.make_batch(Cell.ball_and_stick(nseg=3), **{"dend.Ra": [100.0, -1.0]})


@case(
    "cell.Ra-negative-traced-member", "5",
    check=lambda ok: (ok == [True, False], f"succeeded per member: {ok}"),
)  # fmt: skip
def _(ctx):
    import jax
    import jax.numpy as jnp
    import numpy as np

    import difflab
    from difflab.neuron import Cell

    cell, ts = Cell.ball_and_stick(nseg=3), jnp.arange(0.0, 0.5, 0.025)
    run = jax.vmap(lambda r: difflab.simulate(cell.replace(**{"dend.Ra": r}), None, ts, throw=False).succeeded)
    return np.asarray(run(jnp.array([100.0, -1.0]))).tolist()
