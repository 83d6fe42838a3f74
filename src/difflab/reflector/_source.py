"""Source direction, feed position and the 300 m aperture.

The direction towards the source S with azimuth α (in the xy-plane from +x towards +y) and elevation β (up from
the xy-plane) is

    s(α, β) = (cos β cos α, cos β sin α, sin β).

The feed's receiving centre P is where the line SC meets the focal surface: P = -R_f s with R_f = 0.534 R.
A node is inside the working aperture when its distance from the axis, |X - (X·s) s|, is at most 150 m; a panel
counts when all three of its vertices are inside.

Reference: CUMCM 2021 Problem A statement, Fig. 4-5 and appendix item 8.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from ..core.internal import is_concrete
from ._checks import check_unit_vector
from ._constants import APERTURE_RADIUS, focal_surface_radius
from ._geometry import Geometry


def check_direction(alpha: ArrayLike, beta: ArrayLike) -> None:
    """Raise `ValueError` naming the argument if α ∉ [0, 360] or β ∉ [0, 90] degrees (or not finite).

    Concrete values only (scalars or arrays of angles); traced angles are left to the caller.
    """
    for name, what, value, top in (("alpha", "azimuth", alpha, 360.0), ("beta", "elevation", beta, 90.0)):
        if not is_concrete(value):
            continue
        arr = np.asarray(value, dtype=float)
        bad = ~((arr >= 0.0) & (arr <= top))  # NaN fails too
        if bad.any():
            got = arr.reshape(-1)[int(np.argmax(bad.reshape(-1)))]
            raise ValueError(f"{name} ({what}) must be a finite angle in [0, {top:g}] degrees, got {float(got)!r}")


def source_direction(alpha: ArrayLike, beta: ArrayLike) -> Float[Array, "*batch 3"]:
    """Unit vector s towards the source; `alpha` (azimuth) in [0, 360] and `beta` (elevation) in [0, 90] degrees."""
    check_direction(alpha, beta)  # β = 95 would silently be azimuth α + 180 at elevation 85
    a = jnp.deg2rad(jnp.asarray(alpha, dtype=float))
    b = jnp.deg2rad(jnp.asarray(beta, dtype=float))
    return jnp.stack([jnp.cos(b) * jnp.cos(a), jnp.cos(b) * jnp.sin(a), jnp.sin(b)], axis=-1)


def feed_position(s: ArrayLike, radius: ArrayLike = 300.4) -> Float[Array, "*batch 3"]:
    """Centre P = -0.534 R s of the feed's receiving disc, m; `s` must be a unit vector (refused otherwise)."""
    check_unit_vector(s)
    return -focal_surface_radius(1.0) * jnp.asarray(radius) * jnp.asarray(s)


def axis_distance(points: ArrayLike, s: ArrayLike) -> Float[Array, "*batch"]:
    """Distance |X - (X·s) s| of points from the axis through C along s, m; `s` must be a unit vector."""
    check_unit_vector(s)
    x = jnp.asarray(points)
    s = jnp.broadcast_to(jnp.asarray(s), x.shape)  # one direction for every point
    along = jnp.sum(x * s, axis=-1, keepdims=True)
    return jnp.linalg.norm(x - along * s, axis=-1)


def aperture_nodes(geometry: Geometry, s: ArrayLike, radius: float = APERTURE_RADIUS) -> np.ndarray:
    """Boolean mask of base-state nodes within `radius` (m) of the axis (706 at zenith, 692 for Q2)."""
    return np.asarray(axis_distance(geometry.nodes, s)) <= radius


def aperture_panels(geometry: Geometry, s: ArrayLike, radius: float = APERTURE_RADIUS) -> np.ndarray:
    """Indices of the panels whose three vertices are all inside the aperture."""
    inside = aperture_nodes(geometry, s, radius)
    panels = np.asarray(geometry.panels)
    return np.flatnonzero(inside[panels].all(axis=1))
