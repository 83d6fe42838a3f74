"""A tracking observation: all actuators follow the moving paraboloid for (e.g.) one hour.

`simulate_tracking` solves the `ActuatorServo` ODE for all 2226 actuators with
`difflab.simulate` (diffrax), driven by `TrackingTarget`, and returns an xarray Dataset over time:

- `surface_rms`: RMS over the aperture nodes of the radial distance between the actuated surface and the
  moving ideal paraboloid (m); `tracking_error_max`: largest |e - u| (m);
- `edge_margin`: 7e-4 - max |Δl/l| over the 6525 edges (negative: the limit is broken) and `edge_violations`;
- `receiving_ratio`: η of the actuated surface for the current direction (n = 8 rays per panel edge);
- `alpha`/`beta`: the source's azimuth and elevation (degrees).
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from ..core.internal import simulate
from ._checks import check_positive
from ._constants import APERTURE_RADIUS, MAX_STRAIN
from ._constraints import edge_strain
from ._geometry import Geometry
from ._kinematics import node_positions
from ._raytrace import panel_hit_fraction, projected_area
from ._servo import ActuatorServo
from ._source import axis_distance, feed_position, source_direction
from ._tracking import TrackingTarget, sky_track


def _angles(s):
    s = np.asarray(s)
    beta = np.degrees(np.arcsin(np.clip(s[..., 2], -1, 1)))
    alpha = np.degrees(np.arctan2(s[..., 1], s[..., 0])) % 360.0
    return alpha, beta


class _PointingLike(eqx.Module):
    """The two fields of a Pointing that the ray trace reads (direction s and feed centre P)."""

    s: jax.Array
    focus: jax.Array


@eqx.filter_jit
def _observables(geometry, target, e, t, panels, n: int):
    """Per-time diagnostics for extensions e (m) at time t (s); `panels` is a fixed superset of panels."""
    s = sky_track(target.s0, t)
    u = target(t)
    inside = axis_distance(geometry.nodes, s) <= APERTURE_RADIUS
    rms = jnp.sqrt(jnp.sum(jnp.where(inside, (e - u) ** 2, 0.0)) / jnp.sum(inside, dtype=e.dtype))
    strain = jnp.abs(edge_strain(geometry, e))
    v = node_positions(geometry, e)[geometry.panels[panels]]
    pointing = _PointingLike(s, feed_position(s, geometry.radius))
    frac = panel_hit_fraction(v, pointing, geometry.radius, n=n)
    weight = jnp.where(jnp.all(inside[geometry.panels[panels]], axis=1), projected_area(v, s), 0.0)
    eta = jnp.sum(weight * frac) / jnp.sum(weight)
    return rms, jnp.max(jnp.abs(e - u)), MAX_STRAIN - jnp.max(strain), jnp.sum(strain > MAX_STRAIN), eta


def simulate_tracking(
    geometry: Geometry,
    alpha: float = 36.795,
    beta: float = 78.169,
    *,
    duration: float = 3600.0,
    dt_save: float = 60.0,
    time_constant: float = 2.0,
    max_speed: float = 1e-3,
    depth: float = 300.8,
    n: int = 8,
) -> xr.Dataset:
    """Simulate tracking a source that passes (α, β) (degrees) at mid-observation; times in s from then."""
    check_positive(duration, "duration", "s")
    check_positive(dt_save, "dt_save", "s", what="interval between saved times")
    if dt_save > duration:
        raise ValueError(f"dt_save must be <= duration to save at least two times; got {dt_save} > {duration} s")
    s0 = source_direction(alpha, beta)
    target = TrackingTarget(geometry, s0, depth)
    ts = jnp.arange(-duration / 2, duration / 2 + 0.5 * dt_save, dt_save)
    model = ActuatorServo(target(ts[0]), time_constant, max_speed)
    traj = simulate(model, target, ts)
    es = traj.ys["extension"]
    tracks = np.asarray(sky_track(s0, ts))
    rho = np.stack([np.asarray(axis_distance(geometry.nodes, s)) for s in tracks])
    union = np.flatnonzero((rho[:, np.asarray(geometry.panels)] <= APERTURE_RADIUS).all(axis=2).any(axis=0))
    out = [_observables(geometry, target, es[k], ts[k], jnp.asarray(union), n) for k in range(len(ts))]
    rms, err, margin, viol, eta = (np.array([float(o[i]) for o in out]) for i in range(5))
    a, b = _angles(tracks)
    time = ("time", np.asarray(ts), {"units": "s", "long_name": "time from the source's passage through (α, β)"})
    return xr.Dataset(
        {
            "surface_rms": ("time", rms, {"units": "m", "long_name": "RMS of e - target over aperture nodes"}),
            "tracking_error_max": ("time", err, {"units": "m", "long_name": "largest |e - target|"}),
            "edge_margin": ("time", margin, {"units": "1", "long_name": "7e-4 minus the largest |edge strain|"}),
            "edge_violations": ("time", viol.astype(int), {"units": "1", "long_name": "edges over 0.07 %"}),
            "receiving_ratio": ("time", eta, {"units": "1", "long_name": "receiving ratio (n = 8)"}),
            "alpha": ("time", a, {"units": "degree", "long_name": "source azimuth"}),
            "beta": ("time", b, {"units": "degree", "long_name": "source elevation"}),
        },
        coords={"time": time},
        attrs={
            "time_constant_s": time_constant,
            "max_speed_m_per_s": max_speed,
            "vertex_depth_m": depth,
            "sky_rate_deg_per_h": 15.0,
            "latitude_deg": 25.65,
        },
    )
