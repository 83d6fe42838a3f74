"""The reflector's surface over its aperture: each node's radial offset as a colour."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike

from ._matplotlib import axes_for, check_dataset, check_variable, label

_EXPECTED = "the Dataset of difflab.reflector.solution_dataset(geometry, solution) or a shipped fast/solution_* dataset"


def reflector(
    solution: xr.Dataset,
    variable: str = "extension",
    *,
    relative_to: str | ArrayLike | None = None,
    aperture_only: bool = True,
    limit: float | None = None,
    ax: Any = None,
) -> Any:
    r"""Scatter the nodes over the aperture, coloured by their radial offset (actuator extension).

    Each node is placed at its coordinates $(x', y')$ in the plane perpendicular to the source direction
    $\mathbf s$ (found from the ideal vertex $-h\mathbf s$), so the 300 m aperture appears as a disc whatever the
    pointing. The colour is `variable` (m, positive towards the centre), or its difference from `relative_to`:
    e.g. `relative_to="extension_fit"` (the constrained best fit) or the ideal paraboloid's extensions
    `difflab.reflector.ideal_extensions(geometry, pointing.s, depth)`, which shows the surface deviation.

    Args:
        solution: the Dataset of [`difflab.reflector.solution_dataset`][] (variables `position`, `vertex`,
            `inside_aperture`, the extensions).
        variable: the per-node variable to colour by (`"extension"` or `"extension_fit"`).
        relative_to: another variable's name, or an array over the nodes in the same units (a named `DataArray`
            names itself in the colour bar's label), subtracted first.
        aperture_only: draw only the nodes inside the 300 m aperture.
        limit: the colour range is `[-limit, limit]` (m; default the largest offset drawn), so that zero is white
            and several panels can share one scale.
        ax: a matplotlib `Axes` to draw into; default a new figure.

    Returns:
        The matplotlib `Axes` (with a colour bar labelled with the variable and its units).

    Raises:
        TypeError: `solution` is not such a Dataset.
        KeyError: `variable` or `relative_to` is not a variable of it.
        ValueError: `relative_to` given as an array does not hold one value per node, or `limit` is not positive.
    """
    ds = check_dataset(solution, "solution", _EXPECTED)
    for name in ("position", "vertex"):
        if name not in ds.data_vars:
            raise TypeError(f"solution must be {_EXPECTED}; this Dataset has no {name!r} variable")
    da = check_variable(ds, variable)
    values, name = np.asarray(da.values, dtype=float), str(da.name)
    if relative_to is not None:
        reference, ref_name = _reference(ds, relative_to)
        values, name = values - reference, f"{name} − {ref_name}"
    keep = np.ones(values.shape, bool)
    if aperture_only and "inside_aperture" in ds:
        keep = np.asarray(ds["inside_aperture"].values, bool)
    x, y = _aperture_plane(np.asarray(ds["position"].values, dtype=float), np.asarray(ds["vertex"].values, float))
    ax = axes_for(ax, (6.4, 5.4))
    if limit is None:
        limit = float(np.max(np.abs(values[keep]))) or 1.0  # an all-zero surface still gets a colour range
    elif not limit > 0:
        raise ValueError(f"limit must be a positive colour range in metres; got {limit!r}")
    points = ax.scatter(x[keep], y[keep], c=values[keep], s=9, cmap="RdBu_r", vmin=-limit, vmax=limit)
    ax.figure.colorbar(points, ax=ax, label=label(name, da.attrs))
    ax.set_aspect("equal")
    ax.set_xlabel("x′ (m)")
    ax.set_ylabel("y′ (m)")
    ax.set_title("nodes in the plane perpendicular to the source direction", fontsize=9)
    return ax


def _reference(ds: xr.Dataset, relative_to: str | ArrayLike) -> tuple[np.ndarray, str]:
    if isinstance(relative_to, str):
        return np.asarray(check_variable(ds, relative_to, "relative_to").values, dtype=float), relative_to
    reference = np.asarray(relative_to, dtype=float)
    if reference.shape != (ds.sizes["node"],):
        raise ValueError(f"relative_to must hold one value per node, shape ({ds.sizes['node']},); "
                         f"got shape {reference.shape}")  # fmt: skip
    name = getattr(relative_to, "name", None)  # a named DataArray labels itself
    return reference, str(name) if name is not None else "reference"


def _aperture_plane(points: np.ndarray, vertex: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates (m) of `points` in the plane perpendicular to s, where the vertex is -depth·s."""
    s = -vertex / np.linalg.norm(vertex)
    helper = np.array([0.0, 1.0, 0.0]) if abs(s[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    e1 = np.cross(helper, s)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(s, e1)
    return points @ e1, points @ e2
