r"""A single mode's Wigner function as an image over phase space, on a diverging colour map centred at zero.

The values are [`difflab.quantum.wigner`][difflab.quantum.wigner]'s: $\alpha = g\,(x + iy)/2$ (QuTiP's
coordinates), normalised to $\iint W\,dx\,dy = 1$. Red is positive, blue negative, white zero, with the colour
limits at $\pm\max|W|$ so that the negative regions of a non-classical state stand out at their true weight.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from jaxtyping import ArrayLike

from ._matplotlib import axes_for

#: Default grid: x and y in [-5, 5] (|α| ≤ 3.5 at g = √2, room for about 10 photons), 101 points each.
DEFAULT_GRID = np.linspace(-5.0, 5.0, 101)


def wigner(
    state: ArrayLike,
    xvec: ArrayLike | None = None,
    yvec: ArrayLike | None = None,
    *,
    g: float = math.sqrt(2.0),
    ax: Any = None,
    cmap: str = "RdBu_r",
    colorbar: bool = True,
) -> Any:
    r"""Plot the Wigner function of `state` as an image, the colour scale symmetric about zero.

    Args:
        state: a ket (N,) or (N, 1) or a density matrix (N, N) in the Fock basis, e.g.
            `result.states[-1]` of a solve with `save_states=True`, or a QuTiP `Qobj`.
        xvec: 1-D $x$ coordinates (dimensionless); default 101 points in [-5, 5].
        yvec: 1-D $y$ coordinates; default `xvec`.
        g: coordinate scale, $\alpha = g\,(x + iy)/2$ (default $\sqrt 2$, QuTiP's).
        ax: a matplotlib `Axes` to draw into; default a new figure.
        cmap: a diverging matplotlib colour map name.
        colorbar: add a colour bar labelled `W (1)` beside `ax`.

    Returns:
        The `Axes`; its first collection is the `pcolormesh` whose array is $W$ (len(yvec), len(xvec)), with colour
        limits $\pm\max|W|$.

    Raises:
        ValueError: the checks of [`difflab.quantum.wigner`][difflab.quantum.wigner] (state, grid, `g`).
        TypeError: `ax` is not a matplotlib `Axes`.
    """
    from ..quantum import wigner as wigner_function  # the plot package does not import JAX models until used

    xs = DEFAULT_GRID if xvec is None else xvec
    ys = xs if yvec is None else yvec
    values = np.asarray(wigner_function(state, xs, ys, g=g))
    ax = axes_for(ax, (5.5, 4.5))
    limit = float(np.abs(values).max()) or 1.0
    mesh = ax.pcolormesh(np.asarray(xs), np.asarray(ys), values, shading="nearest", cmap=cmap, vmin=-limit, vmax=limit)
    ax.set_xlabel("x (1)")
    ax.set_ylabel("y (1)")
    ax.set_aspect("equal")
    if colorbar:
        ax.figure.colorbar(mesh, ax=ax, label="W (1)")
    return ax
