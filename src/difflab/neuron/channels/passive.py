r"""NEURON's passive membrane mechanism `pas`: `I = g (V − E)`, no gates.

Conductance: difflab's `g` is in mS/cm², 1000 × NEURON's `g_pas` in S/cm² (default 0.001 S/cm² = 1 mS/cm²);
`E` is `e_pas` (mV, default −70). The L5PC uses `g_pas` 3e-5 S/cm² (0.03 mS/cm²) and `e_pas` −75 mV.

Reference: NEURON's built-in `pas` (passive.mod); Hay et al., PLoS Comput Biol 7:e1002107 (2011).
"""

from __future__ import annotations

from jaxtyping import Array, ArrayLike

from .._channels import AbstractChannel, channel_param
from ._gating import conductance_param


class pas(AbstractChannel):
    """Passive leak `I = g (V − E)`.

    Attributes:
        g: conductance (mS/cm², >= 0); default 1 (`g_pas` 0.001 S/cm²).
        E: reversal potential `e_pas` (mV); default −70.
    """

    gates = ()
    g: Array
    E: Array

    def __init__(self, g: ArrayLike = 1.0, E: ArrayLike = -70.0):
        self.g = conductance_param(g)
        self.E = channel_param(E, "E", "mV")

    def rates(self, V, celsius):
        return {}

    def conductance(self, gates):
        return self.g
