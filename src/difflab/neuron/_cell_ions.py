r"""Ion concentrations in multi-compartment cells: which regions write them, and the reversal potentials they set.

A [`Region`][difflab.neuron.Region] may carry concentration mechanisms, `{"ca": CaDynamics_E2(gamma=..., decay=...)}`,
as NEURON inserts a mechanism into a section list. The cell then carries the written concentration (`cai`, mM) as
a state of every compartment:

- where a region's mechanism writes it, it follows the mechanism, driven by that compartment's summed current of
  the ion, and every channel of the ion there takes the Nernst potential of the compartment's own concentration,
  $E = \frac{RT}{zF}\ln(c_o / c_i)$;
- elsewhere it stays at the mechanism's `c_init` (NEURON's `cai0_ca_ion`, 5e-5 mM), and the channels of the ion
  keep their own `E`. NEURON does the same: a channel that only reads `eca` (`Ca_HVA`, `Ca_LVAst`) in a section
  where nothing writes `cai` uses the parameter `eca` (its default 132.458 mV, the channels' default `E`).

A channel that reads a concentration (`SK_E2` reads `cai`) needs a mechanism writing it in its own region; a
mechanism of an ion that no channel of the region carries is allowed (as in NEURON), and then only relaxes to its
resting value. A mechanism of one ion is of one class in every region where it exists (its parameters are then
gathered per compartment like the channels').

Reference: Hines & Carnevale, *The NEURON Book* (2006), ch. 9 (ion accumulation and `ion_style`).
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp

from .channels._ions import AbstractConcentration


def check_region_concentrations(concentrations) -> dict[str, AbstractConcentration]:
    """A region's `{ion: mechanism}`, refused by name unless each is a mechanism under the key of its ion."""
    if concentrations is None:
        return {}
    if not isinstance(concentrations, dict):
        raise TypeError(
            f"concentrations must be a dict {{ion: mechanism}} such as {{'ca': CaDynamics_E2()}}; "
            f"got {type(concentrations).__name__}"
        )
    for key, mechanism in concentrations.items():
        if not isinstance(mechanism, AbstractConcentration):
            raise TypeError(
                f"concentrations[{key!r}] must be a concentration mechanism; got {type(mechanism).__name__}"
            )
        if key != mechanism.ion:
            raise ValueError(f"concentrations[{key!r}] writes the ion {mechanism.ion!r}; use the key {mechanism.ion!r}")
    return dict(concentrations)


def check_cell_concentrations(regions, gate_owner: dict[str, str]) -> tuple[str, ...]:
    """The ions written anywhere in the cell, in order of appearance; refuses what a cell cannot carry.

    `regions` is `{name: Region}`, `gate_owner` `{gate: channel}`. Refused by name: one ion's mechanisms of two
    classes, a concentration named like a gate or `V`, a channel that reads a concentration in a region where no
    mechanism writes it.
    """
    order = list(dict.fromkeys(ion for reg in regions.values() for ion in reg.concentrations))
    for ion in order:
        classes = {type(reg.concentrations[ion]).__name__ for reg in regions.values() if ion in reg.concentrations}
        if len(classes) > 1:
            raise ValueError(
                f"concentration mechanism of {ion!r} must be of one class in every region; got {sorted(classes)}"
            )
        state = next(reg.concentrations[ion].state for reg in regions.values() if ion in reg.concentrations)
        if state == "V" or state in gate_owner:
            other = "the membrane potential" if state == "V" else f"a gate of channel {gate_owner[state]!r}"
            raise ValueError(f"concentration {state!r} of {ion!r} clashes with {other}")
    for r, reg in regions.items():
        written = {m.state for m in reg.concentrations.values()}
        for c, ch in reg.channels.items():
            for name in ch.reads:
                if name not in written:
                    raise ValueError(
                        f"region {r!r}: channel {c!r} reads {name!r} but no concentration mechanism of the region "
                        f"writes it; add one to the region, e.g. Region(..., concentrations={{'ca': CaDynamics_E2()}})"
                    )
    return tuple(order)


def mechanism_name(mechanism: eqx.Module) -> str:
    """The name a mechanism's parameters carry (`"gamma_CaDynamics_E2"`): its class, as in NEURON and BluePyOpt."""
    return type(mechanism).__name__


def channel_reversals(channels, mechanisms, y, celsius) -> list:
    """The reversal potential (mV) of every channel per compartment.

    `channels` and `mechanisms` as the cell's `segment_channels()` and `concentration_mechanisms()` give them
    (`(name, module, mask)` with per-compartment parameters); `y` holds the concentrations. A channel of an ion
    with a mechanism takes the Nernst potential where the mechanism writes and its own `E` elsewhere.
    """
    nernst = {ion: (m.reversal(y[m.state], celsius), mask) for ion, m, mask in mechanisms}
    out = []
    for _, ch, _ in channels:
        if ch.ion in nernst:
            E, mask = nernst[ch.ion]
            out.append(jnp.where(mask > 0, E, ch.E))
        else:
            out.append(ch.E)
    return out
