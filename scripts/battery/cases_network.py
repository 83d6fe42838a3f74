"""Battery cases, class 5: networks of point cells (the cells' constraints, the area, eagerly and traced)."""

from __future__ import annotations

from battery.framework import case, step


def _net(**kw):
    from difflab.neuron import ExpSynapses, HodgkinHuxley, Network

    return Network(HodgkinHuxley.squid_axon(), ExpSynapses([0], [1], 0.05, 1.0), 2, **kw)


@case("net.gNa-negative", "5", r"gNa must be >= 0 mS/cm\^2; got -20")
def _(ctx):
    return _net().replace(gNa=-20.0)


@case("net.C-zero", "5", r"cells.C must be > 0 uF/cm\^2; got 0")
def _(ctx):
    return _net().replace(**{"cells.C": 0.0})


@case("net.area-zero", "5", r"area must be > 0 um\^2; got 0")
def _(ctx):
    return _net(area=0.0)


@case("net.gK-negative-traced", "5", r"gK must be >= 0 mS/cm\^2", exc=(Exception,))
def _(ctx):
    import jax
    import jax.numpy as jnp

    import difflab

    net = _net()
    return jax.jit(lambda g: difflab.simulate(net.replace(gK=g), step(), jnp.arange(0.0, 0.5, 0.025))["V"])(-1.0)


@case("net.delay-under-step", "1", r"a synaptic delay is shorter than the solver's step dt0", exc=(Exception,))
def _(ctx):
    import jax.numpy as jnp

    import difflab
    from difflab.neuron import ExpSynapses, HodgkinHuxley, Network

    net = Network(HodgkinHuxley.squid_axon(), ExpSynapses([0], [1], 0.05, 0.01), 2)
    return difflab.simulate(net, step(), jnp.arange(0.0, 0.5, 0.025), dt0=0.025)["V"].block_until_ready()
