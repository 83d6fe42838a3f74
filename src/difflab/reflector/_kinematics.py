"""Node kinematics: where a node goes when its actuator extends by e.

Extension e (metres) is positive towards the centre C: the actuator top moves to U' = U - e u, with u the
actuator's outward unit vector. The down-pull cable keeps its length ℓ = |X - U|.

Two models are provided:

`"cable"` (default, exact fixed-length cable)
    The node stays on its own radial line, N = X - δ x̂ with x̂ = X/|X|, and the cable stays taut:
    |N - U'| = ℓ. With c = X - U this is the quadratic

        δ² - 2δ x̂·(c + e u) + (2e c·u + e²) = 0,

    whose root continuous with δ(0) = 0 is δ = k / (b - √(b² - k)), b = x̂·(c + e u), k = 2e c·u + e².
    For the 2216 nodes that lie on their actuator's line, δ = e (to 1e-6 relative). For the 10 nodes that sit
    1.2-5 m off the line (D69, A132, E140, D155, B284-B288, A385) the cable is tilted and δ differs from e
    by up to a few per cent. Keeping the node on its radial line assumes the tangential balance of the cable net is
    unchanged by the small radial moves (a full net-equilibrium solve is not modelled).

`"rigid"`
    The node moves with the actuator top along the actuator's line, N = X - e u (the cable is translated). This is
    what published solutions assume.

Both maps and their inverses are closed form, differentiable and vectorised.
"""

from __future__ import annotations

from typing import Literal

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from ._checks import check_extensions
from ._geometry import Geometry

Kinematics = Literal["cable", "rigid"]


def _small_root(beta, gamma):
    """Root of t² + 2βt + γ = 0 of smallest magnitude, stable for γ → 0 (returns 0 at γ = 0)."""
    disc = jnp.sqrt(jnp.maximum(beta**2 - gamma, 0.0))
    sign = jnp.where(beta >= 0, 1.0, -1.0)
    return -gamma / (beta + sign * disc)


def move_direction(geometry: Geometry, kinematics: Kinematics = "cable") -> Float[Array, "n 3"]:
    """Outward unit direction d_i along which node i moves (N = X - t d)."""
    _check(kinematics)
    return geometry.node_direction if kinematics == "cable" else geometry.actuator_direction


def node_displacement(geometry: Geometry, e: ArrayLike, kinematics: Kinematics = "cable") -> Float[Array, " n"]:
    """Inward displacement t_i of each node along `move_direction` for actuator extensions e (m).

    Raises `ValueError` when concrete `e` is not one finite number per node.
    """
    _check(kinematics)
    check_extensions(e, geometry.n_nodes, "e")
    e = jnp.asarray(e)
    if kinematics == "rigid":
        return e
    u, xh, c = geometry.actuator_direction, geometry.node_direction, geometry.cable
    w = c + e[:, None] * u
    b = jnp.sum(xh * w, axis=-1)
    k = 2.0 * e * jnp.sum(c * u, axis=-1) + e**2
    return _small_root(-b, k)


def extension_for_displacement(
    geometry: Geometry, t: ArrayLike, kinematics: Kinematics = "cable"
) -> Float[Array, " n"]:
    """Inverse of `node_displacement`: the extension e that moves each node inward by t (m)."""
    _check(kinematics)
    check_extensions(t, geometry.n_nodes, "t")
    t = jnp.asarray(t)
    if kinematics == "rigid":
        return t
    u, xh, c, ell = (
        geometry.actuator_direction,
        geometry.node_direction,
        geometry.cable,
        geometry.cable_length,
    )
    w = c - t[:, None] * xh
    beta = jnp.sum(u * w, axis=-1)
    gamma = jnp.sum(w * w, axis=-1) - ell**2
    return _small_root(beta, gamma)


def node_positions(geometry: Geometry, e: ArrayLike, kinematics: Kinematics = "cable") -> Float[Array, "n 3"]:
    """Node positions N(e) = X - t(e) d after actuator extensions e (m, positive towards the centre)."""
    t = node_displacement(geometry, e, kinematics)
    return geometry.nodes - t[:, None] * move_direction(geometry, kinematics)


def _check(kinematics: str) -> None:
    if kinematics not in ("cable", "rigid"):
        raise ValueError(f"kinematics must be 'cable' or 'rigid', got {kinematics!r}")
