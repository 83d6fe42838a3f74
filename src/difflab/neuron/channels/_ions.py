r"""Ions: Nernst reversal potentials and the concentration mechanisms that make a concentration a state.

When a mechanism writes an intracellular concentration (`cai`), NEURON recomputes that ion's reversal potential
from the Nernst equation at every step, and every channel that carries the ion uses it:

$$E = \frac{R\,T}{z\,F}\,\ln\frac{c_o}{c_i}, \qquad T = \texttt{celsius} + 273.15\ \mathrm{K}.$$

The constants are NEURON 9's (CODATA 2018, `h.R` and `h.FARADAY`): `R = 8.31446261815324` J/(mol K),
`F = 96485.33212331001` C/mol. difflab does the same: a [`HodgkinHuxley`][difflab.neuron.HodgkinHuxley] cell
with a concentration mechanism for an ion gives every channel of that ion (`channel.ion`) the Nernst potential
of the current concentration, in place of the channel's fixed `E` (used when nothing writes the concentration).

Units: concentrations mM, potentials mV, current densities µA/cm² (difflab's; NEURON's `ica` is in mA/cm²).
"""

from __future__ import annotations

import abc
from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

#: Molar gas constant (J/(mol K)), NEURON 9's `h.R`.
GAS_CONSTANT = 8.31446261815324
#: Faraday constant (C/mol), NEURON 9's `h.FARADAY`.
FARADAY = 96485.33212331001
#: 0 °C in kelvin.
ZERO_CELSIUS = 273.15


def nernst(c_in: ArrayLike, c_out: ArrayLike, valence: int, celsius: ArrayLike) -> Array:
    """Nernst potential (mV) of an ion of charge `valence` from its concentrations inside and outside (mM)."""
    T = jnp.asarray(celsius) + ZERO_CELSIUS
    return (1000 * GAS_CONSTANT / (valence * FARADAY)) * T * jnp.log(jnp.asarray(c_out) / jnp.asarray(c_in))


class AbstractConcentration(eqx.Module):
    r"""A mechanism that writes an ion's intracellular concentration (a state of the cell, mM).

    Its dynamics are linear in the concentration `c` at a given ion current density `I` (µA/cm², outward
    positive): `dc/dt = s(I) − c/τ`. [`relax`][difflab.neuron.channels.AbstractConcentration.relax] solves this
    exactly over a step with `I` held fixed, the update that difflab's Rush–Larsen solver
    ([`RushLarsenCN`][difflab.neuron.RushLarsenCN]) uses with the current at the step's midpoint.
    """

    #: The ion (`"ca"`) whose channels' currents drive it and whose reversal potential follows it.
    ion: eqx.AbstractClassVar[str]
    #: The state it writes (`"cai"`), a key of the cell's state dict.
    state: eqx.AbstractClassVar[str]
    #: The ion's charge number (2 for calcium).
    valence: eqx.AbstractClassVar[int]
    #: Extracellular concentration (mM), fixed.
    c_out: eqx.AbstractVar[Array]
    #: Initial intracellular concentration (mM).
    c_init: eqx.AbstractVar[Array]
    units: ClassVar[str] = "mM"

    @abc.abstractmethod
    def linear_terms(self, current: Array) -> tuple[Array, Array]:
        """`(s, 1/τ)` of `dc/dt = s − c/τ` at the ion current density `current` (µA/cm²); mM/ms and 1/ms."""

    @abc.abstractmethod
    def physical_checks(self, prefix: str) -> dict[str, tuple[Array, Array]]:
        """`{"<prefix>.<field> must be ...": (ok, value)}` for the cell's checks."""

    def derivative(self, c: Array, current: Array) -> Array:
        """`dc/dt` (mM/ms)."""
        s, rate = self.linear_terms(current)
        return s - rate * c

    def relax(self, c0: Array, current: Array, h: Array | float) -> Array:
        """The concentration after `h` ms from `c0` with `current` held: `c∞ + (c0 − c∞) e^{−h/τ}`."""
        s, rate = self.linear_terms(current)
        c_inf = s / rate
        return c_inf + (c0 - c_inf) * jnp.exp(-h * rate)

    def reversal(self, c_in: Array, celsius: Array) -> Array:
        """Nernst potential (mV) of the ion at the intracellular concentration `c_in` (mM)."""
        return nernst(c_in, self.c_out, self.valence, celsius)
