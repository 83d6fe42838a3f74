"""The contest answers for one pointing: ideal paraboloid, adjusted surface, receiving ratios.

Pipeline (all extensions in metres, positive towards the centre):

1. **Fit** (questions 1-2): the constrained least-squares fit of the aperture nodes to the ideal paraboloid,
   jointly with its vertex depth (`fit_zones` with one zone). Its depth defines the ideal paraboloid.
2. **Maximise η** (optional, `objective="ratio"`): for each two-step zone layout (r_1, r_2) build the stepped
   start (`stepped_start`), give it a short polish with the smooth η under the augmented Lagrangian
   (`maximise_ratio`), then polish the best `candidates` further while annealing the hit-test
   temperature; the best feasible snapshot is kept throughout (the long polishes rank theirs, and the final
   choice between layouts is made, by η at n = 32, whose sampling error is below the gap between layouts).
3. **Check**: the chosen extensions must pass `check_constraints` exactly, under both node models
   ("cable" and "rigid"); otherwise an error is raised.
   η is reported at the converged sampling density (n = 32, 1024 rays per panel).

The whole pipeline takes about five minutes on a CPU; `solve` reports each stage as it ends (`progress`).
"""

from __future__ import annotations

import dataclasses
import itertools
import warnings
from collections.abc import Callable

import numpy as np

from ..core.internal import Progress
from ._constraints import ConstraintReport, check_constraints
from ._fit import fit_zones
from ._geometry import Geometry
from ._maximise import AugmentedLagrangian, maximise_ratio
from ._paraboloid import vertex
from ._pointing import Pointing
from ._raytrace import receiving_ratio
from ._zones import stepped_start

#: Sampling density (subdivisions per panel edge) at which η has converged to 0.05 percentage points.
CONVERGED_SAMPLES = 32


@dataclasses.dataclass(frozen=True)
class Solution:
    """Answer for one pointing. Lengths in metres, η as a fraction.

    Attributes:
        pointing: the source direction and aperture.
        depth: vertex depth of the ideal paraboloid from the constrained fit, m.
        vertex: ideal paraboloid vertex -depth·s, m.
        e_fit: extensions of the constrained best fit to the ideal paraboloid.
        e: the answer's extensions (`e_fit` or the η-maximising surface).
        objective: `"fit"` or `"ratio"`.
        zone_radii: step radii (m from the axis) of the η-maximising surface; empty for the fit.
        zone_depths: vertex depths (m) of its stepped start.
        eta: η of `e`; eta_fit: η of `e_fit`; eta_base: η of the base sphere (n = 32 samples per edge).
        report: strict constraint check of `e`.
    """

    pointing: Pointing
    depth: float
    vertex: np.ndarray
    e_fit: np.ndarray
    e: np.ndarray
    objective: str
    zone_radii: tuple[float, ...]
    zone_depths: tuple[float, ...]
    eta: float
    eta_fit: float
    eta_base: float
    report: ConstraintReport


def _ratio(geometry, e, pointing):
    return float(receiving_ratio(geometry, e, pointing, n=CONVERGED_SAMPLES))


_INNER = (40.0, 45.0, 50.0)  # inner step radii tried, m from the axis
_OUTER = (140.0, 143.0, 146.0)  # outer step radii tried, m


def maximise_with_zones(
    geometry,
    pointing,
    *,
    inner_radii=_INNER,
    outer_radii=_OUTER,
    candidates: int = 2,
    report: Callable[[str], None] = lambda message: None,
):
    """Step 2 of the pipeline: returns (extensions, radii, zone depths, η at n = 32) of the best layout.

    Every two-step layout (r_1, r_2) gets a short polish at T = 0.1 m (the stepped start's own η is a poor
    predictor of the feasible η), ranked by η at n = 16; the best `candidates` are polished further at T = 0.05
    and 0.03 m, and their snapshots and the final choice are ranked by η at the reported density
    (`CONVERGED_SAMPLES`): at n = 16 η is off by up to 0.12 percentage points on these stepped surfaces, more than
    the 0.03 points that can separate the two best layouts, so the choice would follow the sampling error. `report`
    is called once per polish with a line saying what it gave.
    """
    tried = []
    for radii in itertools.product(inner_radii, outer_radii):
        e0, depths = stepped_start(geometry, pointing, radii)
        snap = maximise_ratio(geometry, pointing, e0, temperatures=(0.1,), method=_SHORT, samples=8)
        report(f"zones {radii} m: feasible η = {snap.eta:.4f} after the short polish")
        tried.append((snap.eta, radii, depths, snap.e))
    tried.sort(key=lambda item: item[0], reverse=True)
    best = None
    for eta0, radii, depths, e in tried[:candidates]:
        if not np.isfinite(eta0):
            report(f"zones {radii} m: no feasible surface to polish")
            continue
        snap = maximise_ratio(
            geometry, pointing, e, temperatures=(0.05, 0.03), method=_LONG, samples=8, eval_samples=CONVERGED_SAMPLES
        )
        report(f"zones {radii} m: feasible η = {snap.eta:.4f} after the long polish ({snap.where})")
        if best is None or snap.eta > best[3]:
            best = (snap.e, radii, depths, snap.eta)
    return best


#: The polishes of `maximise_with_zones` (both at 8 samples per panel edge).
_SHORT = AugmentedLagrangian(outer=6, inner=100, learning_rate=3e-3, rho_growth=2.0)
_LONG = AugmentedLagrangian(outer=4, inner=100, learning_rate=3e-3)


def solve(
    geometry: Geometry,
    alpha: float,
    beta: float,
    *,
    objective: str = "ratio",
    candidates: int = 2,
    progress: bool | None = True,
    verbose: bool | None = None,
) -> Solution:
    """Solve questions 1-3 for azimuth `alpha` and elevation `beta` (degrees).

    Args:
        geometry: the reflector ([`Geometry.fast`][difflab.reflector.Geometry.fast]).
        alpha: source azimuth α, degrees.
        beta: source elevation β, degrees.
        objective: `"ratio"` (maximise the receiving ratio η, about five minutes) or `"fit"` (the constrained
            best fit to the ideal paraboloid only).
        candidates: zone layouts polished further when `objective="ratio"`.
        progress: report each stage on stderr: `True` a bar on a terminal and one line per stage otherwise,
            `None` the bar on a terminal only, `False` nothing.
        verbose: deprecated (goes at 0.3): the stages are reported through `progress`.
    """
    if objective not in ("fit", "ratio"):
        raise ValueError(f"objective must be 'fit' or 'ratio', got {objective!r}")
    if verbose is not None:
        warnings.warn("solve(verbose=...) is replaced by progress (goes at 0.3)", DeprecationWarning, stacklevel=2)
    pointing = Pointing.from_angles(geometry, alpha, beta)
    layouts = len(_INNER) * len(_OUTER)
    stages = 2 + (layouts + min(candidates, layouts) if objective == "ratio" else 0)
    with Progress(stages, "reflector solve", progress) as bar:
        fitted, h = fit_zones(geometry, pointing)
        e_fit, depth = np.asarray(fitted), float(h[0])
        eta_fit = _ratio(geometry, e_fit, pointing)
        bar.advance(f"best fit: vertex depth {depth:.4f} m, η = {eta_fit:.4f}")
        e = e_fit
        radii: tuple[float, ...] = ()
        zone_depths: tuple[float, ...] = ()
        if objective == "ratio":
            found = maximise_with_zones(geometry, pointing, candidates=candidates, report=bar.advance)
            if found is not None and _ratio(geometry, found[0], pointing) > eta_fit:
                e, radii, zone_depths = found[0], tuple(found[1]), tuple(float(d) for d in found[2])
        report = check_constraints(geometry, e)
        report_rigid = check_constraints(geometry, e, "rigid")
        if not (report.feasible and report_rigid.feasible):
            raise RuntimeError(
                f"the optimised surface failed the constraint check: {report}; rigid nodes: {report_rigid}"
            )
        eta = eta_fit if e is e_fit else _ratio(geometry, e, pointing)
        eta_base = _ratio(geometry, np.zeros(geometry.n_nodes), pointing)
        bar.advance(f"constraints checked; η = {eta:.4f}, base sphere {eta_base:.4f}")
    return Solution(
        pointing=pointing,
        depth=depth,
        vertex=np.asarray(vertex(pointing.s, depth)),
        e_fit=e_fit,
        e=np.asarray(e),
        objective=objective if e is not e_fit else "fit",
        zone_radii=radii,
        zone_depths=zone_depths,
        eta=eta,
        eta_fit=eta_fit,
        eta_base=eta_base,
        report=report,
    )
