"""Feasibility projection: the feasible extensions nearest to a given (possibly infeasible) set.

    min_e Σ_i (e_i - e*_i)²   s.t.  |e_i| <= e_max,  |Δl/l|_j <= s_max,

solved with the augmented Lagrangian of `._augmented` (L-BFGS inner steps).
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from ._augmented import AbstractConstrainedProblem, solve_augmented
from ._fit import WORK_EXTENSION, WORK_STRAIN, feasibility_constraints
from ._geometry import Geometry


class NearestFeasible(AbstractConstrainedProblem):
    """Squared distance to `target` under the travel and edge constraints."""

    geometry: Geometry
    target: Float[Array, " n"]
    e_max: Float[Array, ""]
    s_max: Float[Array, ""]

    def objective(self, x):
        return jnp.sum((x - self.target) ** 2)

    def constraints(self, x):
        return feasibility_constraints(self.geometry, x, self.e_max, self.s_max)


def project_feasible(
    geometry: Geometry,
    e: ArrayLike,
    *,
    e_max: float = WORK_EXTENSION,
    s_max: float = WORK_STRAIN,
    outer: int = 12,
    inner: int = 100,
) -> Float[Array, " n"]:
    """Nearest extensions (m) to `e` that satisfy the working limits (slightly inside the contest's)."""
    target = jnp.asarray(e, dtype=float)
    problem = NearestFeasible(geometry, target, jnp.asarray(e_max), jnp.asarray(s_max))
    x0 = jnp.clip(target, -e_max, e_max)
    x, _, _ = solve_augmented(problem, x0, outer=outer, inner=inner, rho=10.0, rho_growth=3.0)
    return x
