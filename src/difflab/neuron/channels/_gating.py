r"""Gate kinetics as papers write them: `(x∞, τx)` as well as `(α, β)`, and per-channel temperature rules.

The cell and its solvers read every gate as `(α, β)` in 1/ms, with `dx/dt = α (1 − x) − β x`; the exponential
(Rush–Larsen) update needs only `α + β = 1/τx` and `x∞ = α / (α + β)`. A gate given as `(x∞, τx)` is
therefore passed on as `α = x∞/τx`, `β = (1 − x∞)/τx` ([`inf_tau`][difflab.neuron.channels.inf_tau]), which gives
back `x∞` and `τx` to rounding. A gate may enter its channel's conductance with any exponent.
"""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

from .._channels import AbstractChannel, channel_param


def inf_tau(x_inf: Array, tau: Array, one_minus_inf: Array | None = None) -> tuple[Array, Array]:
    """`(α, β) = (x∞/τ, (1 − x∞)/τ)` in 1/ms from a steady state and a time constant `tau` (ms).

    `one_minus_inf` may pass `1 − x∞` computed without cancellation (e.g. the complementary sigmoid), so that
    a steady state near 1 keeps its relative accuracy in `β`.
    """
    rest = 1 - x_inf if one_minus_inf is None else one_minus_inf
    return x_inf / tau, rest / tau


def boltzmann(V: Array, half: float, slope: float) -> tuple[Array, Array]:
    """`(1/(1 + e^{−(V − half)/slope}), its complement)`, finite with finite gradients for every `V` (mV)."""
    z = (V - half) / slope
    return jax.nn.sigmoid(z), jax.nn.sigmoid(-z)


class Q10(eqx.Module):
    r"""A channel's temperature rule: its rates are multiplied by `q10^((T − reference)/10)`.

    $$q_t = q_{10}^{(T - T_\mathrm{ref})/10}, \qquad T = \texttt{celsius} \text{ if given, else the cell's.}$$

    The L5PC mechanisms of Hay et al. (2011) evaluate it at a fixed 34 °C, whatever the cell's temperature
    (`qt = 2.3^((34-21)/10)` in their .mod files): `Q10(2.3, 21.0, celsius=34.0)`, their default here. Pass
    `celsius=None` to follow the cell's temperature instead.

    Attributes:
        q10: factor per 10 °C (dimensionless, > 0).
        reference: temperature at which the rates were measured (°C).
        celsius: fixed temperature of the rule (°C), or `None` for the cell's.
    """

    q10: Array
    reference: Array
    celsius: Array | None

    def __init__(self, q10: ArrayLike = 2.3, reference: ArrayLike = 21.0, celsius: ArrayLike | None = 34.0):
        self.q10 = channel_param(q10, "q10", "1", positive=True)
        self.reference = channel_param(reference, "reference", "degC")
        self.celsius = None if celsius is None else channel_param(celsius, "celsius", "degC")

    def factor(self, celsius: ArrayLike) -> Array:
        """The rate factor at the cell's temperature `celsius` (°C)."""
        T = jnp.asarray(celsius) if self.celsius is None else self.celsius
        return self.q10 ** ((T - self.reference) / 10)


def conductance_param(gbar: ArrayLike) -> Array:
    """A maximal conductance (mS/cm², finite, >= 0)."""
    return channel_param(gbar, "gbar", "mS/cm^2", nonnegative=True)


def temperature_rule(temperature: Q10 | None) -> Q10:
    """The L5PC rule `Q10(2.3, 21, celsius=34)` unless one is given."""
    if temperature is None:
        return Q10()
    if not isinstance(temperature, Q10):
        raise TypeError(f"temperature must be a Q10 rule; got {type(temperature).__name__}")
    return temperature


class AbstractRuledChannel(AbstractChannel):
    """A library channel with a maximal conductance, a reversal potential and a temperature rule.

    Subclasses set `gates`, `ion`, their default reversal potential `default_E` (mV) and implement `rates` (with
    `self.temperature.factor(celsius)`) and `conductance`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (the .mod files' 1e-5 S/cm²).
        E: reversal potential (mV); default the class's `default_E`.
        temperature: rate factor rule; default `Q10(2.3, 21, celsius=34)`.
    """

    default_E: ClassVar[float]
    gbar: Array
    E: Array
    temperature: Q10

    def __init__(self, gbar: ArrayLike = 0.01, E: ArrayLike | None = None, temperature: Q10 | None = None):
        self.gbar = conductance_param(gbar)
        self.E = channel_param(type(self).default_E if E is None else E, "E", "mV")
        self.temperature = temperature_rule(temperature)
