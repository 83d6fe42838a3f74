"""A pointing: the source direction with the aperture it selects, computed once and eagerly."""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Bool, Float, Int

from ._constants import APERTURE_RADIUS
from ._geometry import Geometry
from ._source import aperture_nodes, aperture_panels, check_direction, feed_position, source_direction


class Pointing(eqx.Module):
    """Source direction s(α, β), feed centre P = -0.534 R s and the nodes/panels inside the 300 m aperture.

    Attributes:
        alpha: azimuth α, degrees.
        beta: elevation β, degrees.
        s: unit vector towards the source.
        focus: feed centre P, m.
        nodes_inside: (n,) mask of nodes within 150 m of the axis (706 at zenith, 692 for α=36.795°, β=78.169°).
        panels_inside: indices of the panels with all three vertices inside (1325 at zenith, 1295 for Q2).
    """

    alpha: Float[Array, ""]
    beta: Float[Array, ""]
    s: Float[Array, " 3"]
    focus: Float[Array, " 3"]
    nodes_inside: Bool[Array, " n"]
    panels_inside: Int[Array, " k"]

    @classmethod
    def from_angles(
        cls, geometry: Geometry, alpha: float, beta: float, aperture_radius: float = APERTURE_RADIUS
    ) -> Pointing:
        """Build the pointing for azimuth `alpha` and elevation `beta` (degrees); checks the angles.

        Raises `ValueError` naming the argument for an angle out of range and for a direction whose aperture holds
        no panel. β is the elevation above the horizon (the zenith is β = 90°). The 300 m aperture lies wholly on
        the reflector for β ≳ 64° (zenith angle ≲ 26°; FAST itself observes down to β = 50°), keeps fewer panels
        below, and holds none below β ≈ 7°, where the receiving ratio would be 0/0.
        """
        check_direction(float(alpha), float(beta))
        if not (np.isfinite(aperture_radius) and aperture_radius > 0):
            raise ValueError(f"aperture_radius must be a finite radius > 0 m; got {aperture_radius!r}")
        s = source_direction(alpha, beta)
        panels = aperture_panels(geometry, s, aperture_radius)
        if panels.size == 0 and aperture_radius != APERTURE_RADIUS:
            raise ValueError(
                f"aperture_radius = {float(aperture_radius):g} m leaves no panel inside the aperture for alpha = "
                f"{float(alpha):g}, beta = {float(beta):g} degrees; the receiving ratio would be 0/0"
            )
        if panels.size == 0:
            raise ValueError(
                f"beta (elevation) = {float(beta):g} degrees (alpha = {float(alpha):g}) leaves no panel within "
                f"{float(aperture_radius):g} m of the axis, so there is no reflector to point and the receiving ratio "
                f"would be 0/0; beta is measured up from the horizon (the zenith is beta = 90): the aperture lies "
                f"wholly on the reflector for beta >= about 64 and is empty below about 7"
            )
        return cls(
            alpha=jnp.asarray(float(alpha)),
            beta=jnp.asarray(float(beta)),
            s=s,
            focus=feed_position(s, geometry.radius),
            nodes_inside=jnp.asarray(aperture_nodes(geometry, s, aperture_radius)),
            panels_inside=jnp.asarray(panels),
        )

    def inside_ids(self, geometry: Geometry) -> list[str]:
        """Node ids inside the aperture, in data order."""
        return [geometry.node_ids[i] for i in np.flatnonzero(np.asarray(self.nodes_inside))]
