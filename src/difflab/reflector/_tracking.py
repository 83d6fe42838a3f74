"""The source's track across the sky and the moving target extensions it commands.

While a source is tracked, the sky turns about the celestial pole at ω = 15°/h (7.2722e-5 rad/s; the sidereal
rate 15.041°/h is rounded as in the contest-style statement). The frame's orientation to north is not given in the
data; we take +y as north, so the pole is p = (0, cos φ, sin φ) with the site latitude φ = 25.65° N (FAST,
Dawodang, Guizhou). The direction at time t (s) is Rodrigues' rotation of s_0 about p by ω t:

    s(t) = s_0 cos ωt + (p × s_0) sin ωt + p (p·s_0)(1 - cos ωt).

The commanded extensions are the ideal paraboloid's, μ_i(s(t), h), tapered smoothly to zero outside the aperture
with the window w_i = σ((150 - ρ_i(t)) / 2 m) so that nodes enter and leave the working area without jumps.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from ..core.internal import AbstractProtocol, check_finite, is_concrete
from ._checks import check_depth, check_positive, check_unit_vector
from ._constants import APERTURE_RADIUS
from ._geometry import Geometry
from ._paraboloid import ideal_extensions
from ._source import axis_distance

#: Sky rotation rate, rad/s (15°/h); a Python float, since an array here would start JAX's backend at import.
SKY_RATE = math.radians(15.0) / 3600.0
#: Latitude of FAST, degrees north.
FAST_LATITUDE = 25.65


def sky_track(s0: ArrayLike, t: ArrayLike, latitude: float = FAST_LATITUDE) -> Float[Array, "*t 3"]:
    """Source direction at times t (s) for a source at the unit vector s0 at t = 0 (rotation about the pole)."""
    check_unit_vector(s0, "s0")
    if is_concrete(latitude) and not -90.0 <= float(latitude) <= 90.0:  # NaN fails too
        raise ValueError(f"latitude must be a finite angle in [-90, 90] degrees (north positive); got {latitude}")
    check_finite(t, "t")
    phi = jnp.deg2rad(latitude)
    p = jnp.array([0.0, jnp.cos(phi), jnp.sin(phi)])
    s0 = jnp.asarray(s0)
    wt = SKY_RATE * jnp.asarray(t)[..., None]
    # the three fixed vectors of the rotation, given a length-1 axis for each axis of t
    times = tuple(range(wt.ndim - 1))
    s0, cross, along = (jnp.expand_dims(v, times) for v in (s0, jnp.cross(p, s0), p * jnp.dot(p, s0)))
    return s0 * jnp.cos(wt) + cross * jnp.sin(wt) + along * (1.0 - jnp.cos(wt))


class TrackingTarget(AbstractProtocol):
    """Target extensions (m, one per node) of the moving ideal paraboloid; `__call__(t)` with t in seconds.

    Attributes:
        geometry: the reflector.
        s0: source direction at t = 0.
        depth: vertex depth h of the commanded paraboloid, m.
        taper: width of the aperture-edge window, m.
    """

    geometry: Geometry
    s0: Float[Array, " 3"]
    depth: Float[Array, ""]
    taper: Float[Array, ""]

    def __init__(self, geometry: Geometry, s0: ArrayLike, depth: ArrayLike = 300.8, taper: ArrayLike = 2.0):
        check_unit_vector(s0, "s0")
        check_depth(depth, geometry.radius)
        check_positive(taper, "taper", "m", what="width of the aperture-edge window")  # < 0 would invert it
        self.geometry = geometry
        self.s0 = jnp.asarray(s0, dtype=float)
        self.depth = jnp.asarray(depth, dtype=float)
        self.taper = jnp.asarray(taper, dtype=float)

    def window(self, s) -> Float[Array, " n"]:
        rho = axis_distance(self.geometry.nodes, s)
        return jax.nn.sigmoid((APERTURE_RADIUS - rho) / self.taper)

    def __call__(self, t: ArrayLike) -> Float[Array, " n"]:
        s = sky_track(self.s0, t)
        return self.window(s) * ideal_extensions(self.geometry, s, self.depth)
