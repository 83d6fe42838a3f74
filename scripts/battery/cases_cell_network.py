"""Battery cases, class 5: networks of multi-compartment cells (locations, gap junctions, receptors, the step)."""

from __future__ import annotations

from battery.framework import case


def _cell():
    from difflab.neuron import Cell

    return Cell.ball_and_stick(nseg=3)


def _syn():
    from difflab.neuron import Exp2Synapses

    return Exp2Synapses([0], [1], 0.01, 1.0)


@case("cellnet.location-outside", "5", r"where\[0\]: 'apical\(0.5\)' is not a place with membrane on cell 1")
def _(ctx):
    from difflab.neuron import CellNetwork

    return CellNetwork(_cell(), _syn(), where="apical(0.5)", counts=2)


@case("cellnet.post-outside", "5", r"synapses\[0\].post names cell 1, which is not in the network")
def _(ctx):
    from difflab.neuron import CellNetwork

    return CellNetwork(_cell(), _syn(), where="dend(0.5)", counts=1)


@case("cellnet.detect-no-membrane", "5", r"detect: 'soma\(0\)' is not a place with membrane")
def _(ctx):
    from difflab.neuron import CellNetwork

    return CellNetwork(_cell(), _syn(), where="dend(0.5)", counts=2, detect="soma(0)")


@case("cellnet.gap-to-itself", "5", r"gap junction 0 joins compartment 'dend\(0.5\)' of cell 1 to itself")
def _(ctx):
    from difflab.neuron import CellNetwork, GapJunctions

    return CellNetwork(_cell(), counts=2, gaps=GapJunctions([1], "dend(0.5)", [1], "dend(0.5)", 0.001))


@case("cellnet.gap-negative", "5", r"g must be finite and >= 0 uS")
def _(ctx):
    from difflab.neuron import GapJunctions

    return GapJunctions([0], "dend(0.5)", [1], "dend(0.5)", -1e-3)


@case("cellnet.nmda-mg-zero", "5", r"mg must be > 0 mM")
def _(ctx):
    from difflab.neuron import NMDASynapses

    return NMDASynapses([0], [1], 0.01, 1.0, mg=0.0)


@case("cellnet.stp-U-above-one", "5", r"U must")
def _(ctx):
    from difflab.neuron import TsodyksMarkram

    return TsodyksMarkram(U=1.5)


@case("cellnet.clamp-without-cell", "5", r"protocol: 'soma\(0.5\)' must name a cell and a place")
def _(ctx):
    import jax.numpy as jnp

    import difflab
    from difflab.neuron import CellNetwork, IClamp

    net = CellNetwork(_cell(), _syn(), where="dend(0.5)", counts=2)
    return difflab.simulate(net, IClamp({"soma(0.5)": difflab.Step(0.2, 1.0, 2.0)}), jnp.arange(0.0, 1.0, 0.1))


@case("cellnet.gap-too-strong-for-dt0", "1", r"a gap junction is too strong for the step dt0", exc=(Exception,))
def _(ctx):
    import jax.numpy as jnp

    import difflab
    from difflab.neuron import CellNetwork, GapJunctions, IClamp

    net = CellNetwork(_cell(), counts=2, gaps=GapJunctions([0], "soma(0.5)", [1], "soma(0.5)", 1.0))
    clamp = IClamp({"cell0.soma(0.5)": difflab.Step(0.2, 0.1, 0.3)})
    return difflab.simulate(net, clamp, jnp.arange(0.0, 0.5, 0.05), dt0=0.025)["V"].block_until_ready()
