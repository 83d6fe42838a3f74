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

**State.** Every kernel is a sum of decaying exponentials (times $u$ for the alpha function), so the sum over
all spikes that have arrived is carried by one or two numbers per synapse that decay in closed form: a step of
length $h$ multiplies them by a fixed matrix and adds the spikes that arrived inside it, each at its exact
arrival time (see [`AbstractSynapses.advance`][difflab.neuron.AbstractSynapses.advance]). The conductance is
then exact at the step's ends and its mean over the step is exact too, whatever the number of spikes so far:
one pass over the synapses per step. [`AbstractSynapses.conductance`][difflab.neuron.AbstractSynapses.conductance]
evaluates the same sum directly from spike times (the reference the state is tested against).

In the kernel's unit of time $\tau$ (the decay), with $x$ the age of a spike in units of $\tau$, every kind is
a member of one family,

$$K(x) = a\,e^{-x} + b\,x e^{-x}\varphi(cx), \qquad \varphi(z) = (1 - e^{-z})/z \ (\varphi(0) = 1),$$

(`AbstractSynapses.form`): ``ExpSyn`` $a = 1$, $b = 0$; the alpha function $a = 0$, $b = e$, $c = 0$;
``Exp2Syn`` $a = 0$, $c = \tau/\tau_1 - 1$ and $b = (1 + c)\,e^{x_p}$ with $x_p = \ln(1 + c)/c$ (the peak is 1).
The sums $B = \sum_s e^{-x_s}$ and $D = \sum_s x_s e^{-x_s}\varphi(c x_s)$ give $\sum_s K = aB + bD$; over
$\delta = h/\tau$ they become $B e^{-\delta}$ and $e^{-\delta}\big(D + (B - cD)\,\delta\varphi(c\delta)\big)$
(`kernel_step`). This form has no cancellation as $\tau_1 \to \tau_2$, where ``Exp2Syn`` becomes the alpha
function. Synapses whose kernels are all pure exponentials carry $B$ alone.
"""

from __future__ import annotations

import abc
from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ._plasticity import TsodyksMarkram


class AbstractSynapses(eqx.Module):
    """A population of synapses of one kind.

    It holds ``pre``, ``post`` (cell indices), ``weight`` (µS), ``delay`` (ms), ``E`` (reversal potential, mV) and
    the kind's time constants (ms), one entry per synapse (scalars are broadcast), and optionally their
    short-term ``plasticity`` ([`TsodyksMarkram`][difflab.neuron.TsodyksMarkram]; ``None``: every spike delivers
    ``weight``).
    """

    weight: eqx.AbstractVar[Array]
    delay: eqx.AbstractVar[Array]
    E: eqx.AbstractVar[Array]
    pre: eqx.AbstractVar[tuple[int, ...]]
    post: eqx.AbstractVar[tuple[int, ...]]
    plasticity: eqx.AbstractVar[TsodyksMarkram | None]
    components: eqx.AbstractClassVar[int]  # numbers carried per synapse
    voltage_dependent: ClassVar[bool] = False  # whether `block` depends on the postsynaptic potential

    def block(self, V: Array) -> Array:
        """The factor of the conductance at postsynaptic potential ``V`` (mV, ``(..., synapses)``): 1 here."""
        return jnp.ones_like(V)

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
    def form(self) -> tuple[Array, Array, Array]:
        r"""The kernel as $K(x) = a\,e^{-x} + b\,x e^{-x}\varphi(cx)$: ``(a, b, c)``, ``(..., synapses)`` each.

        Every kind is a member of this family (see the module), so one set of formulas serves all kinds, and a
        network steps all its synapses at once whatever their kinds (`Network.advance_synapses`).
        """

    def kernel(self, x: Array) -> Array:
        r"""The conductance time course $K$ at $x = u/\tau \ge 0$ ($u$ ms after a spike's arrival; 1 at most).

        ``x`` has a trailing axis of buffered spikes: ``(..., synapses, buffer)``.
        """
        a, b, c = (_lift(v[..., None], x.ndim) for v in self.form())
        e = jnp.exp(-x)
        return a * e + b * e * x * _phi(c * x)

    def kernel_integral(self, x: Array) -> Array:
        r"""$\int_0^x K(s)\,ds$, ``x`` of shape ``(..., synapses, buffer)`` as in `kernel`."""
        a, b, c = (_lift(v[..., None], x.ndim) for v in self.form())
        em1 = jnp.expm1(-x)
        return -a * em1 + b * _area(x, c, 1 + em1, em1, _phi(c * x))

    def initial_state(self) -> Array:
        """The state of no spike yet: zeros of shape ``(..., synapses, components)``."""
        return jnp.zeros((*jnp.shape(self.weight), self.components), jnp.result_type(self.weight))

    def state_kernel(self, state: Array) -> Array:
        r"""$\sum_s K$ over the spikes that the state ``(..., synapses, components)`` holds: ``(..., synapses)``."""
        return state_kernel(self.form(), state)

    def state_derivative(self, state: Array) -> Array:
        r"""$dS/dt$ (per ms) between arrivals."""
        return state_derivative(self.form(), state, self.time_scale())

    def advance(self, state: Array, t0: Array, t1: Array, spikes: Array) -> tuple[Array, Array, Array, Array]:
        r"""One step $[t_0, t_1)$: conductances (µS) at $t_0$, their exact mean over the step, at $t_1$; new state.

        ``spikes`` are the presynaptic spike times (``(..., cells, buffer)``, ms; far in the past where empty). A
        spike arrives inside the step when $t_0 \le t_s + d < t_1$; it adds its own state $(t_1 - t_s - d)/\tau$
        after arrival and $\int K$ over the part of the step after it.

        At most one spike arrives per synapse and step, which holds at a constant step: a cell's upward crossings
        lie in steps at least two apart (a crossing needs the potential below threshold at its step's start), so
        two spikes of one cell, hence their arrivals through one delay, are more than a step apart.

        The two halves, `latest_arrival` and `step_state`, are apart so that a network finds the arrivals of all
        its populations at once.
        """
        tau = self.time_scale()
        x, arrived = latest_arrival(spikes, np.asarray(self.pre), self.delay, tau, t0, t1)
        return self.step_state(state, decay_factors(self.form()[2], (t1 - t0) / tau), x, arrived)

    def step_state(self, state: Array, factors, x: Array, arrived: Array, amplitude: Array | None = None):
        r"""`advance` once the step's `decay_factors` and the arrivals are known (see `kernel_step`).

        ``x`` is the age at the step's end of the spike that arrived inside it (in units of $\tau$, 0 where none)
        and ``arrived`` whether one did (``(..., synapses)`` each; see `latest_arrival`); ``amplitude`` scales
        the arriving spike's kernel (short-term plasticity's $uR$; 1 when ``None``).
        """
        g0, mean, g1, state1 = kernel_step(self.form(), state, factors, x, arrived, amplitude)
        w = self.weight
        return w * g0, w * mean, w * g1, state1

    def conductance(self, t: ArrayLike, spikes: Array) -> Array:
        """Conductance of every synapse at ``t`` (µS), shape ``(..., synapses)``, summed directly over spikes.

        It follows from the presynaptic spike times ``spikes`` (``(..., cells, buffer)``, ms; far in the past where
        empty); ``t`` may carry leading axes of its own (``(n, 1, 1)`` for ``n`` times). A network carries the
        same sum as a state (see `advance`); this is its reference.
        """
        pre = np.asarray(self.pre)
        shifted = t - spikes[..., pre, :]  # (..., synapses, buffer)
        u = shifted - _lift(self.delay[..., None], shifted.ndim)
        arrived = u >= 0
        safe = jnp.where(arrived, u, 0.0)  # double where: no inf/NaN in the unused branch's gradient
        kernel = self.kernel(safe / _lift(self.time_scale()[..., None], u.ndim))
        total = jnp.sum(jnp.where(arrived, kernel, 0.0), axis=-1)
        return _lift(self.weight, total.ndim) * total

    def mean_conductance(self, t0: float | Array, t1: float | Array, spikes: Array) -> Array:
        """Mean conductance over ``[t0, t1]`` (µS), exact: ``w τ Σ (∫K up to t1 − ∫K up to t0) / (t1 − t0)``."""
        pre = np.asarray(self.pre)
        arrival = spikes[..., pre, :] + _lift(self.delay[..., None], spikes.ndim)
        tau = _lift(self.time_scale()[..., None], arrival.ndim)
        x0 = jnp.maximum(t0 - arrival, 0.0) / tau
        x1 = jnp.maximum(t1 - arrival, 0.0) / tau
        area = jnp.sum((self.kernel_integral(x1) - self.kernel_integral(x0)) * tau, axis=-1)
        return _lift(self.weight, area.ndim) * area / (t1 - t0)


def _lift(values: Array, ndim: int) -> Array:
    """``values`` with leading axes of length 1 up to ``ndim``.

    Explicit broadcasting, as strict rank promotion asks, against arrays with extra leading axes (a batch of times).
    """
    values = jnp.asarray(values)
    return values.reshape((1,) * (ndim - values.ndim) + values.shape)


def latest_arrival(spikes: Array, pre: np.ndarray, delay: Array, tau: Array, t0: Array, t1: Array):
    r"""The spikes that arrive inside $[t_0, t_1)$ at each synapse: their age at the step's end, and whether any.

    The age is $x = (t_1 - t_s - d)/\tau$, 0 where none arrived; both are ``(..., synapses)``.
    ``spikes``: ``(..., cells, buffer)`` spike times (ms); ``pre``: the presynaptic cell of each synapse;
    ``delay``, ``tau``: ms per synapse. One gather and one reduction over the buffer whatever the synapses' kinds.
    """
    # (..., buffer, synapses): the reduction below runs over the leading axis, elementwise across the synapses
    arrival_times = jnp.swapaxes(spikes, -1, -2)[..., pre] + _lift(delay[..., None, :], spikes.ndim)
    inside = (arrival_times >= t0) & (arrival_times < t1)
    # one reduction over the buffer: whether a spike arrives follows from the latest arrival
    latest = jnp.max(jnp.where(inside, arrival_times, -jnp.inf), axis=-2)
    arrived = latest >= t0
    x = jnp.where(arrived, (t1 - jnp.where(arrived, latest, t0)) / tau, 0.0)  # in [0, delta]; double where
    return x, arrived


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
    if syn.plasticity is not None:
        checks.update(syn.plasticity.physical_checks())
    return checks


def _init(self, pre, post, weight, delay, E, plasticity=None, **taus):
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
    if plasticity is not None and not isinstance(plasticity, TsodyksMarkram):
        raise TypeError(f"plasticity must be a TsodyksMarkram or None; got {type(plasticity).__name__}")
    if plasticity is not None:
        plasticity.check_size(n)
    self.plasticity = plasticity


def _phi(z: Array) -> Array:
    r"""$\varphi(z) = (1 - e^{-z})/z$, with $\varphi(0) = 1$ (double where: finite gradients at 0)."""
    zero = z == 0
    safe = jnp.where(zero, 1.0, z)
    return jnp.where(zero, 1.0, -jnp.expm1(-safe) / safe)


def _area(x: Array, c: Array, e: Array, em1: Array, phi: Array) -> Array:
    r"""$\int_0^x e^{-s} s\varphi(cs)\,ds = \big(1 - e^{-x} - e^{-x} x\varphi(cx)\big)/(1 + c)$.

    ``e`` is $e^{-x}$, ``em1`` $e^{-x} - 1$ (from ``expm1``: no cancellation at small $x$) and ``phi``
    $\varphi(cx)$, which the callers also need elsewhere.
    """
    return (-em1 - e * x * phi) / (1 + c)


def two_state_norm(c: Array) -> Array:
    r"""$(1 + c)\,e^{x_p}$, $x_p = \ln(1 + c)/c$ the peak's position (1 at $c = 0$).

    $x e^{-x}\varphi(cx)$ times this peaks at 1.
    """
    zero = c == 0
    safe = jnp.where(zero, 1.0, c)
    return (1 + c) * jnp.exp(jnp.where(zero, 1.0, jnp.log1p(safe) / safe))


def state_kernel(form: tuple[Array, Array, Array], state: Array) -> Array:
    r"""$\sum_s K = aB + bD$ from the state ``(..., synapses, components)`` (``B`` alone with one component)."""
    a, b, _ = form
    if state.shape[-1] == 1:
        return a * state[..., 0]
    return a * state[..., 0] + b * state[..., 1]


def state_derivative(form: tuple[Array, Array, Array], state: Array, tau: Array) -> Array:
    r"""$dB/dt = -B/\tau$, $dD/dt = (B - (1 + c) D)/\tau$ between arrivals (per ms)."""
    B = state[..., 0]
    if state.shape[-1] == 1:
        return (-B / tau)[..., None]
    c = form[2]
    return jnp.stack([-B, B - (1 + c) * state[..., 1]], axis=-1) / tau[..., None]


def decay_factors(c: Array, delta: Array) -> tuple[Array, Array, Array]:
    r"""The factors of a step that depend on its length only: $\delta = h/\tau$, $e^{-\delta} - 1$, $\varphi(c\delta)$.

    ``c`` and ``delta`` broadcast together: per synapse, or one number per population (`Network.advance_synapses`
    passes all populations' numbers at once, so that their exponentials are one operation).
    """
    delta, cd = jnp.broadcast_arrays(delta, c * delta)
    zero = cd == 0
    safe = jnp.where(zero, 1.0, cd)  # double where: finite gradients at c = 0
    em1 = jnp.expm1(-jnp.stack([delta, safe]))  # one operation for both
    return delta, em1[0], jnp.where(zero, 1.0, -em1[1] / safe)


def kernel_step(form: tuple[Array, Array, Array], state: Array, factors, x: Array, arrived: Array, amplitude=None):
    r"""One step of the kernel sums: $\sum_s K$ at its start, its exact mean over the step, at its end; new state.

    ``form`` is `AbstractSynapses.form`'s $(a, b, c)$, ``state`` ``(..., synapses, components)``: $B$, and $D$
    when some $b \ne 0$ (one component: every kernel a pure exponential), ``factors`` the step's
    `decay_factors`. Over $\delta = h/\tau$ the state decays in closed form (see the module) and a spike that
    arrived inside the step adds its own state $x$ after arrival (``arrived``, ``x`` from `latest_arrival`) and
    $\int K$ over the part of the step after it, times ``amplitude`` where given (plasticity's $uR$).
    Elementwise over the synapses.
    """
    a, b, c = form
    # the arriving spike's share: 0 where none arrived, its amplitude where one did
    hit = arrived.astype(x.dtype) if amplitude is None else jnp.where(arrived, amplitude, 0.0)
    delta, em1, phi = factors
    e = 1 + em1
    B = state[..., 0]
    if state.shape[-1] == 1:
        # exp rather than expm1 (twice as fast in XLA, and evaluated for every synapse in every step): 1 - e^{-x}
        # then has an absolute error of one ulp of 1, and the step's mean w (1 - e^{-x}) / delta one of
        # w ulp / delta, far below the kernel's scale w
        ex = jnp.exp(-x)
        B1 = e * B + hit * ex
        mean = B * (-em1 / delta) + hit * (1 - ex) / delta
        return a * B, a * mean, a * B1, B1[..., None]
    D = state[..., 1]
    A = B - c * D  # the faster exponential's sum
    xm1 = jnp.expm1(-x)
    ex = 1 + xm1
    B1 = e * B + hit * ex
    phi_x = _phi(c * x)
    D1 = e * (D + A * delta * phi) + hit * (ex * x * phi_x)
    mean_B = -em1 * B - hit * xm1
    mean_D = -em1 * D + A * _area(delta, c, e, em1, phi) + hit * _area(x, c, ex, xm1, phi_x)
    return a * B + b * D, (a * mean_B + b * mean_D) / delta, a * B1 + b * D1, jnp.stack([B1, D1], axis=-1)


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
    plasticity: TsodyksMarkram | None
    components: ClassVar[int] = 1

    def __init__(self, pre, post, weight: ArrayLike, delay: ArrayLike, tau: ArrayLike = 2.0, E: ArrayLike = 0.0,
                 plasticity: TsodyksMarkram | None = None):  # fmt: skip
        _init(self, pre, post, weight, delay, E, plasticity, tau=tau)

    def form(self):
        """$K(x) = e^{-x}$: ``a = 1``, ``b = c = 0``."""
        one = jnp.ones_like(self.tau)
        return one, jnp.zeros_like(one), jnp.zeros_like(one)


class AlphaSynapses(_AbstractOneTau):
    """Alpha-function conductances ``weight · (u/τ) e^{1 − u/τ}`` (peak ``weight`` µS at ``τ`` ms after arrival)."""

    weight: Array
    delay: Array
    tau: Array
    E: Array
    pre: tuple[int, ...] = eqx.field(static=True)
    post: tuple[int, ...] = eqx.field(static=True)
    plasticity: TsodyksMarkram | None
    components: ClassVar[int] = 2

    def __init__(self, pre, post, weight: ArrayLike, delay: ArrayLike, tau: ArrayLike = 2.0, E: ArrayLike = 0.0,
                 plasticity: TsodyksMarkram | None = None):  # fmt: skip
        _init(self, pre, post, weight, delay, E, plasticity, tau=tau)

    def form(self):
        r"""$K(x) = e\,x e^{-x}$: ``a = 0``, ``b = e``, ``c = 0``."""
        zero = jnp.zeros_like(self.tau)
        return zero, two_state_norm(zero), zero


class AbstractTwoStateSynapses(AbstractSynapses):
    r"""Synapses with NEURON's ``Exp2Syn`` kernel: rise ``tau1`` < decay ``tau2`` (ms), peak 1 (see `Exp2Synapses`).

    The concrete kinds (`Exp2Synapses`, `NMDASynapses`) declare the fields and `__init__`; this class shares the
    methods that read the time constants.
    """

    tau1: eqx.AbstractVar[Array]
    tau2: eqx.AbstractVar[Array]

    def check_rise_and_decay(self) -> None:
        """Refuse ``tau1 >= tau2`` eagerly (called by the kinds' `__init__`)."""
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

    def form(self):
        r"""$K(x) = (1 + c)\,e^{x_p}\,x e^{-x}\varphi(cx)$ with $c = (\tau_2 - \tau_1)/\tau_1$: ``a = 0``."""
        c = (self.tau2 - self.tau1) / self.tau1
        return jnp.zeros_like(c), two_state_norm(c), c


class Exp2Synapses(AbstractTwoStateSynapses):
    r"""Two-state kinetic synapses, NEURON's ``Exp2Syn``: rise ``tau1`` and decay ``tau2`` (ms), peak ``weight`` µS.

    NEURON integrates two states that decay independently, $A' = -A/\tau_1$, $B' = -B/\tau_2$, adds
    $w f$ to both on every event and takes $g = B - A$; the sum over spikes is that solution in closed form,

    $$K(u) = f\,\big(e^{-u/\tau_2} - e^{-u/\tau_1}\big), \qquad
      t_p = \frac{\tau_1 \tau_2}{\tau_2 - \tau_1} \ln\frac{\tau_2}{\tau_1}, \qquad
      f = \frac{1}{e^{-t_p/\tau_2} - e^{-t_p/\tau_1}},$$

    so that $K$ peaks at 1 at $u = t_p$ and a synapse's conductance at $w$ µS. In the kernel's variable
    $x = u/\tau_2$, with $c = (\tau_2 - \tau_1)/\tau_1$ and $x_p = t_p/\tau_2 = \ln(1 + c)/c$, it is
    $K = (1 + c)\, e^{x_p}\, x e^{-x}\varphi(cx)$ with $\varphi(z) = (1 - e^{-z})/z$; the network carries
    $e^{-x}$ and $x e^{-x}\varphi(cx)$ summed over spikes instead of NEURON's $A$ and $B$ (whose difference
    cancels as $\tau_1 \to \tau_2$, where this kernel becomes `AlphaSynapses`' with $\tau = \tau_2$).

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
    plasticity: TsodyksMarkram | None
    components: ClassVar[int] = 2

    def __init__(self, pre, post, weight: ArrayLike, delay: ArrayLike, tau1: ArrayLike = 0.5, tau2: ArrayLike = 2.0,
                 E: ArrayLike = 0.0, plasticity: TsodyksMarkram | None = None):  # fmt: skip
        _init(self, pre, post, weight, delay, E, plasticity, tau1=tau1, tau2=tau2)
        self.check_rise_and_decay()
