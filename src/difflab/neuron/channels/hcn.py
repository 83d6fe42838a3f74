r"""Hyperpolarisation-activated cation current `Ih` of the L5 pyramidal cell model (Hay et al. 2011).

$$I = \bar g\, m\, (V - E_h),\qquad \alpha_m = \frac{0.00643\,(V + 154.9)}{e^{(V + 154.9)/11.9} - 1},\quad
\beta_m = 0.193\, e^{V/33.1}\quad (1/\text{ms}),$$

a nonspecific current (`ihcn` in NEURON) with `E_h = −45` mV, no temperature factor; `α_m` through
[`vtrap`][difflab.neuron.vtrap], finite at −154.9 mV.

Conductances: difflab's `gbar` is in mS/cm², 1000 × the .mod's `gIhbar` in S/cm² (default 1e-5 S/cm² =
0.01 mS/cm²; the L5PC soma has 8e-5 S/cm² = 0.08 mS/cm²).

Reference: Hay, Hill, Schürmann, Markram & Segev, PLoS Comput Biol 7:e1002107 (2011); ModelDB 139653; after
Kole, Hallermann & Stuart, J. Neurosci. 26:1677 (2006).
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

from .._channels import AbstractChannel, channel_param
from .._rates import vtrap
from ._gating import conductance_param


class Ih(AbstractChannel):
    """The HCN current `I = ḡ m (V − E)`; gate `m_Ih`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (.mod 1e-5 S/cm²).
        E: reversal potential `ehcn` (mV); default −45.
    """

    gates = ("m_Ih",)
    gbar: Array
    E: Array

    def __init__(self, gbar: ArrayLike = 0.01, E: ArrayLike = -45.0):
        self.gbar = conductance_param(gbar)
        self.E = channel_param(E, "E", "mV")

    def rates(self, V, celsius):
        return {"m_Ih": (0.00643 * vtrap(V + 154.9, 11.9), 0.193 * jnp.exp(V / 33.1))}

    def conductance(self, gates):
        return self.gbar * gates["m_Ih"]
