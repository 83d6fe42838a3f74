"""Error metrics between a model output and a reference (plain NumPy, outside jit).

Every metric is a non-negative error, so a case passes a metric when `value <= tolerance`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def rms_error(model: ArrayLike, reference: ArrayLike) -> float:
    """Root-mean-square difference `sqrt(mean((model - reference)²))` over all samples."""
    a, b = _same_shape(model, reference)
    return float(np.sqrt(np.mean((a - b) ** 2)))


def max_abs_error(model: ArrayLike, reference: ArrayLike) -> float:
    """Largest absolute difference `max |model - reference|`."""
    a, b = _same_shape(model, reference)
    return float(np.max(np.abs(a - b)))


def count_error(model_count: int, reference_count: int) -> float:
    """`|model_count - reference_count|` (e.g. spikes)."""
    return float(abs(int(model_count) - int(reference_count)))


def event_time_errors(model_times: ArrayLike, reference_times: ArrayLike) -> np.ndarray:
    """`|model_i - reference_i|` for the first `min(len)` events (NaN padding dropped).

    Events are paired in order; extra or missing events show in
    [`count_error`][difflab.validation.count_error], not here.
    """
    a = finite_values(model_times)
    b = finite_values(reference_times)
    n = min(a.size, b.size)
    return np.abs(a[:n] - b[:n])


def event_time_max_error(model_times: ArrayLike, reference_times: ArrayLike) -> float:
    """Largest paired event-time error; `inf` when the counts differ or either side has none.

    A missing or extra event is an unbounded timing error, so a count mismatch can never
    pass a spike-time tolerance.
    """
    a, b = finite_values(model_times), finite_values(reference_times)
    if a.size != b.size:
        return float("inf")
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b)))


def finite_values(x: ArrayLike) -> np.ndarray:
    """The finite entries of `x`, flattened (event times padded with NaN, e.g. `spike_times`)."""
    arr = np.ravel(np.asarray(x, dtype=float))
    return arr[np.isfinite(arr)]


def worst_event(model_times: ArrayLike, reference_times: ArrayLike) -> str:
    """Which paired event is furthest from its reference, for a metric's detail line (times in ms)."""
    errors = event_time_errors(model_times, reference_times)
    if errors.size == 0:
        return "no spikes to pair"
    a, b = finite_values(model_times), finite_values(reference_times)
    i = int(np.argmax(errors))
    return f"worst: spike {i + 1}, model {a[i]:.3f} ms, reference {b[i]:.3f} ms"


def _same_shape(model: ArrayLike, reference: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(model, dtype=float)
    b = np.asarray(reference, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"model and reference must have the same shape; got {a.shape} and {b.shape}")
    if a.size == 0:
        raise ValueError("model and reference are empty")
    return a, b
