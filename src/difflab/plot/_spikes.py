"""A voltage trace with its spike features marked: what `difflab.neuron.spike_features` measured, and where."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._matplotlib import axes_for

#: The features listed in the corner of the plot (means over the spikes where a feature has one per spike).
SUMMARY = (
    ("Spikecount", "{:.0f} spikes"),
    ("mean_frequency", "{:.2f} Hz"),
    ("ISI_CV", "ISI CV {:.3g}"),
    ("AP_amplitude", "amplitude {:.1f} mV"),
    ("AP_duration_half_width", "half-width {:.3f} ms"),
    ("AHP_depth", "AHP depth {:.1f} mV"),
)


def spike_features(
    ts: ArrayLike,
    V: ArrayLike,
    features: Mapping[str, Any],
    *,
    stimulus: tuple[float, float] | None = None,
    threshold: float | None = -20.0,
    ax: Any = None,
) -> Any:
    """Plot one trace with the peaks, AP begins and AHP minima that [`difflab.neuron.spike_features`][] found.

    Args:
        ts: sample times (ms), shape `(time,)`.
        V: the membrane potential (mV) of one trace, shape `(time,)`.
        features: `spike_features(ts, V, ...)` of that trace (its dict of arrays).
        stimulus: `(stim_start, stim_end)` (ms), shaded; `None`: not drawn.
        threshold: the detection threshold (mV), drawn dotted; `None`: not drawn.
        ax: a matplotlib `Axes` to draw into; default a new figure.

    Returns:
        The matplotlib `Axes`: the trace, a marker per peak (circle), AP begin (triangle up) and AHP minimum
        (triangle down), and the trace's features in a corner.

    Raises:
        ValueError: `ts` and `V` are not 1-D arrays of one length, or `features` is not the dict of one trace.
    """
    t, v = np.asarray(ts, dtype=float), np.asarray(V, dtype=float)
    if t.ndim != 1 or t.shape != v.shape:
        raise ValueError(f"ts and V must be 1-D arrays of one length (one trace); got shapes {t.shape} and {v.shape}")
    needed = ("peak_time", "peak_voltage", "AP_begin_time", "AP_begin_voltage", "min_AHP_indices")
    missing = [k for k in needed if k not in features]
    if missing:
        raise ValueError(f"features must be spike_features(ts, V, ...) of this trace; it lacks {', '.join(missing)}")
    if np.ndim(features["peak_time"]) != 1:
        shape = np.shape(features["peak_time"])
        raise ValueError(f"features must be those of one trace; got peak_time of shape {shape}")
    ax = axes_for(ax)
    if stimulus is not None:
        ax.axvspan(*stimulus, color="0.92", lw=0, label="stimulus")
    if threshold is not None:
        ax.axhline(threshold, color="0.5", ls=":", lw=0.8, label=f"threshold {threshold:g} mV")
    ax.plot(t, v, color="black", lw=0.9, label="V")
    ahp = np.asarray(features["min_AHP_indices"])
    ahp = ahp[ahp >= 0]
    for key_t, key_v, marker, colour, name in (
        ("peak_time", "peak_voltage", "o", "tab:red", "peak"),
        ("AP_begin_time", "AP_begin_voltage", "^", "tab:green", "AP begin"),
    ):
        x, y = np.asarray(features[key_t], float), np.asarray(features[key_v], float)
        ok = np.isfinite(x) & np.isfinite(y)
        ax.plot(x[ok], y[ok], marker, color=colour, ms=5, ls="none", label=name)
    ax.plot(t[ahp], v[ahp], "v", color="tab:blue", ms=5, ls="none", label="AHP")
    shown = {key: _mean(features[key]) for key, _ in SUMMARY if key in features}
    lines = [fmt.format(shown[key]) for key, fmt in SUMMARY if np.isfinite(shown.get(key, np.nan))]
    ax.text(0.99, 0.98, "\n".join(lines), transform=ax.transAxes, ha="right", va="top", fontsize=8)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("V (mV)")
    ax.legend(loc="upper left", frameon=False, fontsize=8)
    return ax


def _mean(x: Any) -> float:
    """The value of a per-trace feature, the mean over the spikes of a per-spike one (NaN where none has it)."""
    a = np.asarray(x, dtype=float)
    finite = a[np.isfinite(a)]
    return float(finite.mean()) if finite.size else float("nan")
