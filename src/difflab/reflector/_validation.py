"""Validation runners for the FAST reflector (kinds `reflector.aperture` and `reflector.answer`).

`reflector.aperture` (dataset `fast/nodes.csv`; fields `alpha`, `beta`, `expected_nodes`,
`base_ratio_range = [lo, hi]`): the aperture node count against the published count, the number of unique edges
against the statement's 6525, and the base sphere's receiving ratio against the published spherical-panel range.

`reflector.answer` (dataset: a shipped solution such as `fast/solution_q2`; fields `expected_nodes`,
`anchor_ratio`, `target_ratio`): the answer's extensions must pass the strict constraint checker (under both
node models; `strain_excess` is how far the largest |Δl/l| exceeds 7e-4, zero when feasible), its stored
receiving ratio must be reproduced, and it must beat the best published feasible surface (η = 36.1 % for Q2)
and reach the target.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..plot import new_figure
from ..validation import CaseOutcome, CaseSpec, Runner, metric, register_runner
from ._answers import extensions_from_dataset
from ._constants import MAX_EXTENSION, MAX_STRAIN
from ._constraints import check_constraints, edge_strain
from ._geometry import Geometry
from ._pointing import Pointing
from ._raytrace import receiving_ratio
from ._solve import CONVERGED_SAMPLES


def run_aperture(case: CaseSpec) -> CaseOutcome:

    g = Geometry.fast()
    p = Pointing.from_angles(g, case.get("alpha", float), case.get("beta", float))
    count = int(np.sum(np.asarray(p.nodes_inside)))
    expected = case.get("expected_nodes", int)
    lo, hi = case.get("base_ratio_range", list)
    eta = float(receiving_ratio(g, np.zeros(g.n_nodes), p, n=32))
    outside = max(lo - eta, eta - hi, 0.0)
    metrics = [
        metric(case, "aperture_count_error", abs(count - expected), units="nodes",
               detail=f"difflab {count}, published {expected}"),
        metric(case, "edge_count_error", abs(int(g.edges.shape[0]) - 6525), units="edges",
               detail=f"{int(g.edges.shape[0])} unique panel edges, statement: 6525 main cables"),
        metric(case, "base_ratio_outside_published", outside, units="1",
               detail=f"η = {100 * eta:.3f} %, published range {100 * lo:.2f}–{100 * hi:.2f} %"),
    ]  # fmt: skip
    return CaseOutcome(metrics, [], {"receiving_ratio_samples_per_edge": "32"})


def run_answer(case: CaseSpec) -> CaseOutcome:

    ds = case.load_dataset()
    g = Geometry.fast()
    p = Pointing.from_angles(g, float(ds.attrs["alpha_deg"]), float(ds.attrs["beta_deg"]))
    e = extensions_from_dataset(g, ds)
    report = check_constraints(g, e)
    rigid = check_constraints(g, e, "rigid")
    eta = float(receiving_ratio(g, e, p, n=CONVERGED_SAMPLES))
    stored = float(ds.attrs["receiving_ratio"])
    anchor, target = case.get("anchor_ratio", float), case.get("target_ratio", float)
    count = int(np.sum(np.asarray(p.nodes_inside)))
    worst = max(report.max_abs_strain, rigid.max_abs_strain)
    metrics = [
        metric(case, "strain_excess", max(worst - MAX_STRAIN, 0.0), units="1",
               detail=f"cable nodes: {report}; rigid nodes: {rigid}"),
        metric(case, "extension_excess", max(report.max_abs_extension - MAX_EXTENSION, 0.0), units="m",
               detail=f"max |e| = {report.max_abs_extension:.4f} m"),
        metric(case, "ratio_recompute_error", abs(eta - stored), units="1",
               detail=f"recomputed {100 * eta:.3f} %, stored {100 * stored:.3f} %"),
        metric(case, "ratio_below_anchor", max(anchor - eta, 0.0), units="1",
               detail=f"η = {100 * eta:.2f} % vs best published feasible {100 * anchor:.1f} %"),
        metric(case, "ratio_below_target", max(target - eta, 0.0), units="1",
               detail=f"η = {100 * eta:.2f} % vs target {100 * target:.1f} %"),
        metric(case, "aperture_count_error", abs(count - case.get("expected_nodes", int)), units="nodes"),
    ]  # fmt: skip
    strain = np.asarray(edge_strain(g, e))
    return CaseOutcome(metrics, [("Edge length changes of the answer; red lines: the ±0.07 % limit.",
                                  functools.partial(_strain_figure, strain))], {"kinematics": "cable"})  # fmt: skip


def _strain_figure(strain: np.ndarray) -> Any:
    fig = new_figure((6, 3.2))
    ax = fig.add_subplot()
    ax.hist(100 * strain, bins=120, color="0.4")
    for x in (-0.07, 0.07):
        ax.axvline(x, color="tab:red")
    ax.set_xlabel("edge length change Δl/l (%)")
    ax.set_ylabel("edges")
    return fig


APERTURE = Runner(
    run=run_aperture,
    metrics=("aperture_count_error", "edge_count_error", "base_ratio_outside_published"),
    required={"alpha": float, "beta": float, "expected_nodes": int, "base_ratio_range": list},
)
ANSWER = Runner(
    run=run_answer,
    metrics=(
        "strain_excess",
        "extension_excess",
        "ratio_recompute_error",
        "ratio_below_anchor",
        "ratio_below_target",
        "aperture_count_error",
    ),
    required={"expected_nodes": int, "anchor_ratio": float, "target_ratio": float},
)
register_runner("reflector.aperture", APERTURE)
register_runner("reflector.answer", ANSWER)
