"""Receiving ratio η of the feed: a ray trace through spherical-cap (or flat) panels.

Rays arrive along d = -s, uniformly over the plane perpendicular to s, so each panel's incident flux is its area
A_⊥ projected on that plane. Panel k is a cap of the sphere of radius R through its three moved vertices; the
cap's centre lies on the normal through the triangle's circumcentre c_k, on the concave side:

    O_k = c_k + √(R² - r_c²) n̂_k,   n̂_k the unit normal pointing towards C.

A ray through a sample point T of the triangle meets the cap at H = T + t d (root of |T + t d - O_k|² = R² of
smallest |t|); the surface normal there is n = (O_k - H)/R and the reflected direction r = d - 2(d·n) n. It meets
the receiving plane (Y - P)·s = 0 at Q = H + τ r, τ = (P - H)·s / (r·s), and is received when τ > 0 and
|Q - P| <= 0.5 m. Then

    η = Σ_k A_⊥,k · mean_T 1[received] / Σ_k A_⊥,k

over the panels with all three vertices in the aperture. The flat-panel variant uses n = n̂_k and H = T. The
smooth variant replaces the indicator by σ((0.5 - |Q - P|)/T_hit), temperature T_hit in metres, for gradients.

References: CUMCM 2021 Problem A, question 3 and appendix items 3-4 (panels are parts of the base sphere);
the flux-weighted spherical-cap model of the published studies is summarised in `docs/reflector.md`.
"""

from __future__ import annotations

import collections
from typing import Literal, Protocol, runtime_checkable

import equinox as eqx
import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from ._checks import check_extensions, check_positive, check_unit_vector
from ._constants import DISC_RADIUS
from ._geometry import Geometry
from ._kinematics import Kinematics, node_positions
from ._pointing import Pointing
from ._sampling import barycentric_grid


@runtime_checkable
class Aim(Protocol):
    """What the ray trace reads from a [`Pointing`][difflab.reflector.Pointing].

    The unit source direction `s` and the feed centre `focus` (m).
    """

    s: Array
    focus: Array


PanelShape = Literal["sphere", "flat"]

#: How often the jitted receiving ratio has been traced (a retrace means a recompilation).
TRACES: collections.Counter = collections.Counter()


def _dot(a, b):
    return jnp.sum(a * b, axis=-1)


def _cap_centres(v: Float[Array, "k 3 3"], radius) -> tuple[Array, Array]:
    """Centres O_k of the radius-R caps through each triangle, and the unit normals n̂_k towards C."""
    a, b = v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]
    axb = jnp.cross(a, b)
    n2 = _dot(axb, axb)
    normal = axb / jnp.sqrt(n2)[:, None]
    centroid = jnp.mean(v, axis=1)
    normal = normal * jnp.where(_dot(normal, centroid) > 0, -1.0, 1.0)[:, None]
    offset = jnp.cross(_dot(a, a)[:, None] * b - _dot(b, b)[:, None] * a, axb) / (2.0 * n2)[:, None]
    rc2 = _dot(offset, offset)
    return v[:, 0] + offset + jnp.sqrt(radius**2 - rc2)[:, None] * normal, normal


def projected_area(v: Float[Array, "k 3 3"], s: ArrayLike) -> Float[Array, " k"]:
    """Area of each triangle projected on the plane perpendicular to the unit vector s, m²."""
    check_unit_vector(s)
    axb = jnp.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    return 0.5 * jnp.abs(_dot(axb, jnp.broadcast_to(jnp.asarray(s), axb.shape)))


def _miss_distance(v, s, focus, radius, weights, shape: PanelShape):
    """Distance |Q - P| (m) and the forward flag r·s > 0 for every (panel, sample) ray."""
    t_pts = jnp.einsum("mj,kjc->kmc", weights, v)
    # the direction and the feed centre are shared by every (panel, sample) ray
    s, focus = jnp.broadcast_to(s, t_pts.shape), jnp.broadcast_to(focus, t_pts.shape)
    d = -s
    centre, normal = _cap_centres(v, radius)
    if shape == "sphere":
        rel = t_pts - centre[:, None, :]
        beta = _dot(rel, d)
        gamma = _dot(rel, rel) - radius**2
        sign = jnp.where(beta >= 0, 1.0, -1.0)
        t = -gamma / (beta + sign * jnp.sqrt(jnp.maximum(beta**2 - gamma, 0.0)))
        hit = t_pts + t[..., None] * d
        n = (centre[:, None, :] - hit) / radius
    else:
        hit = t_pts
        n = jnp.broadcast_to(normal[:, None, :], hit.shape)
    r = d - 2.0 * _dot(d, n)[..., None] * n
    rs = _dot(r, s)
    forward = rs > 0
    tau = _dot(focus - hit, s) / jnp.where(forward, rs, 1.0)
    q = hit + tau[..., None] * r
    return jnp.linalg.norm(q - focus, axis=-1), forward


def panel_hit_fraction(
    vertices: Float[Array, "k 3 3"],
    pointing: Aim,
    radius: ArrayLike,
    *,
    n: int = 16,
    shape: PanelShape = "sphere",
    temperature: ArrayLike | None = None,
    disc_radius: float = DISC_RADIUS,
) -> Float[Array, " k"]:
    """Fraction of each panel's incident flux received by the disc (n² barycentric samples per panel).

    With `temperature` (m) the indicator becomes the sigmoid σ((disc_radius - |Q - P|)/temperature).
    """
    if shape not in ("sphere", "flat"):
        raise ValueError(f"shape must be 'sphere' or 'flat', got {shape!r}")
    if temperature is not None:  # a negative length would count the misses instead of the hits
        check_positive(temperature, "temperature", "m", what="smoothing length of the hit indicator")
    weights = jnp.asarray(barycentric_grid(n))
    dist, forward = _miss_distance(vertices, pointing.s, pointing.focus, radius, weights, shape)
    if temperature is None:
        got = (dist <= disc_radius) & forward
        return jnp.mean(got.astype(dist.dtype), axis=-1)
    soft = jax.nn.sigmoid((disc_radius - dist) / temperature)
    return jnp.mean(jnp.where(forward, soft, 0.0), axis=-1)


def aperture_vertices(geometry: Geometry, e: ArrayLike, pointing: Pointing, kinematics: Kinematics = "cable"):
    """Moved vertices (k, 3, 3) of the panels inside the aperture, m."""
    nodes = node_positions(geometry, e, kinematics)
    return nodes[geometry.panels[pointing.panels_inside]]


def receiving_ratio(
    geometry: Geometry,
    e: ArrayLike,
    pointing: Pointing,
    *,
    n: int = 16,
    shape: PanelShape = "sphere",
    temperature: ArrayLike | None = None,
    kinematics: Kinematics = "cable",
) -> Float[Array, ""]:
    """Receiving ratio η (fraction, 0-1) of the surface with extensions e (m) for `pointing`.

    Args:
        geometry: the reflector.
        e: (n_nodes,) actuator extensions, m, positive towards the centre (zeros: the base sphere).
        pointing: source direction and aperture.
        n: subdivisions per panel edge (n² rays per panel); see `docs/reflector.md` for convergence.
        shape: `"sphere"` (radius-R caps, the contest's panels) or `"flat"` (triangles).
        temperature: None for the exact indicator, or a smoothing length in m for gradients.
        kinematics: node model, see `difflab.reflector._kinematics`.

    Raises:
        ValueError: for concrete `e` that is not one finite extension per node, or a pointing whose aperture
            holds no panel (η would be 0/0).
    """
    if shape not in ("sphere", "flat"):
        raise ValueError(f"shape must be 'sphere' or 'flat', got {shape!r}")
    check_extensions(e, geometry.n_nodes, "e")
    if pointing.panels_inside.size == 0:
        raise ValueError("pointing must select at least one panel inside the aperture (η would be 0/0); got none")
    if temperature is not None:
        check_positive(temperature, "temperature", "m", what="smoothing length of the hit indicator")
        temperature = jnp.asarray(temperature, dtype=float)
    return _ratio(geometry, jnp.asarray(e), pointing, n, shape, temperature, kinematics)


@eqx.filter_jit
def _ratio(geometry, e, pointing, n, shape, temperature, kinematics):
    TRACES["receiving_ratio"] += 1
    v = aperture_vertices(geometry, e, pointing, kinematics)
    frac = panel_hit_fraction(v, pointing, geometry.radius, n=n, shape=shape, temperature=temperature)
    area = projected_area(v, pointing.s)
    return jnp.sum(area * frac) / jnp.sum(area)
