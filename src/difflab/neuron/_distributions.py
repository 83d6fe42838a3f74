r"""Parameters that vary along a cell: a value as a function of the path distance from the soma.

Published cortical models give some densities as functions of the path distance $d$ (µm) from the soma's centre
(NEURON's `distance(soma(0.5), seg)`), evaluated at every compartment's centre. The L5 pyramidal cell of Hay et al.
(2011) raises its apical $I_h$ density exponentially,
$\bar g(d) = \bar g\,(-0.8696 + 2.087\,e^{0.0031\,d})$ (BluePyOpt's `exp` distribution), and confines its
dendritic calcium channels to a "hot zone" 685–885 µm from the soma.

A distribution is given per region and per channel parameter, `Region(..., distributions={"gbar_Ih":
Exponential(0.08)})` (BluePyOpt's `<field>_<channel>` name); it replaces the channel's own value of that field in
the region's compartments. Its fields are parameters of the cell like any other: differentiable, and fittable by
name (`"apic.gbar_Ih"` is the distribution's `value`, `"apic.gbar_Ih.rate"` its rate).

Reference: Hay, Hill, Schürmann, Markram & Segev, PLoS Comput Biol 7:e1002107 (2011); BluePyOpt's L5PC example.
"""

from __future__ import annotations

import abc

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

from ..core.internal import as_float

__all__ = ["AbstractDistribution", "Exponential", "Linear", "Sigmoid", "Uniform", "Window"]


class AbstractDistribution(eqx.Module):
    """A parameter's value at path distance `d` (µm) from the soma's centre.

    `value` is its scale, in the units of the parameter it gives (mS/cm² for a density).
    """

    value: eqx.AbstractVar[Array]

    @abc.abstractmethod
    def __call__(self, d: Array) -> Array:
        """The parameter's value at the distances `d` (µm)."""


class Uniform(AbstractDistribution):
    r"""$p(d) = \texttt{value}$ everywhere."""

    value: Array

    def __init__(self, value: ArrayLike):
        self.value = as_float(value, "value")

    def __call__(self, d):
        return jnp.broadcast_to(self.value[..., None], (*self.value.shape, *jnp.shape(d)[-1:]))


class Linear(AbstractDistribution):
    r"""$p(d) = \texttt{value} + \texttt{slope}\,d$ (`slope` per µm)."""

    value: Array
    slope: Array

    def __init__(self, value: ArrayLike, slope: ArrayLike):
        self.value, self.slope = as_float(value, "value"), as_float(slope, "slope")

    def __call__(self, d):
        return self.value[..., None] + self.slope[..., None] * d


class Exponential(AbstractDistribution):
    r"""$p(d) = \texttt{value}\,(a + b\,e^{\texttt{rate}\,d})$; the defaults are Hay's apical $I_h$ gradient.

    Attributes:
        value: the scale (the parameter's units).
        a, b: dimensionless; −0.8696 and 2.087 in Hay et al. (2011).
        rate: 1/µm; 0.0031 in Hay et al. (2011).
    """

    value: Array
    a: Array
    b: Array
    rate: Array

    def __init__(self, value: ArrayLike, a: ArrayLike = -0.8696, b: ArrayLike = 2.087, rate: ArrayLike = 0.0031):
        self.value, self.a = as_float(value, "value"), as_float(a, "a")
        self.b, self.rate = as_float(b, "b"), as_float(rate, "rate")

    def __call__(self, d):
        return self.value[..., None] * (self.a[..., None] + self.b[..., None] * jnp.exp(self.rate[..., None] * d))


class Sigmoid(AbstractDistribution):
    r"""A sigmoid from `value · low` near the soma to `value` far from it (`width` < 0 turns it around).

    $$p(d) = \texttt{value}\,\bigl(\texttt{low} + (1 - \texttt{low})\,
      \sigma((d - \texttt{midpoint})/\texttt{width})\bigr)$$
    """

    value: Array
    low: Array
    midpoint: Array
    width: Array

    def __init__(self, value: ArrayLike, low: ArrayLike, midpoint: ArrayLike, width: ArrayLike):
        self.value, self.low = as_float(value, "value"), as_float(low, "low")
        self.midpoint, self.width = as_float(midpoint, "midpoint"), as_float(width, "width")

    def __call__(self, d):
        s = jax.nn.sigmoid((d - self.midpoint[..., None]) / self.width[..., None])
        return self.value[..., None] * (self.low[..., None] + (1 - self.low[..., None]) * s)


class Window(AbstractDistribution):
    r"""`value` for `start` ≤ d ≤ `stop` and `value · outside` elsewhere: a "hot zone".

    Such as the 685–885 µm band of Hay et al. (2011), where the apical dendrite carries more calcium channels.

    The edges are sharp, as NEURON evaluates them per compartment: the value is differentiable in `value` and
    `outside`, not in `start` and `stop`.
    """

    value: Array
    outside: Array
    start: Array
    stop: Array

    def __init__(self, value: ArrayLike, outside: ArrayLike, start: ArrayLike, stop: ArrayLike):
        self.value, self.outside = as_float(value, "value"), as_float(outside, "outside")
        self.start, self.stop = as_float(start, "start"), as_float(stop, "stop")

    def __call__(self, d):
        inside = (d >= self.start[..., None]) & (d <= self.stop[..., None])
        return self.value[..., None] * jnp.where(inside, 1.0, self.outside[..., None])
