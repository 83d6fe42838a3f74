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

**Local values.** A step works on every channel's gates at its sites (`gates_at_sites`, `{gate: (..., size)}`;
a gate belongs to one channel) and writes them back into the full arrays once, for its result; a state that
holds the gates at their sites already (`CompactGates`, the cable solver's layout under fixed steps) is read
and written as it is. The channels of
a region share their sites (the L5PC's 18 channels lie on 7 distinct sets of compartments): the potential is
read once per set, and the per-channel terms are summed on the set before one spread per set (`spread_sum`).
Spreading every channel's terms on their own had the L5PC step sum 108 padded arrays per compartment, and its
reads and writes through the full arrays were a third of its kernel time (a 100-member ensemble: 95–120 → 67–74 µs
per member and step, benchmarks/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

from ._sites import Sites


class SitedMembrane:
    """The channels `(name, channel at its sites, sites)` and mechanisms `(ion, mechanism at its sites, sites)`.

    Channels present on the same compartments share one `Sites` object (`site_sets`, and `set_of[c]` for
    channel `c`). Built from a [`Cell`][difflab.neuron.Cell] inside a step (not a pytree: it lives within one
    trace).
    """

    def __init__(self, model):
        self.site_sets: list[Sites] = []
        keys: dict[bytes, int] = {}
        channels, set_of = [], []
        for name, channel, mask in model.segment_channels():
            key = (np.asarray(mask).reshape(-1) != 0).tobytes()
            if key not in keys:
                keys[key] = len(self.site_sets)
                self.site_sets.append(Sites(mask))
            sites = self.site_sets[keys[key]]
            channels.append((name, jax.tree.map(sites.take, channel), sites))
            set_of.append(keys[key])
        self.channels = tuple(channels)
        self.set_of = tuple(set_of)
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

    # ---------------------------------------------------------------- reading and writing the full arrays
    def take_per_channel(self, x: Array) -> list[Array]:
        """`x` (`(..., n)`) at every channel's sites, read once per set of sites."""
        taken: dict[int, Array] = {}
        for k in self.set_of:
            if k not in taken:
                taken[k] = self.site_sets[k].take(x)
        return [taken[k] for k in self.set_of]

    def gates_at_sites(self, y: dict[str, Array]) -> dict[str, Array]:
        """`{gate: its values at its channel's sites}` for every gate of `y`.

        `y`'s gates are full arrays, or already at their sites (`CompactGates`).
        """
        return {k: sites.at_sites(y[k]) for _, ch, sites in self.channels for k in ch.gates}

    def put_gates(self, y: dict[str, Array], gates: dict[str, Array]) -> dict[str, Array]:
        """`{gate: y[gate] with the sites' values of `gates` written in}`, in the layout of `y`'s gates.

        Full arrays of `y` get the sites' values written in; gates that `y` holds at their sites only
        (`CompactGates`) are the new values themselves (`Sites.put`).
        """
        return {k: sites.put(y[k], gates[k]) for _, ch, sites in self.channels for k in ch.gates}

    def spread_sum(self, parts: Sequence[Array | None], like: Array) -> Array:
        r"""$\sum_c$ `parts[c]` spread from channel $c$'s sites over the compartments (`None` adds nothing).

        Summed on each set of sites first, then spread once per set. `like` gives the batch shape and dtype
        when every part is `None`.
        """
        sums: dict[int, Array] = {}
        for k, part in zip(self.set_of, parts, strict=True):
            if part is not None:
                sums[k] = part if k not in sums else sums[k] + part
        if not sums:
            return jnp.zeros_like(like)
        spread = [self.site_sets[k].spread(s) for k, s in sums.items()]
        return sum(spread[1:], spread[0])

    # ---------------------------------------------------------------- the channels at their sites
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

    def local_conductances(self, gates: dict[str, Array]) -> list[Array]:
        """Every channel's conductance (mS/cm²) at its sites from the gates at the sites."""
        return [ch.conductance({k: gates[k] for k in ch.gates}) for _, ch, _ in self.channels]

    def totals(self, g: list[Array], E: list[Array], like: Array) -> tuple[Array, Array]:
        """`(Σ G_c, Σ G_c E_c)` per compartment (mS/cm², µA/cm²) from per-channel conductances and reversals."""
        return self.spread_sum(g, like), self.spread_sum([gc * Ec for gc, Ec in zip(g, E, strict=True)], like)

    def conductances(self, y: dict[str, Array]) -> tuple[Array, Array]:
        """`(Σ G_c, Σ G_c E_c)` per compartment (mS/cm², µA/cm²) at the gates and concentrations `y` (full arrays)."""
        like = jnp.zeros((*self.celsius.shape[:-1], self.n), self.celsius.dtype)
        return self.totals(self.local_conductances(self.gates_at_sites(y)), self.reversals(y), like)

    def local_ion_currents(self, V: Array, g: list[Array], E: list[Array]) -> dict[str, Array]:
        """`{ion: summed outward current density (µA/cm²) per compartment}` for every written ion.

        From the potential `V` (all compartments) and per-channel conductances `g` and reversals `E` at the sites.
        """
        out = {}
        V_at = self.take_per_channel(V)
        for ion, _, _ in self.mechanisms:
            parts = [gc * (Vc - Ec) if ch.ion == ion else None
                     for (_, ch, _), gc, Vc, Ec in zip(self.channels, g, V_at, E, strict=True)]  # fmt: skip
            out[ion] = self.spread_sum(parts, V)
        return out

    def ion_currents(self, V: Array, y: dict[str, Array]) -> dict[str, Array]:
        """`{ion: summed outward current density (µA/cm²) per compartment}` for every written ion (full `y`)."""
        return self.local_ion_currents(V, self.local_conductances(self.gates_at_sites(y)), self.reversals(y))
