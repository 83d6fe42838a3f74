"""The FAST reflector geometry: nodes, actuators, panels and edges as one pytree.

Frame: origin at the centre C of the base sphere, z up, metres. Each node i sits at X_i (on the base sphere of
radius R = 300.4 m); its actuator lies on a radial line with base-state top end U_i and fixed lower end L_i; the
down-pull cable of fixed length ℓ_i = |X_i - U_i| joins U_i to the node.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float, Int

from ._constants import BASE_RADIUS
from ._data import load_tables
from ._edges import unique_edges


def _unit(v):
    return v / jnp.linalg.norm(v, axis=-1, keepdims=True)


class Geometry(eqx.Module):
    """Immutable reflector geometry (final class).

    Attributes:
        node_ids: node names in data order (static).
        nodes: (n, 3) base-state node positions X_i, m.
        actuator_lower: (n, 3) fixed lower ends L_i, m.
        actuator_upper: (n, 3) base-state top ends U_i, m.
        panels: (n_panels, 3) node indices of the triangular panels.
        edges: (n_edges, 2) node indices of the unique edges (main cables).
        radius: base-sphere radius R, m (also the radius of every spherical panel).
    """

    node_ids: tuple[str, ...] = eqx.field(static=True)
    nodes: Float[Array, "n 3"]
    actuator_lower: Float[Array, "n 3"]
    actuator_upper: Float[Array, "n 3"]
    panels: Int[Array, "p 3"]
    edges: Int[Array, "m 2"]
    radius: Float[Array, ""]

    @classmethod
    def fast(cls) -> Geometry:
        """The FAST data of CUMCM 2021 Problem A: 2226 nodes, 4300 panels, 6525 edges, R = 300.4 m."""
        t = load_tables()
        return cls(
            node_ids=t.node_ids,
            nodes=jnp.asarray(t.nodes),
            actuator_lower=jnp.asarray(t.lower),
            actuator_upper=jnp.asarray(t.upper),
            panels=jnp.asarray(t.panels),
            edges=jnp.asarray(unique_edges(t.panels)),
            radius=jnp.asarray(BASE_RADIUS),
        )

    @property
    def n_nodes(self) -> int:
        return len(self.node_ids)

    @property
    def actuator_direction(self) -> Float[Array, "n 3"]:
        """Outward unit vector u_i of each actuator (away from C; the top end is the one nearer to C)."""
        return _unit(self.actuator_lower - self.actuator_upper)

    @property
    def node_direction(self) -> Float[Array, "n 3"]:
        """Outward unit radial vector X_i / |X_i| of each node."""
        return _unit(self.nodes)

    @property
    def cable(self) -> Float[Array, "n 3"]:
        """Down-pull cable vector c_i = X_i - U_i (from the actuator top to the node), m."""
        return self.nodes - self.actuator_upper

    @property
    def cable_length(self) -> Float[Array, " n"]:
        """Fixed down-pull cable length ℓ_i = |X_i - U_i|, m (1.23-49.45 m)."""
        return jnp.linalg.norm(self.cable, axis=-1)

    @property
    def edge_length(self) -> Float[Array, " m"]:
        """Base-state length of each edge, m (10.39-12.42 m)."""
        i, j = self.edges[:, 0], self.edges[:, 1]
        return jnp.linalg.norm(self.nodes[i] - self.nodes[j], axis=-1)

    def off_line_distance(self) -> np.ndarray:
        """Distance of each node from its actuator's radial line, m (1.2-4.7 m for 10 nodes, < 2 mm otherwise)."""
        u = np.asarray(self.actuator_direction)
        x = np.asarray(self.nodes)
        along = np.sum(x * u, axis=-1, keepdims=True)
        return np.linalg.norm(x - along * u, axis=-1)

    def index(self, node_ids) -> np.ndarray:
        """Indices of the given node ids; raises `KeyError` naming the first unknown id."""
        lookup = {name: i for i, name in enumerate(self.node_ids)}
        out = []
        for name in node_ids:
            if name not in lookup:
                raise KeyError(f"unknown node id {name!r} (expected ids such as 'A0', 'B1', ... from nodes.csv)")
            out.append(lookup[name])
        return np.asarray(out, dtype=np.int64)
