"""Calibration losses: trace MSE with masks, spike-time and firing-rate features, user callables.

Every loss is called per recording and start as `loss(pred, data, mask) -> scalar` where
`pred`, `data` and `mask` map each fitted variable to an array `(time, ...)` on the data
times. `mask` is `False` where a sample is missing (NaN in the data). Least-squares losses
also give `residuals(...)`, which Gauss–Newton / Levenberg–Marquardt use directly.
"""

from __future__ import annotations

import abc
import numbers
from collections.abc import Callable

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array

from ..core.internal import first_crossings, soft_crossing_count, upward_crossings


class AbstractLoss(eqx.Module):
    """A scalar objective of the predicted and measured outputs."""

    #: True when the loss is a sum of squared `residuals` (enables Gauss–Newton / LM).
    least_squares = False

    @abc.abstractmethod
    def __call__(self, pred: dict[str, Array], data: dict[str, Array], mask: dict[str, Array]) -> Array:
        """The loss value (a scalar)."""

    def residuals(self, pred: dict[str, Array], data: dict[str, Array], mask: dict[str, Array]) -> Array:
        raise TypeError(f"{type(self).__name__} is not a least-squares loss")

    def count(self, data: dict[str, Array], mask: dict[str, Array]) -> Array:
        r"""How many observations the residuals stand for (the $n$ of $\hat\sigma^2 = \mathrm{RSS}/(n - p)$)."""
        raise TypeError(f"{type(self).__name__} is not a least-squares loss")

    def with_times(self, ts: Array) -> AbstractLoss:
        """This loss given the data's sample times, if it reads them (a field `ts`) and was built without."""
        if getattr(self, "ts", False) is None:
            return eqx.tree_at(lambda l: l.ts, self, ts, is_leaf=lambda x: x is None)
        return self


def _check_weight(w: float, label: str) -> float:
    if not (w > 0 and w < float("inf")):
        raise ValueError(f"{label} must be a finite number > 0; got {w!r}")
    return w


def _check_slope(slope) -> float:
    """`SpikeTimes.missing_slope` as a float: a finite real number ≥ 0 (ms per mV), NumPy scalars included."""
    value = float(slope) if isinstance(slope, numbers.Real) and not isinstance(slope, bool) else float("nan")
    if not 0 <= value < float("inf"):
        raise ValueError(f"SpikeTimes missing_slope must be a finite number ≥ 0 (ms per mV); got {slope!r}")
    return value


def _by_trace(x):
    """`x` `(time, ...)` as `(traces, time)`: every index after time is a trace of its own."""
    return jnp.reshape(x, (x.shape[0], -1)).T


def _weight_pairs(weights) -> tuple[tuple[str, float], ...]:
    """`weights` (a dict or pairs) as sorted `(variable, weight)` pairs, each weight a finite number > 0."""
    pairs = tuple(sorted((str(k), float(w)) for k, w in dict(weights).items()))
    return tuple((name, _check_weight(w, f"weights[{name!r}]")) for name, w in pairs)


class MSE(AbstractLoss):
    r"""Trace mean squared error, summed over variables, missing samples left out.

    $$L = \sum_v w_v \frac{1}{n_v} \sum_{i \in \text{measured}} (\hat y_{v,i} - y_{v,i})^2$$

    with $n_v$ the number of measured samples of variable $v$ (units: squared data units).

    Args:
        weights: optional per-variable weights $w_v$ (default 1), e.g. to balance mV and gates: a dict
            `{variable: weight}` (or its `(variable, weight)` pairs).
    """

    # kept as sorted pairs: a static field must be hashable, and equal weights give the same compiled program
    weights: tuple[tuple[str, float], ...] = eqx.field(static=True, default=(), converter=_weight_pairs)
    least_squares = True

    def residuals(self, pred, data, mask):
        weights = dict(self.weights)
        parts = []
        for name in sorted(data):
            n = jnp.maximum(jnp.sum(mask[name]), 1).astype(jnp.result_type(pred[name]))  # a count, in pred's dtype
            scale = jnp.sqrt(weights.get(name, 1.0) / n)
            parts.append(jnp.ravel(jnp.where(mask[name], pred[name] - data[name], 0.0) * scale))
        return jnp.concatenate(parts)

    def __call__(self, pred, data, mask):
        return jnp.sum(self.residuals(pred, data, mask) ** 2)

    def count(self, data, mask):
        """The number of measured samples."""
        return sum(jnp.sum(mask[name]) for name in sorted(data))


class SpikeTimes(AbstractLoss):
    r"""Mean squared difference of the first spike times (upward `threshold` crossings).

    $$L = \frac1{n} \sum_{k \le n} (\hat t_k - t_k)^2$$

    over the $n$ spikes found in the data (up to `max_spikes` per trace: a variable with axes after time, such as
    the recordings of a joint fit, is a trace per index, and $n$ counts the spikes of all). The $k$-th spike of one
    is compared with the $k$-th of the other, and a spike that only one of them has is compared with the last data
    time $T$:

    - an extra spike costs its distance from the end of the recording, so a model that fires once too often is
      pushed to fire later until the spike leaves the recording, instead of fitting the data's spikes with a spike
      to spare;
    - a missing spike costs $T - t_k + s\,(\theta - \hat v_{\max})$, where $\hat v_{\max}$ is the highest sample
      of the prediction after the trough that follows its last sample at or above $\theta$ (the bump where its
      next spike would rise; the whole trace where it has none) and $s$ is `missing_slope`. The time alone would
      not move with the parameters, and a fit would never find the spike; the bump's height does, and the fit
      raises it until the spike appears.

    Samples the data leave out (NaN, or outside a window of `GrowingWindows`) are left out of the prediction too.
    A least-squares loss (residuals $(\hat t_k - t_k)/\sqrt n$), so Levenberg–Marquardt fits it and the fit reports
    standard errors: use it when only the spike times of a recording can be trusted (drifting baseline, filtered or
    clipped trace).

    Args:
        variable: the voltage-like output (e.g. `"V"`, mV).
        threshold: crossing level (same units; 0 mV in NEURON's convention).
        max_spikes: how many spikes to compare (static, sets array shapes).
        refractory: in the *data*, a crossing this soon (time units, e.g. ms) after another belongs to
            the same spike and is not counted: with 1 mV of noise the squid axon's spikes (about 1.5 ms
            above 0 mV at 6.3 °C) cross 0 mV again on their slow downstroke. Keep it below the
            shortest interspike interval.
        missing_slope: what each mV by which a missing spike's bump stays below `threshold` costs, in time
            units (ms per mV): 0.1 ms/mV makes a bump 10 mV short cost as much as a spike 1 ms off, enough
            to guide the fit without outweighing the spikes it is placing (the L5PC's spike-time fits, docs/cells.md);
            0 leaves a missing spike its distance from the end alone.
    """

    variable: str = eqx.field(static=True, default="V")
    threshold: float = eqx.field(static=True, default=0.0)
    max_spikes: int = eqx.field(static=True, default=16)
    refractory: float = eqx.field(static=True, default=2.5)
    missing_slope: float = eqx.field(static=True, default=0.1, converter=_check_slope)
    ts: Array | None = None

    least_squares = True

    def _crossings(self, v, refractory=0.0):
        """`first_crossings` of every trace of `v` `(time, ...)`: times and found, `(traces, max_spikes)`."""
        traces = _by_trace(v)
        find = lambda x: first_crossings(self.ts, x, self.threshold, self.max_spikes, refractory)  # noqa: E731
        return jax.vmap(find)(traces)

    def _inside(self, v, mask):
        """`v` with the samples outside `mask` set below the threshold (finite: no crossing's time divides by ∞)."""
        return jnp.where(mask[self.variable], v[self.variable], self.threshold - 1.0)

    def _observed(self, data, mask):
        return self._crossings(self._inside(data, mask), self.refractory)

    def _shortfall(self, v, mask):
        """θ − the highest sample after the trough that follows each trace's last sample at or above θ, `(traces,)`.

        The trough is the first sample after the spike that the next sample exceeds; a trace without a sample at or
        above θ is searched whole.

        The samples the mask leaves out are not searched. Where a trace ends at or above θ, or every later sample
        is masked, there is no bump to raise and the shortfall is 0.
        """
        inside, v = _by_trace(jnp.broadcast_to(mask, v.shape)), _by_trace(v)
        index = jnp.broadcast_to(jnp.arange(v.shape[1]), v.shape)
        last_above = jnp.max(jnp.where(inside & (v >= self.threshold), index, -1), axis=1)
        after = inside & (index > last_above[:, None])
        any_after = jnp.any(after, axis=1)
        # after a spike, from its trough on (the first sample after it that the next one exceeds): the spike's own
        # downstroke, just below θ, is not a bump. Without a spike the whole trace is searched: a trough after the
        # stimulus would leave only the return to rest.
        rising = jnp.concatenate([v[:, 1:] > v[:, :-1], jnp.ones_like(v[:, :1], dtype=bool)], axis=1)
        trough = jnp.argmax(after & rising, axis=1)
        start = jnp.where(last_above >= 0, trough, 0)
        highest = jnp.max(jnp.where(after & (index >= start[:, None]), v, -jnp.inf), axis=1)
        # double where: a trace with nothing after its last spike gives 0, not ∞ (nor a NaN gradient)
        return jnp.where(any_after, self.threshold - jnp.where(any_after, highest, self.threshold), 0.0)

    def residuals(self, pred, data, mask):
        # where neither has a k-th spike both times are the last data time, and the residual is 0
        t_pred, fired = self._crossings(self._inside(pred, mask))
        t_data, found = self._observed(data, mask)
        shortfall = self._shortfall(pred[self.variable], mask[self.variable])
        missing = found & ~fired  # the data's k-th spike that the prediction lacks: raise its bump
        r = t_pred - t_data + jnp.where(missing, self.missing_slope * shortfall[:, None], 0.0)
        n = jnp.maximum(jnp.sum(found), 1).astype(t_pred.dtype)  # a count, in the prediction's dtype
        return jnp.ravel(r / jnp.sqrt(n))

    def __call__(self, pred, data, mask):
        return jnp.sum(self.residuals(pred, data, mask) ** 2)

    def count(self, data, mask):
        """The number of spikes found in the data."""
        return jnp.sum(self._observed(data, mask)[1])


class FiringRate(AbstractLoss):
    """Squared difference of firing rates from a differentiable (soft) spike count.

    A variable with axes after time is a trace per index, and the squared differences are summed over them.

    Args:
        variable: voltage-like output.
        threshold: crossing level.
        width: softness of the count (output units); see [`soft_spike_count`][difflab.neuron.soft_spike_count].
        duration: window length in model time units; the rate is `count / duration`
            (spikes per model time unit, e.g. per ms).
    """

    duration: float
    variable: str = eqx.field(static=True, default="V")
    threshold: float = eqx.field(static=True, default=0.0)
    width: float = eqx.field(static=True, default=2.0)

    def __call__(self, pred, data, mask):
        name = self.variable
        # time first in the data, last for the counts: a variable with axes after time is a trace per index
        filled = jnp.moveaxis(jnp.where(mask[name], data[name], -jnp.inf), 0, -1)
        predicted = soft_crossing_count(jnp.moveaxis(pred[name], 0, -1), self.threshold, self.width)
        up = upward_crossings(jnp.arange(filled.shape[-1]), filled, self.threshold)[0]
        observed = jnp.sum(up, axis=-1, dtype=predicted.dtype)  # a count, in the prediction's float dtype
        return jnp.sum(((predicted - observed) / self.duration) ** 2)


class LossSum(AbstractLoss):
    r"""A weighted sum of losses, $L = \sum_j w_j L_j$: a trace loss kept in the spike configuration of the data.

    Where every term is least squares, so is the sum: its residuals are the terms' residuals, each scaled by
    $\sqrt{w_j}$, and Levenberg–Marquardt fits it. The use it was made for is a spiking cell's trace fit that must
    not trade a spike for a better fit of the rest of the trace: `LossSum((MSE(), SpikeTimes(...)), (1.0, 10.0))`
    makes a spike that moves by 1 ms cost 10 mV² over the data's number of spikes (choose the weight against the
    trace misfit of the starts: a trace far off can still outweigh it). Its standard errors pool the residuals of
    terms in different units: trust them where one term dominates the residual sum at the optimum, or refit the
    trace alone from the optimum for them.

    Args:
        terms: the losses (`AbstractLoss` instances).
        weights: one finite weight > 0 per term (default 1 each).
    """

    terms: tuple[AbstractLoss, ...]
    weights: tuple[float, ...] = eqx.field(static=True)

    def __init__(self, terms, weights=None):
        terms = tuple(terms)
        if not terms or not all(isinstance(t, AbstractLoss) for t in terms):
            raise TypeError(f"LossSum terms must be a non-empty sequence of difflab losses; got {terms!r}")
        weights = (1.0,) * len(terms) if weights is None else tuple(float(w) for w in weights)
        weights = tuple(_check_weight(w, f"LossSum weights[{k}]") for k, w in enumerate(weights))
        if len(weights) != len(terms):
            raise ValueError(f"LossSum weights must have one weight per term ({len(terms)}); got {len(weights)}")
        self.terms, self.weights = terms, weights

    @property
    def least_squares(self) -> bool:  # type: ignore[override]
        return all(t.least_squares for t in self.terms)

    def __call__(self, pred, data, mask):
        return sum(w * t(pred, data, mask) for w, t in zip(self.weights, self.terms, strict=True))

    def residuals(self, pred, data, mask):
        if not self.least_squares:
            return super().residuals(pred, data, mask)
        parts = [jnp.sqrt(w) * t.residuals(pred, data, mask) for w, t in zip(self.weights, self.terms, strict=True)]
        return jnp.concatenate(parts)

    def count(self, data, mask):
        """The observations of every term together."""
        return sum(t.count(data, mask) for t in self.terms)

    def term_losses(self, pred, data, mask) -> Array:
        """Each term's own loss $L_j$, unweighted: shape `(terms,)`, in the order of `terms`."""
        return jnp.stack([t(pred, data, mask) for t in self.terms])

    @property
    def term_names(self) -> tuple[str, ...]:
        """A label per term: its class name, numbered where a class appears more than once (`MSE_0`, `MSE_1`)."""
        names = [type(t).__name__ for t in self.terms]
        return tuple(f"{n}_{names[:k].count(n)}" if names.count(n) > 1 else n for k, n in enumerate(names))

    def with_times(self, ts: Array) -> AbstractLoss:
        return LossSum(tuple(t.with_times(ts) for t in self.terms), self.weights)


class CallableLoss(AbstractLoss):
    """Wraps a user function `fn(pred, data, mask) -> scalar`."""

    fn: Callable = eqx.field(static=True)

    def __call__(self, pred, data, mask):
        return jnp.asarray(self.fn(pred, data, mask))


def as_loss(loss, data_ts) -> AbstractLoss:
    """A loss from `"mse"`, `"spike_times"`, `"firing_rate"`, an `AbstractLoss` or a callable."""
    if isinstance(loss, AbstractLoss):
        return loss.with_times(jnp.asarray(data_ts))
    if loss == "mse":
        return MSE()
    if loss == "spike_times":
        return SpikeTimes(ts=jnp.asarray(data_ts))
    if loss == "firing_rate":
        return FiringRate(duration=float(data_ts[-1] - data_ts[0]))
    if callable(loss):
        return CallableLoss(loss)
    raise ValueError(f"loss must be 'mse', 'spike_times', 'firing_rate', an AbstractLoss or a callable; got {loss!r}")
