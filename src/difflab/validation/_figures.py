"""Figures for reports: model over reference with residuals, encoded as PNG for embedding.

Figures are built with `matplotlib.figure.Figure` directly (no pyplot), so no GUI backend or
global figure state is involved.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

MODEL_STYLE: dict[str, Any] = {"color": "tab:blue", "lw": 1.2, "label": "difflab"}
REFERENCE_STYLE: dict[str, Any] = {"color": "black", "lw": 1.0, "ls": "--", "label": "reference"}


def overlay_figure(
    x: ArrayLike,
    model: ArrayLike,
    reference: ArrayLike,
    *,
    xlabel: str,
    ylabel: str,
    reference_label: str = "reference",
    marker: str | None = None,
) -> Figure:
    """Two panels sharing `x`: model over reference (top) and `model - reference` (bottom)."""
    x, model, reference = (np.asarray(a, dtype=float) for a in (x, model, reference))
    fig = Figure(figsize=(9, 5.2), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(2.2, 1))
    top.plot(x, reference, marker=marker, **{**REFERENCE_STYLE, "label": reference_label})
    top.plot(x, model, marker=marker, **MODEL_STYLE)
    top.set_ylabel(ylabel)
    top.legend(loc="best", frameon=False)
    top.grid(alpha=0.3)
    bottom.plot(x, model - reference, color="tab:red", lw=1.0, marker=marker)
    bottom.axhline(0.0, color="grey", lw=0.6)
    bottom.set_ylabel("model − reference")
    bottom.set_xlabel(xlabel)
    bottom.grid(alpha=0.3)
    return fig


def png_base64(fig: Figure, dpi: int = 110) -> str:
    """The figure as a base64-encoded PNG (for `<img src="data:image/png;base64,...">`)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
