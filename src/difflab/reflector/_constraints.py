"""Feasibility of an adjustment: actuator travel and edge (main cable) length changes.

Constraints of CUMCM 2021 Problem A (appendix items 5 and 7):

    |e_i| <= 0.6 m for every actuator,
    | |N_i - N_j| / |X_i - X_j| - 1 | <= 7e-4 for every one of the 6525 edges (i, j),

edges that cross the aperture rim included. `check_constraints` is the strict checker every answer must
pass; it evaluates in float64 NumPy, outside any transformation. `edge_strain` is the differentiable
version used by the optimisers.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from ._checks import check_positive
from ._constants import MAX_EXTENSION, MAX_STRAIN
from ._geometry import Geometry
from ._kinematics import Kinematics, node_positions


def edge_strain(geometry: Geometry, e: ArrayLike, kinematics: Kinematics = "cable") -> Float[Array, " m"]:
    """Relative length change |N_i - N_j| / |X_i - X_j| - 1 of every edge for extensions e (dimensionless)."""
    n = node_positions(geometry, e, kinematics)
    i, j = geometry.edges[:, 0], geometry.edges[:, 1]
    return jnp.linalg.norm(n[i] - n[j], axis=-1) / geometry.edge_length - 1.0


@dataclasses.dataclass(frozen=True)
class ConstraintReport:
    """Outcome of `check_constraints`.

    Attributes:
        max_abs_extension: largest |e_i|, m.
        max_abs_strain: largest |Δl/l| over all edges (dimensionless; 7e-4 is the limit).
        n_extension_violations: actuators with |e_i| > 0.6 m.
        n_strain_violations: edges with |Δl/l| > 7e-4.
        worst_edge: (node id, node id) of the edge with the largest |Δl/l|.
    """

    max_abs_extension: float
    max_abs_strain: float
    n_extension_violations: int
    n_strain_violations: int
    worst_edge: tuple[str, str]

    @property
    def feasible(self) -> bool:
        return self.n_extension_violations == 0 and self.n_strain_violations == 0

    def __str__(self) -> str:
        verdict = "feasible" if self.feasible else "INFEASIBLE"
        return (
            f"{verdict}: max|e| = {self.max_abs_extension:.4f} m ({self.n_extension_violations} over "
            f"{MAX_EXTENSION} m), max|Δl/l| = {100 * self.max_abs_strain:.5f} % on edge {self.worst_edge} "
            f"({self.n_strain_violations} edges over {100 * MAX_STRAIN:.2f} %)"
        )


def check_constraints(
    geometry: Geometry,
    e: ArrayLike,
    kinematics: Kinematics = "cable",
    *,
    max_extension: float = MAX_EXTENSION,
    max_strain: float = MAX_STRAIN,
) -> ConstraintReport:
    """Check extensions e (m, one per node, positive inward) against the travel and edge limits, in float64."""
    check_positive(max_extension, "max_extension", "m", what="actuator travel")
    check_positive(max_strain, "max_strain", "1", what="relative edge-length change")
    e = np.asarray(e, dtype=np.float64)
    if e.shape != (geometry.n_nodes,):
        raise ValueError(f"e must have shape ({geometry.n_nodes},) (one extension per node), got {e.shape}")
    if not np.all(np.isfinite(e)):
        raise ValueError("e contains NaN or infinite extensions")
    strain = np.abs(np.asarray(edge_strain(geometry, jnp.asarray(e), kinematics), dtype=np.float64))
    worst = int(np.argmax(strain))
    i, j = (int(k) for k in np.asarray(geometry.edges[worst]))
    return ConstraintReport(
        max_abs_extension=float(np.max(np.abs(e))),
        max_abs_strain=float(strain[worst]),
        n_extension_violations=int(np.sum(np.abs(e) > max_extension)),
        n_strain_violations=int(np.sum(strain > max_strain)),
        worst_edge=(geometry.node_ids[i], geometry.node_ids[j]),
    )
