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

from ..core.internal import warn_moved
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


@dataclasses.dataclass(frozen=True)
class AugmentedLagrangian:
    """The augmented-Lagrangian iterations `maximise_ratio` runs at each temperature (Nocedal & Wright §17.4).

    Attributes:
        outer: multiplier updates per temperature (a whole number >= 1).
        inner: Adam steps on L_ρ(·, λ) between two updates (a whole number >= 1).
        learning_rate: Adam's step size (m of extension per unit of the scaled objective; > 0).
        rho: initial penalty weight ρ (> 0).
        rho_growth: factor γ >= 1 applied to ρ after every update.

    Example:
        ```python
        snap = difflab.reflector.maximise_ratio(geometry, pointing, e0,
                                                method=difflab.reflector.AugmentedLagrangian(outer=4, inner=50))
        ```
    """

    outer: int = 6
    inner: int = 100
    learning_rate: float = 1e-3
    rho: float = 1.0
    rho_growth: float = 1.5

    def __post_init__(self) -> None:
        for name in ("outer", "inner"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
                raise ValueError(f"{name} must be a whole number >= 1; got {value!r}")
        for name, low in (("learning_rate", 0.0), ("rho", 0.0), ("rho_growth", 1.0)):
            value = getattr(self, name)
            ok = not isinstance(value, bool) and isinstance(value, int | float | np.number) and np.isfinite(value)
            if not ok or value < low or (low == 0.0 and value == 0.0):
                bound = ">= 1" if low else "> 0"
                raise ValueError(f"{name} must be a finite number {bound}; got {value!r}")


#: The old keywords of `maximise_ratio` that `AugmentedLagrangian` gathers.
_METHOD_FIELDS = tuple(f.name for f in dataclasses.fields(AugmentedLagrangian))


def maximise_ratio(
    geometry: Geometry,
    pointing: Pointing,
    e0,
    *,
    temperatures=(0.05, 0.02, 0.01),
    method: AugmentedLagrangian | None = None,
    scale: float = 10.0,
    samples: int = 5,
    eval_samples: int = 16,
    verbose: bool = False,
    **deprecated,
) -> Snapshot:
    """Anneal T through `temperatures` (m); return the best feasible snapshot (e0 itself if nothing better).

    Args:
        geometry: the reflector.
        pointing: the source direction and aperture.
        e0: starting extensions (m, positive towards the centre); need not be feasible.
        temperatures: the hit-test temperatures T (m), coarse to fine.
        method: an [`AugmentedLagrangian`][difflab.reflector.AugmentedLagrangian]: the iterations at each
            temperature (default: 6 updates of 100 Adam steps at 1e-3, ρ from 1 growing 1.5× per update).
        scale: factor on η in the objective (dimensionless).
        samples: sampling density (subdivisions per panel edge) of the smooth η being maximised.
        eval_samples: sampling density of the exact η that ranks the feasible snapshots.
        verbose: print η and the worst constraint after every update.
        **deprecated: `outer`, `inner`, `learning_rate`, `rho`, `rho_growth`: the fields of `method`, as keywords
            (deprecated, they go at 0.3).
    """
    method = _gather_method(method, deprecated)
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
    rho_a = jnp.asarray(method.rho)
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
        for k in range(method.outer):
            x = inner_minimise(problem, x, lam, rho_a, method.inner, jnp.asarray(method.learning_rate))
            lam, worst = update_multipliers(problem, x, lam, rho_a)
            rho_a = rho_a * method.rho_growth
            consider(x, f"T={temperature} k={k}")
            if verbose:
                eta = float(receiving_ratio(geometry, x, pointing, n=eval_samples))
                print(f"T={temperature:g} k={k} eta={eta:.4f} max c={float(worst):.3g} best={best.eta:.4f}")
    return best


def _gather_method(method, deprecated: dict) -> AugmentedLagrangian:
    """`method`, or one made of the old keywords `outer=`, `inner=`, ... (each with a DeprecationWarning)."""
    unknown = sorted(set(deprecated) - set(_METHOD_FIELDS))
    if unknown:
        raise TypeError(f"maximise_ratio() got an unexpected keyword argument {unknown[0]!r}")
    if method is not None and not isinstance(method, AugmentedLagrangian):
        raise TypeError(f"method must be a difflab.reflector.AugmentedLagrangian or None; got {method!r}")
    for name in deprecated:
        warn_moved("maximise_ratio", name, f"method=difflab.reflector.AugmentedLagrangian({name}=...)")
    if not deprecated:
        return method or AugmentedLagrangian()
    if method is not None:
        raise TypeError(f"maximise_ratio(): {', '.join(deprecated)} given both as keywords and through method=")
    return AugmentedLagrangian(**deprecated)
