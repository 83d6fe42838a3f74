r"""Conductance-based synapses driven by presynaptic spikes with delays; connectivity as arrays.

A synapse $k$ from cell ``pre[k]`` to cell ``post[k]`` opens a conductance (µS) after every presynaptic spike
$t_s$ (an upward crossing of the network's threshold) once the delay $d_k$ (ms) has passed:

$$g_k(t) = w_k \sum_s K\big(t - t_s - d_k\big), \qquad I_k = g_k(t)\,(V_{\text{post}} - E_k) \ \text{(nA)},$$

with $K(u) = 0$ for $u < 0$ and, for $u \ge 0$,

- [`ExpSynapses`][difflab.neuron.ExpSynapses]: $K(u) = e^{-u/\tau}$ (NEURON's ``ExpSyn`` with a ``NetCon`` of
  weight $w$);
- [`AlphaSynapses`][difflab.neuron.AlphaSynapses]: $K(u) = \tfrac{u}{\tau} e^{1 - u/\tau}$ (peak $w$ at
  $u = \tau$);
- [`Exp2Synapses`][difflab.neuron.Exp2Synapses]: $K(u) = f\,(e^{-u/\tau_2} - e^{-u/\tau_1})$, rise $\tau_1$
  and decay $\tau_2 > \tau_1$, normalised to peak $w$ (NEURON's two-state kinetic ``Exp2Syn``).

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
    """A population of synapses of one kind.

    It holds ``pre``, ``post`` (cell indices), ``weight`` (µS), ``delay`` (ms), ``E`` (reversal potential, mV) and
    the kind's time constants (ms), one entry per synapse (scalars are broadcast).
    """

    weight: eqx.AbstractVar[Array]
    delay: eqx.AbstractVar[Array]
    E: eqx.AbstractVar[Array]
    pre: eqx.AbstractVar[tuple[int, ...]]
    post: eqx.AbstractVar[tuple[int, ...]]

    @abc.abstractmethod
    def time_scale(self) -> Array:
        r"""$\tau$ (ms, one per synapse), the unit of the kernel's variable $x = u/\tau$."""

    @abc.abstractmethod
    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        """The constraints on the values, ``{"<field> must be <expected>": (ok, value)}``.

        ``ok`` is over all synapses (weight >= 0 µS, delay > 0 ms, time constants > 0 ms, ...). A
        [`Network`][difflab.neuron.Network] states them under each population's path, so that they hold in
        `replace`, batches and fits as they do at construction.
        """

    @abc.abstractmethod
    def kernel(self, x: Array) -> Array:
        r"""The conductance time course $K$ at $x = u/\tau \ge 0$ ($u$ ms after a spike's arrival; 1 at most)."""

    @abc.abstractmethod
    def kernel_integral(self, x: Array) -> Array:
        r"""$\int_0^x K(s)\,ds$ (the step's mean conductance is exact, also when a spike arrives inside it)."""

    def conductance(self, t: ArrayLike, spikes: Array) -> Array:
        """Conductance of every synapse at ``t`` (µS), shape ``(..., synapses)``.

        It follows from the presynaptic spike times ``spikes`` (``(..., cells, buffer)``, ms; far in the past where
        empty).
        """
        pre = np.asarray(self.pre)
        u = t - spikes[..., pre, :] - self.delay[..., None]  # (..., synapses, buffer)
        arrived = u >= 0
        safe = jnp.where(arrived, u, 0.0)  # double where: no inf/NaN in the unused branch's gradient
        return self.weight * jnp.sum(jnp.where(arrived, self.kernel(safe / self.time_scale()[..., None]), 0.0), axis=-1)

    def mean_conductance(self, t0: float | Array, t1: float | Array, spikes: Array) -> Array:
        """Mean conductance over ``[t0, t1]`` (µS), exact: ``w τ Σ (∫K up to t1 − ∫K up to t0) / (t1 − t0)``."""
        pre = np.asarray(self.pre)
        arrival = spikes[..., pre, :] + self.delay[..., None]
        tau = self.time_scale()[..., None]
        x0 = jnp.maximum(t0 - arrival, 0.0) / tau
        x1 = jnp.maximum(t1 - arrival, 0.0) / tau
        area = self.kernel_integral(x1) - self.kernel_integral(x0)
        return self.weight * jnp.sum(area * tau, axis=-1) / (t1 - t0)


def _holds(ok: Array, value: Array) -> tuple[Array, Array]:
    """One flag per network (member of a batch), not per synapse, shown with the value that decides it."""
    return jnp.all(ok, axis=-1), value


def _checks(syn: AbstractSynapses, **time_constants: Array) -> dict[str, tuple[Array, Array]]:
    checks = {
        "weight must be >= 0 uS": _holds(~(syn.weight < 0), jnp.min(syn.weight, axis=-1)),
        "delay must be > 0 ms": _holds(~(syn.delay <= 0), jnp.min(syn.delay, axis=-1)),
    }
    checks.update(
        {f"{name} must be > 0 ms": _holds(~(v <= 0), jnp.min(v, axis=-1)) for name, v in time_constants.items()}
    )
    return checks


def _init(self, pre, post, weight, delay, E, **taus):
    pre_a, post_a = np.asarray(pre), np.asarray(post)
    if pre_a.ndim != 1 or post_a.shape != pre_a.shape or not np.issubdtype(pre_a.dtype, np.integer):
        raise ValueError(f"pre and post must be 1-D integer arrays of one length; got {pre_a.shape}, {post_a.shape}")
    n = pre_a.size
    self.pre, self.post = tuple(int(i) for i in pre_a), tuple(int(i) for i in post_a)
    fields = [("weight", weight, "µS", 0.0), ("delay", delay, "ms", None), ("E", E, "mV", None)]
    for name, value, units, low in fields[:2] + [(k, v, "ms", None) for k, v in taus.items()] + fields[2:]:
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
        if (name == "delay" or name in taus) and (values <= 0).any():
            raise ValueError(f"{name} must be > 0 ms; got {values.min()}")
        setattr(self, name, arr)


class _AbstractOneTau(AbstractSynapses):
    """Synapses whose kernel has one time constant ``tau`` (ms), the kernel's unit of time.

    The concrete kinds declare the fields and `__init__` (Equinox's abstract/final pattern); this class only
    shares the methods that read ``tau``.
    """

    tau: eqx.AbstractVar[Array]

    def time_scale(self):
        return self.tau

    def physical_checks(self):
        return _checks(self, tau=self.tau)


class ExpSynapses(_AbstractOneTau):
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
        _init(self, pre, post, weight, delay, E, tau=tau)

    def kernel(self, x):
        return jnp.exp(-x)

    def kernel_integral(self, x):
        return -jnp.expm1(-x)


class AlphaSynapses(_AbstractOneTau):
    """Alpha-function conductances ``weight · (u/τ) e^{1 − u/τ}`` (peak ``weight`` µS at ``τ`` ms after arrival)."""

    weight: Array
    delay: Array
    tau: Array
    E: Array
    pre: tuple[int, ...] = eqx.field(static=True)
    post: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, pre, post, weight: ArrayLike, delay: ArrayLike, tau: ArrayLike = 2.0, E: ArrayLike = 0.0):
        _init(self, pre, post, weight, delay, E, tau=tau)

    def kernel(self, x):
        return x * jnp.exp(1 - x)

    def kernel_integral(self, x):
        return jnp.e * (1 - (1 + x) * jnp.exp(-x))


class Exp2Synapses(AbstractSynapses):
    r"""Two-state kinetic synapses, NEURON's ``Exp2Syn``: rise ``tau1`` and decay ``tau2`` (ms), peak ``weight`` µS.

    NEURON integrates two states that decay independently, $A' = -A/\tau_1$, $B' = -B/\tau_2$, adds
    $w f$ to both on every event and takes $g = B - A$; the sum over spikes is that solution in closed form,

    $$K(u) = f\,\big(e^{-u/\tau_2} - e^{-u/\tau_1}\big), \qquad
      t_p = \frac{\tau_1 \tau_2}{\tau_2 - \tau_1} \ln\frac{\tau_2}{\tau_1}, \qquad
      f = \frac{1}{e^{-t_p/\tau_2} - e^{-t_p/\tau_1}},$$

    so that $K$ peaks at 1 at $u = t_p$ and a synapse's conductance at $w$ µS. In the kernel's variable
    $x = u/\tau_2$, with $c = (\tau_2 - \tau_1)/\tau_1$ and $x_p = t_p/\tau_2 = \ln(1 + c)/c$, it is evaluated
    as $K = (1 + c)\, e^{x_p - x}\, \big(1 - e^{-cx}\big)/c$ and integrated as
    $\int_0^x K = e^{x_p}\big(1 - e^{-x} + e^{-x}(e^{-cx} - 1)/c\big)$, both without cancellation as
    $\tau_1 \to \tau_2$ (where they become `AlphaSynapses`' kernel with $\tau = \tau_2$).

    Time constants: $0 < \tau_1 < \tau_2$, refused otherwise. NEURON instead replaces ``tau1`` by
    $0.9999\,\tau_2$ when $\tau_1/\tau_2 > 0.9999$ and by $10^{-9}\tau_2$ when $\tau_1/\tau_2 < 10^{-9}$;
    difflab keeps the values given, so only such ratios differ from NEURON.

    Example: ``Exp2Synapses(pre=[0, 1], post=[1, 2], weight=0.001, delay=[2.0, 3.0], tau1=0.5, tau2=2.0, E=0.0)``.

    References: NEURON's ``exp2syn.mod`` (``src/nrnoc/exp2syn.mod``); Hines and Carnevale, *The NEURON Book*
    (2006), ch. 10.
    """

    weight: Array
    delay: Array
    tau1: Array
    tau2: Array
    E: Array
    pre: tuple[int, ...] = eqx.field(static=True)
    post: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, pre, post, weight: ArrayLike, delay: ArrayLike, tau1: ArrayLike = 0.5, tau2: ArrayLike = 2.0,
                 E: ArrayLike = 0.0):  # fmt: skip
        _init(self, pre, post, weight, delay, E, tau1=tau1, tau2=tau2)
        rise, decay = np.broadcast_arrays(np.asarray(self.tau1), np.asarray(self.tau2))
        if (rise >= decay).any():
            k = int(np.argmax(rise >= decay))
            raise ValueError(
                f"tau1 must be < tau2 (rise faster than decay, ms); got tau1 = {rise.flat[k]:g} >= "
                f"tau2 = {decay.flat[k]:g}"
            )

    def time_scale(self):
        """The decay ``tau2`` (ms)."""
        return self.tau2

    def physical_checks(self):
        """Weight >= 0 µS, delay > 0 ms, 0 < tau1 < tau2 ms."""
        checks = _checks(self, tau1=self.tau1)
        ratio = self.tau1 / self.tau2
        checks["tau1/tau2 must be < 1 (rise faster than decay)"] = _holds(~(ratio >= 1), jnp.max(ratio, axis=-1))
        return checks

    def _c(self) -> Array:
        return ((self.tau2 - self.tau1) / self.tau1)[..., None]  # per synapse, against the spike buffer

    def kernel(self, x):
        c = self._c()
        return (1 + c) * jnp.exp(jnp.log1p(c) / c - x) * (-jnp.expm1(-c * x) / c)

    def kernel_integral(self, x):
        c = self._c()
        return jnp.exp(jnp.log1p(c) / c) * (-jnp.expm1(-x) + jnp.exp(-x) * jnp.expm1(-c * x) / c)
