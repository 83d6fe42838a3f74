r"""A calibration loss on spike-shape features (eFEL's definitions), as BluePyOpt fits cortical cells.

A trace loss charges a spike that comes 1 ms late as a misfit of tens of mV at every sample of its upstroke, so that
a fit of a spiking cell from a distant start sees a landscape of narrow basins, one per spike count and timing.
BluePyOpt fits the L5PC instead to features of the spikes (their amplitude, width, AHP depth, the rate and its
regularity), each as a z-score against the experimental spread: a feature changes smoothly with the parameters
wherever the spikes keep their number. [`SpikeFeatures`][difflab.neuron.SpikeFeatures] is that objective, with
the features of [`spike_features`][difflab.neuron.spike_features] refined between samples so that it has
gradients:

$$L = \frac1n \sum_{\text{traces}} \sum_f z_f^2, \qquad z_f = \frac{\hat F_f - F_f}{s_f},$$

with $F_f$ a per-trace feature, or the mean over a trace's spikes of a per-spike one (BluePyOpt's convention),
$s_f$ its scale (the experimental standard deviation, in the feature's units) and $n$ the number of features the
data have. A feature the data do not have (no spike, fewer than three for `ISI_CV`) is left out; one the data have
but the prediction lacks scores $z_f$ = `missing` (BluePyOpt's `max_score`, 250). A least-squares loss with
residuals $z_f/\sqrt n$, as the trace MSE's are $(\hat y_i - y_i)/\sqrt n$: Levenberg–Marquardt fits it, the
fit reports standard errors, and its residual variance is the mean squared z-score (1 where the scales are the
features' standard deviations).
"""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

from ..calibration import AbstractLoss
from ..core.internal import is_concrete
from ._efeatures import PER_SPIKE, PER_TRACE, FeatureSettings, check_stimulus_within, checked_stimulus, spike_features

#: The features `SpikeFeatures` compares (a spike's time alone is no shape feature: `SpikeTimes` fits those).
FITTED = tuple(f for f in (*PER_SPIKE, *PER_TRACE) if f not in ("peak_time", "AP_begin_time"))


def _as_scales(scales) -> tuple[tuple[str, float], ...]:
    """`{feature: scale}` as sorted pairs, each a known feature with a finite scale > 0 (refused by name)."""
    if isinstance(scales, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in scales):
        scales = dict(scales)
    if not isinstance(scales, dict) or not scales:
        raise TypeError(f"scales must be a non-empty dict {{feature: scale}}; got {scales!r}")
    out = []
    for name, scale in scales.items():
        if name not in FITTED:
            raise ValueError(f"scales: unknown feature {name!r}; known: {', '.join(FITTED)}")
        if isinstance(scale, bool) or not isinstance(scale, int | float) or not (math.isfinite(scale) and scale > 0):
            raise ValueError(f"scales[{name!r}] must be a finite number > 0 (the feature's units); got {scale!r}")
        out.append((name, float(scale)))
    return tuple(sorted(out))


class SpikeFeatures(AbstractLoss):
    r"""Squared z-scores of eFEL spike features of the prediction against the data's (module docstring).

    Args:
        scales: `{feature: s_f}`, the features compared and the spread of each (its units: mV for
            `AP_amplitude` and `AHP_depth`, ms for `AP_duration_half_width`, Hz for `mean_frequency`, 1 for
            `ISI_CV`, a count for `Spikecount`). The features: those of
            [`spike_features`][difflab.neuron.spike_features] but the times of the peaks and AP begins (`FITTED`).
        stimulus: `(stim_start, stim_end)` (ms) of the recording's current step.
        variable: the membrane potential's name (mV).
        settings: eFEL's thresholds ([`FeatureSettings`][difflab.neuron.FeatureSettings]).
        max_spikes: spikes measured per trace (static); more are counted but not measured.
        missing: the z-score of a feature the data have and the prediction lacks.
        ts: the data's sample times (ms); [`calibrate`][difflab.calibrate] gives them.

    A variable with axes after time (several recordings fitted jointly) is a trace per index; a missing sample
    (NaN in the data) holds the last measured value.
    """

    scales: tuple[tuple[str, float], ...] = eqx.field(static=True, converter=_as_scales)
    stimulus: tuple[float, float] = eqx.field(static=True, converter=checked_stimulus)
    variable: str = eqx.field(static=True, default="V")
    settings: FeatureSettings = eqx.field(static=True, default=FeatureSettings())
    max_spikes: int = eqx.field(static=True, default=32)
    missing: float = eqx.field(static=True, default=250.0)
    ts: Array | None = None

    least_squares = True

    def __check_init__(self):
        if not isinstance(self.variable, str):
            raise TypeError(f"variable must be a name (str); got {self.variable!r}")
        if not isinstance(self.settings, FeatureSettings):
            raise TypeError(f"settings must be a FeatureSettings; got {type(self.settings).__name__}")
        if isinstance(self.max_spikes, bool) or not isinstance(self.max_spikes, int) or self.max_spikes < 1:
            raise ValueError(f"max_spikes must be an integer >= 1; got {self.max_spikes!r}")
        m = self.missing
        if isinstance(m, bool) or not isinstance(m, int | float) or not (math.isfinite(m) and m > 0):
            raise ValueError(f"missing must be a finite number > 0 (a residual); got {m!r}")
        self._check_window()

    def with_times(self, ts):
        out = super().with_times(ts)
        out._check_window()  # filled in after construction, so not seen by __check_init__
        return out

    def _check_window(self):
        """A stimulus window off the recording would leave every feature out: refused where the times are known."""
        if self.ts is not None and is_concrete(self.ts):
            check_stimulus_within(self.stimulus, np.asarray(self.ts))

    def features(self, v: Array) -> Array:
        """The compared features of the traces `v` `(time, ...)`: `(traces, features)`, NaN where there is none."""
        if self.ts is None:
            raise ValueError("SpikeFeatures needs the data's sample times: give ts=, or fit it with calibrate")
        traces = jnp.reshape(v, (v.shape[0], -1)).T
        found = spike_features(self.ts, traces, self.stimulus, self.settings, self.max_spikes)
        columns = []
        for name, _ in self.scales:
            x = found[name]
            if name in PER_SPIKE:  # the mean over the spikes that have it, NaN where none has
                has = jnp.isfinite(x)
                n = jnp.sum(has, axis=-1)
                total = jnp.sum(jnp.where(has, x, 0), axis=-1)
                x = jnp.where(n > 0, total / jnp.maximum(n, 1).astype(x.dtype), jnp.nan)
            columns.append(x.astype(traces.dtype))
        return jnp.stack(columns, axis=-1)

    def _observed(self, data, mask):
        return self.features(_held(data[self.variable], mask[self.variable]))

    def residuals(self, pred, data, mask):
        observed = self._observed(data, mask)
        predicted = self.features(pred[self.variable])
        scale = jnp.asarray([s for _, s in self.scales], observed.dtype)
        has_data, has_pred = jnp.isfinite(observed), jnp.isfinite(predicted)
        both = has_data & has_pred
        r = jnp.where(both, (jnp.where(both, predicted, 0) - jnp.where(both, observed, 0)) / scale[None, :], 0)
        r = jnp.where(has_data & ~has_pred, jnp.asarray(self.missing, r.dtype), r)
        n = jnp.maximum(jnp.sum(has_data), 1).astype(r.dtype)
        return jnp.ravel(r) / jnp.sqrt(n)

    def __call__(self, pred, data, mask):
        return jnp.sum(self.residuals(pred, data, mask) ** 2)

    def count(self, data, mask):
        """The number of features the data have."""
        return jnp.sum(jnp.isfinite(self._observed(data, mask)))


def _held(v: Array, measured: Array) -> Array:
    """`v` `(time, ...)` with each missing sample replaced by the last measured one (the first measured before it)."""
    index = jnp.arange(v.shape[0]).reshape(-1, *([1] * (v.ndim - 1)))
    last = jax.lax.cummax(jnp.where(measured, index, -1), axis=0)
    first = jnp.argmax(measured, axis=0)
    take = jnp.where(last >= 0, last, first)
    return jnp.take_along_axis(v, take, axis=0)
