"""Ion channels: ohmic currents `I = G(gates) (V − E)` with gates obeying `dx/dt = α(1 − x) − β x`.

A channel declares the names of its gate states (keys of the cell's state dict, e.g. `"m"`,
`"h"`), their opening and closing rates, and its conductance as a function of the gates. The
[`HodgkinHuxley`][difflab.neuron.HodgkinHuxley] cell sums all its channels, so adding a channel
never requires editing the cell. Gate names must be unique across the channels of one cell.

Units: conductances in mS/cm², potentials in mV, rates in 1/ms, currents in µA/cm².
"""

from __future__ import annotations

import abc
from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

from ..core.internal import check_finite, check_nonnegative, check_positive
from ._rates import hh_rates, q10_factor

Gates = dict[str, Array]


def channel_param(
    value: ArrayLike, name: str, units: str, *, nonnegative: bool = False, positive: bool = False
) -> Array:
    """A channel or mechanism parameter as a floating array, refused by name unless finite (and >= 0 or > 0)."""
    arr = jnp.asarray(value)
    if not jnp.issubdtype(arr.dtype, jnp.floating):
        arr = arr.astype(float)
    check_finite(arr, name)
    if nonnegative:
        check_nonnegative(arr, name, units)
    if positive:
        check_positive(arr, name, units)
    return arr


class AbstractChannel(eqx.Module):
    """An ohmic ion channel with Hodgkin–Huxley-type gates.

    Subclasses set the class attribute `gates` (gate state names) and implement
    [`rates`][difflab.neuron.AbstractChannel.rates] and
    [`conductance`][difflab.neuron.AbstractChannel.conductance]; they carry a reversal
    potential `E` (mV). A gate-free channel (leak) has `gates = ()`.
    """

    #: Names of this channel's gate states in the cell's state dict.
    gates: eqx.AbstractClassVar[tuple[str, ...]]
    #: Reversal potential (mV); for a channel of an ion whose concentration the cell computes, the ion's Nernst
    #: potential replaces it (see `difflab.neuron.channels.AbstractConcentration`).
    E: eqx.AbstractVar[Array]
    #: The ion it carries (`"na"`, `"k"`, `"ca"`), or `None` for a nonspecific current.
    ion: ClassVar[str | None] = None
    #: Concentrations its rates read (`("cai",)`): passed to `rates` as keywords, written by the cell's
    #: concentration mechanisms.
    reads: ClassVar[tuple[str, ...]] = ()

    @abc.abstractmethod
    def rates(self, V: Array, celsius: Array) -> dict[str, tuple[Array, Array]]:
        """`{gate: (α, β)}` in 1/ms at potential `V` (mV) and temperature `celsius` (°C).

        A channel that reads concentrations (`reads`) takes them as keywords, e.g. `rates(V, celsius, cai=...)`.
        """

    @abc.abstractmethod
    def conductance(self, gates: Gates) -> Array:
        """The conductance (mS/cm²) given the gate values (only this channel's gates are read)."""

    def current(self, V: Array, gates: Gates) -> Array:
        """Outward current density `G (V − E)` in µA/cm²."""
        return self.conductance(gates) * (V - self.E)

    def steady_state(self, V: Array, celsius: Array, **concentrations: Array) -> Gates:
        """Gate values at rest, `x∞ = α / (α + β)`, for each gate of this channel."""
        return {name: a / (a + b) for name, (a, b) in self.rates(V, celsius, **concentrations).items()}

    def reversal(self, ion_reversals: dict[str, Array]) -> Array:
        """The reversal potential (mV): the ion's Nernst potential if the cell computes one, else `E`."""
        return ion_reversals.get(self.ion, self.E) if self.ion is not None else self.E


class SodiumChannel(AbstractChannel):
    """Fast sodium channel of `hh`: `I_Na = ḡ_Na m³ h (V − E_Na)`; gates `m`, `h`; q10 = 3 from 6.3 °C.

    Attributes:
        gbar: maximal conductance ḡ_Na (mS/cm²); squid axon 120.
        E: reversal potential E_Na (mV); squid axon 50.
    """

    gates = ("m", "h")
    gbar: Array
    E: Array

    def __init__(self, gbar: ArrayLike = 120.0, E: ArrayLike = 50.0):
        self.gbar = channel_param(gbar, "gbar", "mS/cm^2", nonnegative=True)
        self.E = channel_param(E, "E", "mV")

    def rates(self, V, celsius):
        q = q10_factor(celsius)
        r = hh_rates(V)
        return {g: (q * r[g][0], q * r[g][1]) for g in self.gates}

    def conductance(self, gates):
        m = gates["m"]
        return self.gbar * (m * m * m) * gates["h"]


class PotassiumChannel(AbstractChannel):
    """Delayed-rectifier potassium channel of `hh`: `I_K = ḡ_K n⁴ (V − E_K)`; gate `n`; q10 = 3.

    Attributes:
        gbar: maximal conductance ḡ_K (mS/cm²); squid axon 36.
        E: reversal potential E_K (mV); squid axon −77.
    """

    gates = ("n",)
    gbar: Array
    E: Array

    def __init__(self, gbar: ArrayLike = 36.0, E: ArrayLike = -77.0):
        self.gbar = channel_param(gbar, "gbar", "mS/cm^2", nonnegative=True)
        self.E = channel_param(E, "E", "mV")

    def rates(self, V, celsius):
        q = q10_factor(celsius)
        a, b = hh_rates(V)["n"]
        return {"n": (q * a, q * b)}

    def conductance(self, gates):
        n2 = gates["n"] * gates["n"]
        return self.gbar * (n2 * n2)


class LeakChannel(AbstractChannel):
    """Passive leak `I_L = g_L (V − E_L)`; no gates.

    Attributes:
        g: conductance g_L (mS/cm²); squid axon 0.3.
        E: reversal potential E_L (mV); squid axon −54.3.
    """

    gates = ()
    g: Array
    E: Array

    def __init__(self, g: ArrayLike = 0.3, E: ArrayLike = -54.3):
        self.g = channel_param(g, "g", "mS/cm^2", nonnegative=True)
        self.E = channel_param(E, "E", "mV")

    def rates(self, V, celsius):
        return {}

    def conductance(self, gates):
        return self.g
