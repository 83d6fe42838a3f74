"""A model over its reference with the residuals below it, and a figure as base64 PNG for an HTML page.

These draw the validation report's comparisons (`difflab validate`) and serve any model-against-data figure.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._matplotlib import new_figure

MODEL_STYLE: dict[str, Any] = {"color": "tab:blue", "lw": 1.2, "label": "difflab"}
REFERENCE_STYLE: dict[str, Any] = {"color": "black", "lw": 1.0, "ls": "--", "label": "reference"}


def overlay(
    x: ArrayLike,
    model: ArrayLike,
    reference: ArrayLike,
    *,
    xlabel: str,
    ylabel: str,
    reference_label: str = "reference",
    marker: str | None = None,
    model_label: str = "difflab",
) -> Any:
    """Two panels sharing `x`: model over reference (top) and `model - reference` (bottom).

    Args:
        x: abscissa (e.g. time), shape `(n,)`.
        model: the model's curve, shape `(n,)`, in the units that `ylabel` names.
        reference: the reference curve, shape `(n,)`, same units.
        xlabel: label of `x` with units, e.g. `"time (ms)"`.
        ylabel: label of the curves with units, e.g. `"V (mV)"`.
        reference_label: legend entry of the reference.
        marker: matplotlib marker for both curves (e.g. `"o"` for a few points).
        model_label: legend entry of the model.

    Returns:
        The matplotlib `Figure`.
    """
    x, model, reference = (np.asarray(a, dtype=float) for a in (x, model, reference))
    if not (x.shape == model.shape == reference.shape and x.ndim == 1):
        raise ValueError(f"x, model and reference must be 1-D arrays of one length; got shapes {x.shape}, "
                         f"{model.shape}, {reference.shape}")  # fmt: skip
    fig = new_figure((9, 5.2))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(2.2, 1))
    top.plot(x, reference, marker=marker, **{**REFERENCE_STYLE, "label": reference_label})
    top.plot(x, model, marker=marker, **{**MODEL_STYLE, "label": model_label})
    top.set_ylabel(ylabel)
    top.legend(loc="best", frameon=False)
    top.grid(alpha=0.3)
    bottom.plot(x, model - reference, color="tab:red", lw=1.0, marker=marker)
    bottom.axhline(0.0, color="grey", lw=0.6)
    bottom.set_ylabel("model − reference")
    bottom.set_xlabel(xlabel)
    bottom.grid(alpha=0.3)
    return fig


def png_base64(fig: Any, dpi: int = 110) -> str:
    """The figure as a base64-encoded PNG (for `<img src="data:image/png;base64,...">`)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
