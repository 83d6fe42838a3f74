r"""Conductance-based synapses driven by presynaptic spikes with delays; connectivity as arrays.

A synapse $k$ from cell ``pre[k]`` to cell ``post[k]`` opens a conductance (µS) after every presynaptic spike
$t_s$ (an upward crossing of the network's threshold) once the delay $d_k$ (ms) has passed:

$$g_k(t) = w_k \sum_s K\big(t - t_s - d_k\big), \qquad I_k = g_k(t)\,(V_{\text{post}} - E_k) \ \text{(nA)},$$

with $K(u) = 0$ for $u < 0$ and, for $u \ge 0$,

- [`ExpSynapses`][difflab.neuron.ExpSynapses]: $K(u) = e^{-u/\tau}$ (NEURON's ``ExpSyn`` with a ``NetCon`` of
  weight $w$);
- [`AlphaSynapses`][difflab.neuron.AlphaSynapses]: $K(u) = \tfrac{u}{\tau} e^{1 - u/\tau}$ (peak $w$ at
  $u = \tau$).

The sum runs over the spikes a [`Network`][difflab.neuron.Network] keeps per cell; it is exact, not an ODE, so
the conductance is right at any time inside a step.
"""

from __future__ import annotations

import abc

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike


class AbstractSynapses(eqx.Module):
    """A population of synapses of one kind: ``pre``, ``post`` (cell indices), ``weight`` (µS), ``delay`` (ms),
    ``tau`` (ms), ``E`` (reversal potential, mV), one entry per synapse (scalars are broadcast)."""

    weight: eqx.AbstractVar[Array]
    delay: eqx.AbstractVar[Array]
    tau: eqx.AbstractVar[Array]
    E: eqx.AbstractVar[Array]
    pre: eqx.AbstractVar[tuple[int, ...]]
    post: eqx.AbstractVar[tuple[int, ...]]

    @abc.abstractmethod
    def kernel(self, x: Array) -> Array:
        """The conductance time course $K$ at $x = u/\\tau \\ge 0$ ($u$ ms after a spike's arrival; 1 at most)."""

    @abc.abstractmethod
    def kernel_integral(self, x: Array) -> Array:
        """$\\int_0^x K(s)\\,ds$ (the step's mean conductance is exact, also when a spike arrives inside it)."""

    def conductance(self, t: ArrayLike, spikes: Array) -> Array:
        """Conductance of every synapse at ``t`` (µS), shape ``(..., synapses)``, from the presynaptic spike
        times ``spikes`` (``(..., cells, buffer)``, ms; far in the past where empty)."""
        pre = np.asarray(self.pre)
        u = t - spikes[..., pre, :] - self.delay[..., None]  # (..., synapses, buffer)
        arrived = u >= 0
        safe = jnp.where(arrived, u, 0.0)  # double where: no inf/NaN in the unused branch's gradient
        return self.weight * jnp.sum(jnp.where(arrived, self.kernel(safe / self.tau[..., None]), 0.0), axis=-1)

    def mean_conductance(self, t0: ArrayLike, t1: ArrayLike, spikes: Array) -> Array:
        """Mean conductance over ``[t0, t1]`` (µS), exact: ``w τ Σ (∫K up to t1 − ∫K up to t0) / (t1 − t0)``."""
        pre = np.asarray(self.pre)
        arrival = spikes[..., pre, :] + self.delay[..., None]
        tau = self.tau[..., None]
        x0 = jnp.maximum(t0 - arrival, 0.0) / tau
        x1 = jnp.maximum(t1 - arrival, 0.0) / tau
        area = self.kernel_integral(x1) - self.kernel_integral(x0)
        return self.weight * jnp.sum(area * tau, axis=-1) / (t1 - t0)


def _init(self, pre, post, weight, delay, tau, E):
    pre_a, post_a = np.asarray(pre), np.asarray(post)
    if pre_a.ndim != 1 or post_a.shape != pre_a.shape or not np.issubdtype(pre_a.dtype, np.integer):
        raise ValueError(f"pre and post must be 1-D integer arrays of one length; got {pre_a.shape}, {post_a.shape}")
    n = pre_a.size
    self.pre, self.post = tuple(int(i) for i in pre_a), tuple(int(i) for i in post_a)
    for name, value, units, low in (("weight", weight, "µS", 0.0), ("delay", delay, "ms", None),
                                    ("tau", tau, "ms", None), ("E", E, "mV", None)):  # fmt: skip
        value = np.asarray(value, dtype=float) if isinstance(value, list | tuple) else value
        arr = jnp.asarray(value, dtype=float) if not jnp.issubdtype(jnp.asarray(value).dtype, jnp.floating) else value
        arr = jnp.broadcast_to(jnp.asarray(arr), (n,)) if jnp.ndim(arr) == 0 else jnp.asarray(arr)
        if arr.shape[-1:] != (n,):
            raise ValueError(f"{name} must be a scalar or one value per synapse ({n}); got shape {arr.shape}")
        values = np.asarray(arr)
        if not np.isfinite(values).all():
            raise ValueError(f"{name} must be finite ({units})")
        if name == "weight" and (values < low).any():
            raise ValueError(f"weight must be >= 0 µS (the sign of a synapse is its reversal E); got {values.min()}")
        if name in ("delay", "tau") and (values <= 0).any():
            raise ValueError(f"{name} must be > 0 ms; got {values.min()}")
        setattr(self, name, arr)


class ExpSynapses(AbstractSynapses):
    """Exponentially decaying conductances, NEURON's ``ExpSyn`` (a jump of ``weight`` µS, decay ``tau`` ms).

    Example: ``ExpSynapses(pre=[0, 1], post=[1, 2], weight=0.01, delay=[2.0, 3.0], tau=2.0, E=0.0)``.
    """

    weight: Array
    delay: Array
    tau: Array
    E: Array
    pre: tuple[int, ...] = eqx.field(static=True)
    post: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, pre, post, weight: ArrayLike, delay: ArrayLike, tau: ArrayLike = 2.0, E: ArrayLike = 0.0):
        _init(self, pre, post, weight, delay, tau, E)

    def kernel(self, x):
        return jnp.exp(-x)

    def kernel_integral(self, x):
        return -jnp.expm1(-x)


class AlphaSynapses(AbstractSynapses):
    """Alpha-function conductances ``weight · (u/τ) e^{1 − u/τ}`` (peak ``weight`` µS at ``τ`` ms after arrival)."""

    weight: Array
    delay: Array
    tau: Array
    E: Array
    pre: tuple[int, ...] = eqx.field(static=True)
    post: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, pre, post, weight: ArrayLike, delay: ArrayLike, tau: ArrayLike = 2.0, E: ArrayLike = 0.0):
        _init(self, pre, post, weight, delay, tau, E)

    def kernel(self, x):
        return x * jnp.exp(1 - x)

    def kernel_integral(self, x):
        return jnp.e * (1 - (1 + x) * jnp.exp(-x))
