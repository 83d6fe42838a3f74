"""Battery cases, class 19: ensembles (batch shapes, memory budgets) and trajectories (unknown variables)."""

from __future__ import annotations

from battery.framework import case, hh, relax, step, ts_hh


@case("ens.memory-budget-zero", "19", r"memory_budget must be a whole number of bytes >= 1; got 0")
def _(ctx):
    import difflab

    return difflab.run_ensemble(difflab.make_batch(relax(), k=[0.1, 0.2]), None, [0.0, 1.0], memory_budget=0)


@case("ens.make-batch-2d-values", "19", r"make_batch value of gNa must have shape \(1,\) \(per member\)")
def _(ctx):
    import difflab

    return difflab.make_batch(hh(), gNa=[[100.0, 120.0]])


@case("traj.unknown-variable", "19", r"'Q' is not a saved variable of this trajectory; saved: V, h, m, n")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), ts_hh())["Q"]
