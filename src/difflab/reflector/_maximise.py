"""Maximise the receiving ratio directly under the travel and edge constraints.

    max_e η_T(e)   s.t.  |e_i| <= e_max,  |Δl/l|_j <= s_max,

with η_T the smooth receiving ratio (hit indicator replaced by σ((0.5 - |Q - P|)/T)). The temperature T (m) is
annealed from coarse to fine; each stage runs augmented-Lagrangian iterations with Adam inner steps, carrying the
multipliers over. After every outer iteration the exact η is evaluated and the constraints are checked with the
strict checker; the best feasible snapshot is kept, so the result is feasible whatever the polish does.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Float

from ._augmented import AbstractConstrainedProblem, inner_minimise, update_multipliers
from ._constraints import check_constraints
from ._fit import WORK_EXTENSION, WORK_STRAIN, feasibility_constraints
from ._geometry import Geometry
from ._pointing import Pointing
from ._raytrace import receiving_ratio


class RatioProblem(AbstractConstrainedProblem):
    """-scale · η_T(e) under the working limits; `temperature` (m) is an array so annealing does not recompile."""

    geometry: Geometry
    pointing: Pointing
    temperature: Float[Array, ""]
    scale: Float[Array, ""]
    e_max: Float[Array, ""]
    s_max: Float[Array, ""]
    samples: int = 5

    def objective(self, x):
        eta = receiving_ratio(self.geometry, x, self.pointing, n=self.samples, temperature=self.temperature)
        return -self.scale * eta

    def constraints(self, x):
        return feasibility_constraints(self.geometry, x, self.e_max, self.s_max)


@dataclasses.dataclass
class Snapshot:
    """Best feasible point seen: extensions (m), exact η and the stage/iteration it came from."""

    e: np.ndarray
    eta: float
    where: str


def maximise_ratio(
    geometry: Geometry,
    pointing: Pointing,
    e0,
    *,
    temperatures=(0.05, 0.02, 0.01),
    outer: int = 6,
    inner: int = 100,
    learning_rate: float = 1e-3,
    rho: float = 1.0,
    rho_growth: float = 1.5,
    scale: float = 10.0,
    samples: int = 5,
    eval_samples: int = 16,
    verbose: bool = False,
) -> Snapshot:
    """Anneal T through `temperatures`; return the best feasible snapshot (e0 itself if nothing better)."""
    best = Snapshot(np.asarray(e0), -np.inf, "start")

    def consider(e, where):
        e_np = np.asarray(e)
        if not all(check_constraints(geometry, e_np, k).feasible for k in ("cable", "rigid")):
            return
        eta = float(receiving_ratio(geometry, e_np, pointing, n=eval_samples))
        if eta > best.eta:
            best.e, best.eta, best.where = e_np, eta, where

    consider(e0, "start")
    x = jnp.asarray(e0, dtype=float)
    lam = None
    rho_a = jnp.asarray(rho)
    for temperature in temperatures:
        problem = RatioProblem(
            geometry,
            pointing,
            jnp.asarray(temperature),
            jnp.asarray(scale),
            jnp.asarray(WORK_EXTENSION),
            jnp.asarray(WORK_STRAIN),
            samples,
        )
        if lam is None:
            lam = jnp.zeros_like(problem.constraints(x))
        for k in range(outer):
            x = inner_minimise(problem, x, lam, rho_a, inner, jnp.asarray(learning_rate))
            lam, worst = update_multipliers(problem, x, lam, rho_a)
            rho_a = rho_a * rho_growth
            consider(x, f"T={temperature} k={k}")
            if verbose:
                eta = float(receiving_ratio(geometry, x, pointing, n=eval_samples))
                print(f"T={temperature:g} k={k} eta={eta:.4f} max c={float(worst):.3g} best={best.eta:.4f}")
    return best
