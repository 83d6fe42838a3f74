r"""A single mode's Wigner function as an image over phase space, on a diverging colour map centred at zero.

The values come from [`difflab.quantum.wigner`][difflab.quantum.wigner] (or QuTiP's `wigner`, the same array):
`W[j, k]` at `(xvec[k], yvec[j])`, $\alpha = g\,(x + iy)/2$. Red is positive, blue negative, white zero, with the
colour limits at $\pm\max|W|$ so that the negative regions of a non-classical state stand out at their true weight.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from jaxtyping import ArrayLike

from ._matplotlib import axes_for


def wigner(
    values: ArrayLike,
    xvec: ArrayLike,
    yvec: ArrayLike,
    *,
    ax: Any = None,
    cmap: str = "RdBu_r",
    colorbar: bool = True,
) -> Any:
    r"""Plot a Wigner function as an image, the colour scale symmetric about zero.

    `plot.wigner(q.wigner(state, x, y), x, y)` draws a state's.

    Args:
        values: $W$ of shape (len(yvec), len(xvec)), as `difflab.quantum.wigner(state, xvec, yvec)` returns it.
        xvec: the 1-D $x$ coordinates of the columns (dimensionless).
        yvec: the 1-D $y$ coordinates of the rows.
        ax: a matplotlib `Axes` to draw into; default a new figure.
        cmap: a diverging matplotlib colour map name.
        colorbar: add a colour bar labelled `W (1)` beside `ax`.

    Returns:
        The `Axes`; its first collection is the `pcolormesh` whose array is `values`, with colour limits
        $\pm\max|W|$.

    Raises:
        ValueError: `xvec` or `yvec` is not 1-D, `values` is not (len(yvec), len(xvec)), or not finite.
        TypeError: `ax` is not a matplotlib `Axes`.
    """
    xs, ys = (np.asarray(v, dtype=float) for v in (xvec, yvec))
    if xs.ndim != 1 or ys.ndim != 1:
        raise ValueError(f"xvec and yvec must be 1-D coordinates; got shapes {xs.shape} and {ys.shape}")
    w = np.asarray(values)
    if w.shape != (ys.size, xs.size) or np.iscomplexobj(w):
        raise ValueError(f"values must be a real Wigner function of shape (len(yvec), len(xvec)) = "
                         f"{(ys.size, xs.size)}, as difflab.quantum.wigner(state, xvec, yvec) returns; got "
                         f"{w.dtype} of shape {w.shape}")  # fmt: skip
    if not np.all(np.isfinite(w)):
        raise ValueError(f"values must be finite; found {int((~np.isfinite(w)).sum())} NaN/inf")
    ax = axes_for(ax, (5.5, 4.5))
    limit = float(np.abs(w).max()) or 1.0
    mesh = ax.pcolormesh(xs, ys, w, shading="nearest", cmap=cmap, vmin=-limit, vmax=limit)
    ax.set_xlabel("x (1)")
    ax.set_ylabel("y (1)")
    ax.set_aspect("equal")
    if colorbar:
        ax.figure.colorbar(mesh, ax=ax, label="W (1)")
    return ax
