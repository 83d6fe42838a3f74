r"""Spike-shape features with eFEL's definitions: amplitude, half-width, AHP depth, ISI CV, mean frequency.

eFEL (the Electrophys Feature Extraction Library, Blue Brain Project) is what BluePyOpt's cell models, the L5PC of
Hay et al. 2011 among them, are fitted to. Its features are defined on the samples of a trace:

- **Spikes** (`peak_indices`): between an upward crossing of `threshold` (first sample above it) and the following
  downward crossing (first sample below it), the first sample of largest `V`. A spike still above threshold at the
  trace's end is not one. `peak_time`, `peak_voltage` are that sample's.
- **dV/dt**: central differences of `V` over central differences of `t` (one-sided at both ends).
- **AHP** (`min_AHP_indices`, `AHP_depth_abs`): the *first* minimum between a peak and the next one (or the trace's
  end): the first running minimum that the next two samples do not undercut, else the window's lowest sample; a
  minimum on the trace's last sample is none. `AHP_depth` is `AHP_depth_abs − voltage_base`.
- **voltage_base**: the mean of `V` over `[voltage_base_start_perc · stim_start, stim_start]`.
- **AP begin** (`AP_begin_indices`): for a spike after the stimulus onset, the last sample `b` before its peak
  where dV/dt rises through `derivative_threshold` and stays at or above it for `derivative_window` samples,
  searched back to the previous spike's AHP (the first spike: to two samples before the onset).
- **AP_amplitude** = `peak_voltage − V(AP begin)`, for spikes whose peak lies within the stimulus.
- **AP_duration_half_width**: half height `(V(peak) + V(AP begin))/2`; the rise sample is the one nearest it
  between the AP begin and the peak, the fall sample the one nearest it between the peak and the AP end (the first
  sample after the steepest fall where dV/dt is back at or above `down_derivative_threshold`); the width is the
  time between them.
- **all_ISI_values** (differences of `peak_time`); **ISI_CV**, their standard deviation with `n − 1` over their
  mean, without the first ISI by default (two ISIs at least); **mean_frequency** `1000 · n / (t_last − stim_start)`
  Hz over the `n` peaks within the stimulus (0 Hz without one, where eFEL has no value); **Spikecount**.
- **AP_height** (`peak_voltage`); **AP_width**: from the first sample at or above `threshold` after the previous
  AHP (the first spike: after the trace's start) to the next one at or below it, before the spike's own AHP.
- **AHP_depth_abs_slow** (entry k: the lowest sample from `sahp_start` after spike k + 1 to spike k + 2) and
  **AHP_slow_time** (its time after spike k + 1, as a fraction of their interval).
- **time_to_first_spike** (`peak_time[0] − stim_start`), **doublet_ISI** (the first ISI),
  **adaptation_index2** (the mean of `(ISIᵢ₊₁ − ISIᵢ)/(ISIᵢ₊₁ + ISIᵢ)` over the ISIs of the spikes within the
  stimulus but its first; four spikes at least), **maximum_voltage_from_voltagebase** (the largest sample in
  `[stim_start, stim_end)` less the voltage base): with the above, the features of BluePyOpt's L5PC example.

eFEL first resamples a trace linearly at `interp_step` (0.1 ms by default);
[`spike_features`][difflab.neuron.spike_features] works on the samples it is given. For eFEL's numbers, give it
the trace at eFEL's `interp_step`: `interpolate=False` then gives eFEL's values to rounding (the tests check it
against eFEL 5.7 on NEURON traces).

**Interpolated, differentiable features** (`interpolate=True`, the default). A sample picked by a comparison has
no derivative with respect to the parameters that moved it, so eFEL's half-width, peak time and ISIs are step
functions of the model's parameters. With `interpolate=True` each pick is refined between samples: the peak and
the AHP minima (fast and slow) at the vertex of the parabola through the picked sample and its two neighbours, the
AP begin where the linearly interpolated dV/dt crosses `derivative_threshold`, the half-width between the linearly
interpolated crossings of the half height (the last upward crossing before the peak, the first downward one after
it) and `AP_width` between those of the threshold. Each refined value differs from eFEL's by less than a sample
interval's worth (a time by at most one interval, a width by two, a voltage by at most its change over one
interval) and is smooth in `V`, so the features can be fitted by gradient (`SpikeFeatures`). The maximum voltage
stays the largest sample.

Reference: eFEL, https://github.com/BlueBrain/eFEL (feature definitions in its documentation, eFeatures); Van
Geit et al., Front. Neuroinform. 10:17 (2016) for BluePyOpt.
"""

from __future__ import annotations

import functools
import math

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from ..core.internal import check_finite, is_concrete
from . import _segments as segments

__all__ = ["PER_SPIKE", "PER_TRACE", "FeatureSettings", "check_stimulus_within", "checked_stimulus", "spike_features"]

#: Features with one value per spike (`(..., max_spikes)`, NaN where a spike has none).
PER_SPIKE = (
    "peak_time",
    "peak_voltage",
    "AP_begin_time",
    "AP_begin_voltage",
    "AP_amplitude",
    "AP_duration_half_width",
    "AHP_depth_abs",
    "AHP_depth",
    "AP_height",
    "AP_width",
    "AHP_depth_abs_slow",
    "AHP_slow_time",
)
#: Features with one value per trace.
PER_TRACE = ("Spikecount", "mean_frequency", "ISI_CV", "voltage_base", "time_to_first_spike", "doublet_ISI",
             "adaptation_index2", "maximum_voltage_from_voltagebase")  # fmt: skip
#: Sample indices of the picks (`-1` where none), as eFEL names them.
INDICES = ("peak_indices", "AP_begin_indices", "min_AHP_indices", "AP_end_indices", "AP_rise_indices",
           "AP_fall_indices")  # fmt: skip
#: Tolerance on the end of the voltage-base window (eFEL's `precision_threshold`, ms).
_PRECISION = 1e-10


def _real(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"FeatureSettings {name} must be a finite number; got {value!r}")
    return float(value)


class FeatureSettings(eqx.Module):
    """eFEL's settings for the spike features (its names and defaults, eFEL 5.7).

    Args:
        threshold: spike detection threshold (mV; eFEL `Threshold`).
        derivative_threshold: dV/dt at the AP begin (mV/ms; eFEL `DerivativeThreshold`).
        derivative_window: samples for which dV/dt must stay at or above `derivative_threshold` after the AP begin
            (eFEL `DerivativeWindow`).
        down_derivative_threshold: dV/dt at the AP end, after the steepest fall (mV/ms; eFEL
            `DownDerivativeThreshold`).
        voltage_base_start_perc: the voltage base is the mean over `[perc · stim_start, stim_start]` (eFEL
            `voltage_base_start_perc`).
        ignore_first_ISI: `ISI_CV` leaves out the first interspike interval (eFEL `ignore_first_ISI`), which an
            adapting cell makes much shorter than the rest.
        sahp_start: the slow AHP is searched from this long after a spike (ms; eFEL `sahp_start`).
    """

    threshold: float = eqx.field(static=True, default=-20.0)
    derivative_threshold: float = eqx.field(static=True, default=10.0)
    derivative_window: int = eqx.field(static=True, default=3)
    down_derivative_threshold: float = eqx.field(static=True, default=-12.0)
    voltage_base_start_perc: float = eqx.field(static=True, default=0.9)
    ignore_first_ISI: bool = eqx.field(static=True, default=True)
    sahp_start: float = eqx.field(static=True, default=5.0)

    def __check_init__(self):
        if not isinstance(self.ignore_first_ISI, bool):
            raise ValueError(f"FeatureSettings ignore_first_ISI must be True or False; got {self.ignore_first_ISI!r}")
        for name in ("threshold", "derivative_threshold", "down_derivative_threshold", "voltage_base_start_perc",
                     "sahp_start"):  # fmt: skip
            _real(name, getattr(self, name))
        window = self.derivative_window
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"FeatureSettings derivative_window must be an integer >= 1 (samples); got {window!r}")
        if not 0 <= self.voltage_base_start_perc < 1:
            raise ValueError(
                "FeatureSettings voltage_base_start_perc must be in [0, 1) (a fraction of the stimulus onset); "
                f"got {self.voltage_base_start_perc!r}"
            )


def spike_features(
    ts: Float[ArrayLike, " time"],
    V: Float[ArrayLike, "... time"],
    stimulus: tuple[float, float],
    settings: FeatureSettings | None = None,
    max_spikes: int = 32,
    interpolate: bool = True,
) -> dict[str, Array]:
    """The spike features (eFEL's definitions, module docstring) of the traces `V(ts)`: a dict of arrays.

    Args:
        ts: sample times (ms), increasing, shape `(time,)`.
        V: membrane potential (mV), time on the last axis; leading axes are traces.
        stimulus: `(stim_start, stim_end)` (ms): the window of `AP_amplitude` and `mean_frequency`, and the
            onset that ends the voltage base and starts the search for the first AP begin.
        settings: eFEL's thresholds ([`FeatureSettings`][difflab.neuron.FeatureSettings]; eFEL's defaults).
        max_spikes: spikes measured per trace (static; later spikes are counted by `Spikecount` only). The picks
            are reductions over one window per spike (`_segments`), so the temporary memory is about 190 bytes
            per sample of a trace whatever `max_spikes` (185 MB for 32 traces of 30 001 samples).
        interpolate: refine every pick between samples (smooth, differentiable features; module docstring);
            `False` gives eFEL's values on these samples.

    Returns:
        `PER_SPIKE` features, shape `(..., max_spikes)` (NaN where a spike has no value or there is no spike),
        `all_ISI_values` `(..., max_spikes - 1)`, `PER_TRACE` features `(...)` (`ISI_CV` NaN with fewer than three
        spikes), and the picks' sample indices `INDICES` `(..., max_spikes)` (-1 where none).
    """
    settings = FeatureSettings() if settings is None else settings
    if not isinstance(settings, FeatureSettings):
        raise TypeError(f"settings must be a FeatureSettings; got {type(settings).__name__}")
    if isinstance(max_spikes, bool) or not isinstance(max_spikes, int) or max_spikes < 1:
        raise ValueError(f"max_spikes must be an integer >= 1; got {max_spikes!r}")
    start, end = checked_stimulus(stimulus)
    V = jnp.asarray(V)
    if not jnp.issubdtype(V.dtype, jnp.floating):
        V = V.astype(float)
    ts = jnp.asarray(ts, dtype=V.dtype)
    if ts.ndim != 1 or V.ndim < 1 or V.shape[-1] != ts.shape[0]:
        raise ValueError(f"V must have the times on its last axis, (..., {ts.shape[-1]}); got {V.shape}, ts {ts.shape}")
    if ts.shape[0] < 4:
        raise ValueError(f"ts must hold at least 4 samples; got {ts.shape[0]}")
    check_finite(ts, "ts")
    check_finite(V, "V (a missing sample has no features; SpikeFeatures holds the last measured one)")
    if is_concrete(ts) and not np.all(np.diff(np.asarray(ts)) > 0):
        raise ValueError("ts must increase strictly (sample times in ms)")
    if is_concrete(ts):
        check_stimulus_within((start, end), np.asarray(ts))
    batch = V.shape[:-1]
    out = _traces(ts, V.reshape(-1, V.shape[-1]), start, end, settings, max_spikes, interpolate)
    return {k: x.reshape(*batch, *x.shape[1:]) for k, x in out.items()}


# compiled as one program: called eagerly (a plot, a look at a recording), op by op it compiled each of its
# few hundred operations for the trace's shape (the two calls of docs/cells.md on an L5PC trace: 16 s, against 3.5 s)
@functools.partial(jax.jit, static_argnums=(2, 3, 4, 5, 6))
def _traces(ts, V, start, end, settings, K, interpolate):
    """The features of every row of `V` `(traces, time)`."""
    return jax.vmap(lambda v: _trace(ts, v, start, end, settings, K, interpolate))(V)


def checked_stimulus(stimulus) -> tuple[float, float]:
    """`(stim_start, stim_end)` as floats (ms), refused by name unless finite with `stim_end > stim_start`."""
    try:
        start, end = (float(x) for x in stimulus)
    except (TypeError, ValueError):
        raise ValueError(f"stimulus must be (stim_start, stim_end) in ms; got {stimulus!r}") from None
    if not (math.isfinite(start) and math.isfinite(end) and end > start):
        raise ValueError(f"stimulus must be (stim_start, stim_end) in ms with stim_end > stim_start; got {stimulus!r}")
    return start, end


def check_stimulus_within(stimulus: tuple[float, float], ts: np.ndarray) -> None:
    """Refuse a stimulus window that does not overlap the sample times (ms): no feature could be measured."""
    start, end = stimulus
    if start >= ts[-1] or end <= ts[0]:
        raise ValueError(
            f"stimulus {stimulus} (ms) does not overlap the samples, {float(ts[0]):g} to {float(ts[-1]):g} ms: "
            "no feature could be measured (a window beyond the recording, or in other units?)"
        )


def _first(mask: Array, axis: int = -1) -> tuple[Array, Array]:
    """`(index of the first True along axis, whether there is one)`."""
    return jnp.argmax(mask, axis=axis), jnp.any(mask, axis=axis)


def _central(x: Array) -> Array:
    """The derivative per sample as eFEL takes it: central differences inside, one-sided at both ends."""
    return jnp.concatenate([x[1:2] - x[:1], (x[2:] - x[:-2]) / 2, x[-1:] - x[-2:-1]])


def _vertex(t: Array, v: Array, i: Array) -> tuple[Array, Array]:
    """Time and value of the vertex of the parabola through samples `i - 1, i, i + 1` (the sample where flat)."""
    i = jnp.clip(i, 1, v.shape[0] - 2)
    x0, x2 = t[i - 1] - t[i], t[i + 1] - t[i]
    y0, y1, y2 = v[i - 1], v[i], v[i + 1]
    # y = a x² + b x + y1 through (x0, y0), (0, y1), (x2, y2)
    d0, d2 = (y0 - y1) / x0, (y2 - y1) / x2
    a = (d2 - d0) / (x2 - x0)
    b = d0 - a * x0
    curved = a != 0
    safe = jnp.where(curved, a, 1)
    x = jnp.where(curved, jnp.clip(-b / (2 * safe), x0, x2), 0)
    return t[i] + x, y1 + x * (b + a * x)


def _crossing(t: Array, y: Array, j: Array, level) -> tuple[Array, Array]:
    """Time of `y = level` between samples `j` and `j + 1` (linear), and the fraction of the interval."""
    j = jnp.clip(j, 0, y.shape[0] - 2)
    dy = y[j + 1] - y[j]
    frac = jnp.where(dy != 0, (level - y[j]) / jnp.where(dy != 0, dy, 1), 0)
    return t[j] + frac * (t[j + 1] - t[j]), frac


def _first_minimum(v: Array, labels: Array, K: int) -> Array:
    """The first minimum of each window (eFEL's `first_min_element`; `labels` from `segments.owner`).

    The first running minimum (strictly below all earlier samples of the window) that the next two samples of the
    window do not undercut; failing that, the window's first lowest sample.
    """
    inf = jnp.asarray(jnp.inf, v.dtype)
    inside = labels < K
    masked = jnp.where(inside, v, inf)
    running = segments.running_min(masked, labels)
    before = jnp.where(segments.window_starts(labels), inf, jnp.concatenate([jnp.full(1, inf), running[:-1]]))
    new_min = inside & (masked < before)
    # the two next samples, which must lie in the same window
    same1 = jnp.concatenate([labels[1:] == labels[:-1], jnp.zeros(1, bool)])
    same2 = jnp.concatenate([labels[2:] == labels[:-2], jnp.zeros(2, bool)])
    nxt1 = jnp.concatenate([masked[1:], jnp.full(1, -inf)])
    nxt2 = jnp.concatenate([masked[2:], jnp.full(2, -inf)])
    held = new_min & same1 & same2 & (nxt1 >= masked) & (nxt2 >= masked)
    index = segments.first_in(held, labels, K)
    return jnp.where(index < v.shape[0], index, segments.position_of_min(masked, labels, K))


def _trace(t, v, start, end, s: FeatureSettings, K: int, interpolate: bool) -> dict[str, Array]:
    """The features of one trace `v(t)` (see `spike_features`)."""
    T = v.shape[0]
    nan = jnp.asarray(jnp.nan, v.dtype)
    i = jnp.arange(T)
    prev = jnp.concatenate([v[:1], v[:-1]])
    up = (i >= 1) & (v > s.threshold) & (prev < s.threshold)
    dn = (i >= 1) & (v < s.threshold) & (prev > s.threshold)
    first_up, any_up = _first(up)
    dn = dn & any_up & (i > first_up)  # a trace starting above threshold: its first fall is not a spike's
    n_spikes = jnp.minimum(jnp.sum(up), jnp.sum(dn))
    (up_k,) = jnp.nonzero(up, size=K, fill_value=0)
    (dn_k,) = jnp.nonzero(dn, size=K, fill_value=0)
    k = jnp.arange(K)
    spike = k < n_spikes

    # Internally every value stays finite (a pick of sample 0 where there is none); NaN marks the missing ones only
    # in the output, so that no NaN meets a derivative (0 · NaN would poison the gradients of the rest).
    # peaks: the first largest sample between the upward crossing and the downward one (both included)
    in_spike = segments.owner(up_k, dn_k + 1, spike, T)
    peak = jnp.minimum(segments.position_of_min(-v, in_spike, K), T - 1)
    peak_time, peak_v = _vertex(t, v, peak) if interpolate else (t[peak], v[peak])

    # AHP: the first minimum between a peak and the next one (or the trace's end); none on the last sample
    next_peak = jnp.where(spike & jnp.roll(spike, -1) & (k < K - 1), jnp.roll(peak, -1), T)
    ahp = jnp.minimum(_first_minimum(v, segments.owner(peak, next_peak, spike, T), K), T - 1)
    has_ahp = spike & (ahp != T - 1)
    ahp_v = _vertex(t, v, ahp)[1] if interpolate else v[ahp]

    base_window = (t >= s.voltage_base_start_perc * start) & (t - start < _PRECISION)
    voltage_base = jnp.sum(jnp.where(base_window, v, 0)) / jnp.maximum(jnp.sum(base_window), 1).astype(v.dtype)

    dvdt = _central(v) / _central(t)
    onset, any_onset = _first(t >= start)
    onset = jnp.where(any_onset, onset, T)
    begin, has_begin, eligible = _ap_begin(dvdt, peak, spike, ahp, has_ahp, onset, s)
    ap_end, has_end = _ap_end(dvdt, peak, eligible, s)

    begin_time, begin_v = t[begin], v[begin]
    if interpolate:  # where dV/dt crosses the threshold, between samples b - 1 and b
        begin_time, frac = _crossing(t, dvdt, begin - 1, s.derivative_threshold)
        begin_v = v[begin - 1] + frac * (v[begin] - v[begin - 1])
    in_stimulus = spike & (t[peak] >= start) & (t[peak] <= end)

    has_width = has_begin & has_end & (peak > begin)
    width, rise, fall, has_width = _half_width(t, v, begin, peak, ap_end, (peak_v + begin_v) / 2, has_width,
                                               interpolate)  # fmt: skip

    # ISIs of consecutive spikes; their CV with n - 1 (two ISIs at least; by default without the first ISI)
    has_isi = spike[1:] & spike[:-1]
    isi = jnp.where(has_isi, peak_time[1:] - peak_time[:-1], 0)
    counted_isi = has_isi & (jnp.arange(K - 1) >= int(s.ignore_first_ISI))
    n_isi = jnp.sum(counted_isi)
    mean_isi = jnp.sum(jnp.where(counted_isi, isi, 0)) / jnp.maximum(n_isi, 1).astype(v.dtype)
    var = jnp.sum(jnp.where(counted_isi, (isi - mean_isi) ** 2, 0)) / jnp.maximum(n_isi - 1, 1).astype(v.dtype)
    sd = jnp.where(var > 0, jnp.sqrt(jnp.where(var > 0, var, 1)), 0)  # no infinite slope of √ at 0
    enough = n_isi >= 2
    isi_cv = jnp.where(enough, sd / jnp.where(enough, mean_isi, 1), nan)
    n_in = jnp.sum(in_stimulus)
    last = jnp.max(jnp.where(in_stimulus, peak_time, start + 1))  # any value past the onset where none
    frequency = jnp.where(n_in > 0, 1000 * n_in.astype(v.dtype) / (last - start), 0)

    def value(x, ok):
        return jnp.where(ok, x, nan)

    def index(x, ok):
        return jnp.where(ok, x, -1)

    width_at_threshold, has_threshold_width = _threshold_width(t, v, ahp, has_ahp, s.threshold, interpolate)
    slow, slow_time, has_slow = _slow_ahp(t, v, peak, peak_time, spike, s.sahp_start, interpolate)
    adaptation = _adaptation_index2(peak_time, in_stimulus)
    stim_window = (t >= start) & (t < jnp.minimum(end, t[-1]))
    maximum = jnp.max(jnp.where(stim_window, v, -jnp.inf))
    return {
        "AP_height": value(peak_v, spike),
        "AP_width": value(width_at_threshold, has_threshold_width),
        "AHP_depth_abs_slow": value(slow, has_slow),
        "AHP_slow_time": value(slow_time, has_slow),
        "time_to_first_spike": value(peak_time[0] - start, spike[0]),
        "doublet_ISI": value(isi[0], has_isi[0]),
        "adaptation_index2": adaptation,
        "maximum_voltage_from_voltagebase": value(maximum - voltage_base, jnp.any(stim_window) & jnp.any(base_window)),
        "peak_time": value(peak_time, spike),
        "peak_voltage": value(peak_v, spike),
        "AP_begin_time": value(begin_time, has_begin),
        "AP_begin_voltage": value(begin_v, has_begin),
        "AP_amplitude": value(peak_v - begin_v, in_stimulus & has_begin),
        "AP_duration_half_width": value(width, has_width),
        "AHP_depth_abs": value(ahp_v, has_ahp),
        "AHP_depth": value(ahp_v - voltage_base, has_ahp & jnp.any(base_window)),
        "all_ISI_values": value(isi, has_isi),
        "Spikecount": n_spikes,
        "mean_frequency": frequency,
        "ISI_CV": isi_cv,
        "voltage_base": value(voltage_base, jnp.any(base_window)),
        "peak_indices": index(peak, spike),
        "AP_begin_indices": index(begin, has_begin),
        "min_AHP_indices": index(ahp, has_ahp),
        "AP_end_indices": index(ap_end, has_end),
        "AP_rise_indices": index(rise, has_width),
        "AP_fall_indices": index(fall, has_width),
    }


def _half_width(t, v, begin, peak, ap_end, half, has_width, interpolate: bool):
    """`AP_duration_half_width` (eFEL's, module docstring): `(width, rise sample, fall sample, whether it has one)`."""
    T, K = v.shape[0], peak.shape[0]
    rising = segments.owner(begin, peak, has_width, T)  # [AP begin, peak) of each spike
    falling = segments.owner(peak, ap_end, has_width, T)  # [peak, AP end)
    level_r, level_f = half[jnp.minimum(rising, K - 1)], half[jnp.minimum(falling, K - 1)]
    inf = jnp.asarray(jnp.inf, v.dtype)
    rise = segments.position_of_min(jnp.where(rising < K, jnp.abs(v - level_r), inf), rising, K)
    fall = segments.position_of_min(jnp.where(falling < K, jnp.abs(v - level_f), inf), falling, K)
    rise, fall = jnp.minimum(rise, T - 1), jnp.minimum(fall, T - 1)
    width = t[fall] - t[rise]
    if interpolate:  # the last upward crossing of the half height before the peak, the first downward one after
        nxt = jnp.concatenate([v[1:], v[-1:]])
        r = segments.last_in((v < level_r) & (nxt >= level_r), rising, K)
        f = segments.first_in((v >= level_f) & (nxt < level_f), falling, K)
        width = _crossing(t, v, f, half)[0] - _crossing(t, v, r, half)[0]
        has_width = has_width & (r >= 0) & (f < T)
    return width, rise, fall, has_width


def _threshold_width(t, v, ahp, has_ahp, threshold, interpolate: bool):
    """`AP_width` (eFEL's) of every spike with an AHP, and whether it has one (module docstring)."""
    since = jnp.concatenate([jnp.zeros(1, ahp.dtype), ahp[:-1]])
    onset = segments.next_at_or_after(v >= threshold)[since]
    onset = jnp.where(onset < ahp, onset, ahp)
    end = segments.next_at_or_after(v <= threshold)[jnp.minimum(onset, v.shape[0] - 1)]
    end = jnp.where(end < ahp, end, ahp)
    width = t[end] - t[onset]
    if interpolate:  # the crossings of the threshold, between the samples before and at the picks
        width = _crossing(t, v, end - 1, threshold)[0] - _crossing(t, v, onset - 1, threshold)[0]
    return width, has_ahp


def _slow_ahp(t, v, peak, peak_time, spike, sahp_start, interpolate: bool):
    """`AHP_depth_abs_slow`, `AHP_slow_time` (eFEL's; entry k from spikes k + 1 and k + 2) and which entries exist."""
    T, K = v.shape[0], peak.shape[0]
    a, b = jnp.roll(peak, -1), jnp.roll(peak, -2)
    has = spike & jnp.roll(spike, -2) & (jnp.arange(K) < K - 2)
    since = jnp.maximum(jnp.searchsorted(t, t[a] + sahp_start, side="left").astype(a.dtype), a)  # sahp_start on
    window = segments.owner(since, b, has & (since < b), T)
    index = segments.position_of_min(jnp.where(window < K, v, jnp.inf), window, K)
    index = jnp.where(index < T, index, b)
    when, depth = _vertex(t, v, index) if interpolate else (t[index], v[index])
    ta, tb = jnp.roll(peak_time, -1), jnp.roll(peak_time, -2)
    return depth, (when - ta) / jnp.where(has, tb - ta, 1), has


def _adaptation_index2(peak_time, in_stimulus):
    """`adaptation_index2` (eFEL's, module docstring); NaN with fewer than four spikes within the stimulus."""
    m = jnp.sum(in_stimulus)
    rank = jnp.cumsum(in_stimulus)
    kept = in_stimulus & (rank >= 2)  # the spikes within the stimulus but the first
    has_isi = kept[1:] & kept[:-1]
    isi = jnp.where(has_isi, peak_time[1:] - peak_time[:-1], 1)
    pair = has_isi[1:] & has_isi[:-1]
    terms = jnp.where(pair, (isi[1:] - isi[:-1]) / (isi[1:] + isi[:-1]), 0)
    n = jnp.maximum(jnp.sum(pair), 1).astype(peak_time.dtype)
    return jnp.where(m >= 4, jnp.sum(terms) / n, jnp.nan)


def _ap_begin(dvdt, peak, spike, ahp, has_ahp, onset, s: FeatureSettings):
    """The AP begin (eFEL's) of every spike after the onset: `(index, found, eligible)` (module docstring)."""
    T, K = dvdt.shape[0], peak.shape[0]
    j = jnp.arange(T)
    w = s.derivative_window
    # dV/dt at or below the threshold at j, and at or above it on the `w` samples after j
    stays = jnp.ones(T, bool)
    for shift in range(1, w + 1):
        shifted = jnp.concatenate([dvdt[shift:], jnp.full((shift,), -jnp.inf, dvdt.dtype)])
        stays = stays & (shifted >= s.derivative_threshold)
    rises = (dvdt <= s.derivative_threshold) & stays
    eligible = spike & (peak > onset)
    # the search of the m-th spike after the onset starts at the m-th entry of [onset - 2, AHPs after the onset]
    first = jnp.where(onset > 1, onset - 2, jnp.where(onset == 1, 0, onset))
    (order,) = jnp.nonzero(has_ahp & (ahp > onset), size=K, fill_value=0)
    n_minima = 1 + jnp.sum(has_ahp & (ahp > onset))
    minima = jnp.concatenate([first[None], ahp[order]])
    m = jnp.cumsum(eligible) - 1
    lower = minima[jnp.clip(m, 0, K)]
    last = jax.lax.cummax(jnp.where(rises, j, -1))[jnp.maximum(peak - 1, 0)]  # the last rise before the peak
    found = (peak > 0) & (last >= lower)
    ok = eligible & found & (m < n_minima)
    return jnp.where(ok, last + 1, 0), ok, eligible


def _ap_end(dvdt, peak, eligible, s: FeatureSettings):
    """The AP end (eFEL's): after the steepest fall before the next spike, the first dV/dt back at the threshold."""
    T, K = dvdt.shape[0], peak.shape[0]
    k = jnp.arange(K)
    # the next spike after the onset, or the last sample
    later = eligible[None, :] & (k[None, :] > k[:, None])
    nxt, has_next = _first(later)
    stop = jnp.where(has_next, peak[nxt], T - 1)
    begin = peak + 1
    window = segments.owner(begin, stop, eligible & (begin < stop), T)
    steepest = segments.position_of_min(jnp.where(window < K, dvdt, jnp.inf), window, K)
    end = segments.next_at_or_after(dvdt >= s.down_derivative_threshold)[jnp.minimum(steepest, T - 1)]
    found = (steepest < T) & (end < stop)
    ok = eligible & (begin < stop) & found
    return jnp.where(ok, end, T - 1), ok
