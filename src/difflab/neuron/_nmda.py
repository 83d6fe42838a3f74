r"""NMDA receptor synapses: ``Exp2Syn`` conductance kinetics times the magnesium block of the open channel.

$$g_k(t) = w_k\,B(V_{\text{post}})\sum_s K(t - t_s - d_k), \qquad
  B(V) = \frac{1}{1 + e^{-0.062\,V}\,[\mathrm{Mg}^{2+}]_o / 3.57},$$

$K$ the two-state kernel of [`Exp2Synapses`][difflab.neuron.Exp2Synapses] (peak 1), $V$ in mV,
$[\mathrm{Mg}^{2+}]_o$ in mM (0.062 /mV and 3.57 mM as in Jahr and Stevens 1990, in the form NEURON models of
NMDA receptors write it). At 1 mM the block lets through 0.060 of the conductance at −65 mV, 0.78 at 0 mV.

**In the step.** The kinetics are linear in the spikes and stepped exactly like ``Exp2Syn``'s (their mean over
the step is exact); the block is not, since it follows the postsynaptic potential. The network's step
evaluates it where the scheme evaluates the channels' rates: the mean conductance over the step is multiplied
by $B$ at the step's predicted mid-point potential, so that the current stays linear in the new potential
(Crank–Nicolson) and the step second order; the conductance at the step's end takes $B$ at the solved
potential. See `difflab.neuron._network.network_step`.

Reference: Jahr and Stevens, *J. Neurosci.* 10, 3178 (1990).
"""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ._plasticity import TsodyksMarkram
from ._synapses import AbstractTwoStateSynapses, _init

_SLOPE = 0.062  # 1/mV
_HALF = 3.57  # mM


def magnesium_block(V: ArrayLike, mg: ArrayLike) -> Array:
    r"""$B(V) = 1/(1 + e^{-0.062 V}[\mathrm{Mg}]_o/3.57)$: the open fraction at ``V`` mV and ``mg`` mM."""
    return 1 / (1 + jnp.exp(-_SLOPE * jnp.asarray(V)) * (jnp.asarray(mg) / _HALF))


class NMDASynapses(AbstractTwoStateSynapses):
    r"""NMDA receptor synapses: rise ``tau1``, decay ``tau2`` (ms), peak ``weight`` µS unblocked, ``mg`` (mM).

    The conductance is `Exp2Synapses`' times the magnesium block $B(V)$ (see the module). Defaults: rise 2 ms,
    decay 100 ms, $E$ = 0 mV, $[\mathrm{Mg}^{2+}]_o$ = 1 mM; ``mg`` must be > 0 mM (refused otherwise; a
    block-free synapse is an `Exp2Synapses`).

    Example: ``NMDASynapses(pre=[0], post=[1], weight=0.001, delay=1.0, tau1=2.0, tau2=100.0, mg=1.0)``.
    """

    weight: Array
    delay: Array
    tau1: Array
    tau2: Array
    E: Array
    mg: Array
    pre: tuple[int, ...] = eqx.field(static=True)
    post: tuple[int, ...] = eqx.field(static=True)
    plasticity: TsodyksMarkram | None
    components: ClassVar[int] = 2
    voltage_dependent: ClassVar[bool] = True

    def __init__(self, pre, post, weight: ArrayLike, delay: ArrayLike, tau1: ArrayLike = 2.0,
                 tau2: ArrayLike = 100.0, E: ArrayLike = 0.0, mg: ArrayLike = 1.0,
                 plasticity: TsodyksMarkram | None = None):  # fmt: skip
        _init(self, pre, post, weight, delay, E, plasticity, tau1=tau1, tau2=tau2)
        self.check_rise_and_decay()
        values = np.asarray(mg, dtype=float)
        if values.ndim > 1 or values.shape not in ((), (len(self.pre),)):
            raise ValueError(f"mg must be a scalar or one value per synapse ({len(self.pre)}); got {values.shape}")
        if not np.isfinite(values).all() or (values <= 0).any():
            raise ValueError(f"mg must be > 0 mM (extracellular magnesium); got {values.min():g}")
        self.mg = jnp.asarray(mg, dtype=float)

    def block(self, V: Array) -> Array:
        r"""$B(V)$ at the postsynaptic potentials ``V`` (mV, ``(..., synapses)``)."""
        return magnesium_block(V, self.mg)

    def physical_checks(self):
        """`Exp2Synapses`' constraints and mg > 0 mM."""
        checks = super().physical_checks()
        checks["mg must be > 0 mM"] = (jnp.all(~(self.mg <= 0)), self.mg)
        return checks
