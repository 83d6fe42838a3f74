"""Frequency–current (F–I) curves."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._matplotlib import axes_for


def fi_curve(
    currents: ArrayLike,
    rates: ArrayLike,
    *,
    current_units: str = "µA/cm²",
    reference: tuple[ArrayLike, ArrayLike] | None = None,
    label: str = "difflab",
    ax: Any = None,
) -> Any:
    """Plot firing rate against injected current, e.g. the output of [`difflab.neuron.fi_curve`][].

    Args:
        currents: injected currents, shape `(n,)`, in `current_units` (µA/cm² for a point HH cell).
        rates: firing rates in Hz, shape `(n,)`.
        current_units: units of `currents`, for the axis label.
        reference: `(currents, rates)` of a reference curve (e.g. NEURON's), drawn dashed.
        label: legend entry of `rates`.
        ax: a matplotlib `Axes` to draw into; default a new figure.

    Returns:
        The matplotlib `Axes`.

    Raises:
        ValueError: `currents` and `rates` are not 1-D arrays of one length, or hold NaN.
    """
    curves = [("currents", "rates", currents, rates)]
    if reference is not None:
        curves.append(("reference currents", "reference rates", *reference))
    arrays = [_check(*curve) for curve in curves]
    ax = axes_for(ax)
    if reference is not None:
        ax.plot(*arrays[1], "--", color="black", lw=1.0, marker="s", ms=3, label="reference")
    ax.plot(*arrays[0], "-o", color="tab:blue", lw=1.2, ms=4, label=label)
    ax.set_xlabel(f"current ({current_units})")
    ax.set_ylabel("firing rate (Hz)")
    ax.grid(alpha=0.3)
    if reference is not None:
        ax.legend(loc="best", frameon=False)
    return ax


def _check(x_name: str, y_name: str, x: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"{x_name} and {y_name} must be 1-D arrays of one length; got shapes {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError(f"{x_name} and {y_name} must be finite; got NaN or inf")
    return x, y
