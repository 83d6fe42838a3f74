"""The ideal paraboloid family and the extensions that put nodes on it.

For a source direction s the working paraboloid has its axis along s through the centre C and its focus at the
feed centre P = -R_f s (R_f = 0.534 R). Its one free parameter is the vertex depth h = |V| (vertex V = -h s), i.e.
the focal length f = h - R_f. In the local frame z' = s·N, ρ² = |N|² - z'² the surface is

    z' = ρ² / (4 f) - h.

A node moving inward by t along its unit direction d, N = X - t d, meets the paraboloid where

    (1 - b²) t² + (2ab + 4fb - 2 X·d) t + (|X|² - a² - 4f(a + h)) = 0,   a = s·X, b = s·d,

and the root of smallest magnitude is taken in the stable form t = -2C / (B + sign(B) √(B² - 4AC)), which stays
finite when A → 0 (a node on the axis). Everything is closed form and differentiable in (s, h).

Reference: CUMCM 2021 Problem A statement, Fig. 4; notes on published answers in `docs/reflector.md`
(vertex depth 300.6-300.8 m, f ≈ 140.2-140.4 m).
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from ._checks import check_depth, check_unit_vector
from ._constants import BASE_RADIUS, focal_surface_radius
from ._geometry import Geometry
from ._kinematics import Kinematics, extension_for_displacement, move_direction

#: Vertex depth h (m) that puts the vertex at the base-sphere bottom (f = F = 0.466 R).
SPHERE_VERTEX_DEPTH = 300.4


def focal_length(depth: ArrayLike, radius: ArrayLike = 300.4) -> Float[Array, "*batch"]:
    """Focal length f = h - 0.534 R of the paraboloid with vertex depth h (m).

    Raises `ValueError` for a concrete depth that is NaN or not above 0.534 R (no paraboloid with a positive focal
    length); the same holds for every function here that takes `depth`.
    """
    check_depth(depth, radius)
    return jnp.asarray(depth) - focal_surface_radius(1.0) * jnp.asarray(radius)


def vertex(s: ArrayLike, depth: ArrayLike) -> Float[Array, "*batch 3"]:
    """Vertex V = -h s of the paraboloid, m (Q2 at h = 300.8: (-49.3857, -36.9385, -294.4100)).

    `s` must be a unit vector (see `source_direction`): a non-unit one is refused, not normalised.
    """
    check_unit_vector(s)
    check_depth(depth, BASE_RADIUS)
    return -jnp.asarray(depth)[..., None] * jnp.asarray(s)


def paraboloid_height(points: ArrayLike, s: ArrayLike, depth: ArrayLike, radius: ArrayLike = 300.4):
    """Signed axial offset z' - (ρ²/(4f) - h) of points from the paraboloid, m (positive: on the focus side)."""
    check_unit_vector(s)
    x = jnp.asarray(points)
    s = jnp.broadcast_to(jnp.asarray(s), x.shape)  # one direction for every point
    z = jnp.sum(x * s, axis=-1)
    rho2 = jnp.sum(x * x, axis=-1) - z**2
    return z - (rho2 / (4.0 * focal_length(depth, radius)) - depth)


def _quadratic_small_root(a, b, c):
    """Root of a t² + b t + c = 0 of smallest magnitude, stable when a → 0 or c → 0."""
    sign = jnp.where(b >= 0, 1.0, -1.0)
    return -2.0 * c / (b + sign * jnp.sqrt(jnp.maximum(b * b - 4.0 * a * c, 0.0)))


def displacement_to_paraboloid(
    points: ArrayLike,
    directions: ArrayLike,
    s: ArrayLike,
    depth: ArrayLike,
    radius: ArrayLike = 300.4,
) -> Float[Array, " n"]:
    """Inward move t along the unit `directions` d that puts each point X - t d on the paraboloid, m."""
    check_unit_vector(s)
    check_unit_vector(directions, "directions")
    x, d = jnp.asarray(points), jnp.asarray(directions)
    s = jnp.broadcast_to(jnp.asarray(s), x.shape)  # one direction for every point
    f = focal_length(depth, radius)
    a = jnp.sum(x * s, axis=-1)
    b = jnp.sum(d * s, axis=-1)
    qa = 1.0 - b**2
    qb = 2.0 * a * b + 4.0 * f * b - 2.0 * jnp.sum(x * d, axis=-1)
    qc = jnp.sum(x * x, axis=-1) - a**2 - 4.0 * f * (a + depth)
    return _quadratic_small_root(qa, qb, qc)


def ideal_extensions(
    geometry: Geometry, s: ArrayLike, depth: ArrayLike, kinematics: Kinematics = "cable"
) -> Float[Array, " n"]:
    """Actuator extensions μ_i(h) (m, positive inward) that put every node on the paraboloid of depth h.

    Exact for nodes whose line of motion meets the paraboloid (all nodes within about 170 m of the axis, so every
    aperture node); farther out the discriminant is clamped at zero and the value is only the closest approach.

    Raises `ValueError` when concrete `s` is not a unit vector or `depth` is NaN or not above 0.534 R.
    """
    d = move_direction(geometry, kinematics)
    t = displacement_to_paraboloid(geometry.nodes, d, s, depth, geometry.radius)
    return extension_for_displacement(geometry, t, kinematics)
