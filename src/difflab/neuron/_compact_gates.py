r"""The cable step's layout of a cell's state: each gate on its channel's compartments only.

A [`Cell`][difflab.neuron.Cell]'s state holds every gate on every compartment (`Cell.states`), while a channel
exists on the compartments of its regions only, where the step computes it (`SitedMembrane`). Between two steps
of [`CableRushLarsenCN`][difflab.neuron.CableRushLarsenCN] under fixed steps, `CompactGates` keeps each gate at
its channel's sites: the step then neither reads the gates out of the full arrays nor writes them back, which
had been a fifth of the L5PC's step (12 582 gate values per cell written every step, of which 2677 change).
The potential and the concentrations stay on every compartment.

A gate keeps its initial value on the compartments without its channel (nothing there changes it); `unpack`
writes the sites' values into those initial arrays, so that every saved state and every `observe` sees the
model's layout, and derivatives with respect to the initial state reach both parts.
"""

from __future__ import annotations

import equinox as eqx
from jaxtyping import Array

from ..core.internal import AbstractStateLayout
from ._sites import Sites


class CompactGates(AbstractStateLayout):
    """The gates of `places` at their sites; `fill` holds their initial full arrays (the absent compartments)."""

    fill: dict[str, Array]
    places: tuple[tuple[str, Sites], ...] = eqx.field(static=True)

    def pack(self, y: dict[str, Array]) -> dict[str, Array]:
        taken = {k: sites.take(y[k]) for k, sites in self.places}
        return {k: taken.get(k, v) for k, v in y.items()}

    def unpack(self, y: dict[str, Array]) -> dict[str, Array]:
        put = {k: sites.put(self.fill[k], y[k]) for k, sites in self.places}
        return {k: put.get(k, v) for k, v in y.items()}


def compact_gates(model, y0: dict[str, Array]) -> CompactGates:
    """The layout of `model`'s (a `Cell`) gates at their sites, with the absent compartments' values from `y0`."""
    places = []
    for _, channel, mask in model.segment_channels():
        sites = Sites(mask)
        if not sites.everywhere:
            places += [(k, sites) for k in channel.gates]
    return CompactGates({k: y0[k] for k, _ in places}, tuple(places))
