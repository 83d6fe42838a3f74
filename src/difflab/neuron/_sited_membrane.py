r"""A cell's channels and concentration mechanisms evaluated on their own compartments only (the cable step's view).

[`Cell.segment_channels`][difflab.neuron.Cell.segment_channels] gives every channel per compartment with a mask;
`SitedMembrane` takes each channel's parameters at its [`Sites`][difflab.neuron._sites.Sites] once, so that the
step computes rates, gates, conductances and reversal potentials where the channel exists, and spreads the sums
back over the compartments:

$$G_i = \sum_c [i \in I_c]\, g_c(y_{c,i}), \qquad GE_i = \sum_c [i \in I_c]\, g_c(y_{c,i})\, E_{c,i},$$

the same sums as the masked evaluation (absent channels added 0), in a fraction of the work. A channel of an ion
whose concentration a mechanism writes takes the Nernst potential of its compartment's concentration where the
mechanism is present and its own `E` elsewhere (`_cell_ions`). Gates of a channel keep their value in the
compartments without it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array

from ._sites import Sites


class SitedMembrane:
    """The channels `(name, channel at its sites, sites)` and mechanisms `(ion, mechanism at its sites, sites)`.

    Built from a [`Cell`][difflab.neuron.Cell] inside a step (not a pytree: it lives within one trace).
    """

    def __init__(self, model):
        self.channels = tuple(
            (name, jax.tree.map(sites.take, channel), sites)
            for name, channel, mask in model.segment_channels()
            for sites in (Sites(mask),)
        )
        mechanisms = model.concentration_mechanisms()
        self.mechanisms = tuple(
            (ion, jax.tree.map(sites.take, mechanism), sites) for ion, mechanism, mask in mechanisms
            for sites in (Sites(mask),)
        )  # fmt: skip
        self.celsius = jnp.asarray(model.celsius)[..., None]
        self.n = model.morphology.n_segments
        # per channel of a written ion: its mechanism's parameters and presence mask at the channel's sites
        by_ion = {ion: (m, mask) for ion, m, mask in mechanisms}
        self._nernst = tuple(
            None if ch.ion not in by_ion else
            (jax.tree.map(sites.take, by_ion[ch.ion][0]), sites.take(jnp.asarray(by_ion[ch.ion][1])) > 0)
            for _, ch, sites in self.channels
        )  # fmt: skip

    def reversals(self, y: dict[str, Array]) -> list[Array]:
        """Every channel's reversal potential (mV) at its sites; `y` holds the concentrations (all compartments)."""
        out = []
        for (_, ch, sites), nernst in zip(self.channels, self._nernst, strict=True):
            if nernst is None:
                out.append(ch.E)
            else:
                mechanism, written = nernst
                out.append(jnp.where(written, mechanism.reversal(sites.take(y[mechanism.state]), self.celsius), ch.E))
        return out

    def conductances(self, y: dict[str, Array]) -> tuple[Array, Array]:
        """`(Σ G_c, Σ G_c E_c)` per compartment (mS/cm², µA/cm²) at the gates and concentrations `y`."""
        G, GE = [], []
        for (_, ch, sites), E in zip(self.channels, self.reversals(y), strict=True):
            g = ch.conductance({k: sites.take(y[k]) for k in ch.gates})
            G.append(sites.spread(g))
            GE.append(sites.spread(g * E))
        if not G:  # a cell without channels
            zero = jnp.zeros((*self.celsius.shape[:-1], self.n), self.celsius.dtype)
            return zero, zero
        return sum(G[1:], G[0]), sum(GE[1:], GE[0])

    def ion_currents(self, V: Array, y: dict[str, Array]) -> dict[str, Array]:
        """`{ion: summed outward current density (µA/cm²) per compartment}` for every written ion."""
        ions = {ion for ion, _, _ in self.mechanisms}
        out = {ion: jnp.zeros_like(V) for ion in ions}
        for (_, ch, sites), E in zip(self.channels, self.reversals(y), strict=True):
            if ch.ion in ions:
                g = ch.conductance({k: sites.take(y[k]) for k in ch.gates})
                out[ch.ion] = out[ch.ion] + sites.spread(g * (sites.take(V) - E))
        return out
