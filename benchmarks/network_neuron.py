"""The network of `network_bench.py` in NEURON 9: spike times at tight CVODE tolerance and at NEURON's fixed step.

Run in an environment with ``neuron==9.0.2`` (the peer; never imported by difflab):

    python benchmarks/network_neuron.py --out /tmp/network_neuron.json [--t-end 1000]

The network (`network_bench.network`, `numpy.random.default_rng(0)`): 100 ``hh`` point cells (L = diam =
sqrt(100/π) µm, area 100 µm², celsius 6.3, ``usetable_hh = 0``), each an ``IClamp`` of its constant drive
(µA/cm² × 1e-3 nA) from t = 0; 1000 ``ExpSyn`` (τ 2 ms, one per connection) on the target cell's middle, each
driven by a ``NetCon`` from the source cell (threshold 0 mV, the connection's delay and weight).

Writes spike times per cell (ms) for: CVODE with atol = rtol = 1e-9 (the reference), CVODE at 1e-7 (how much the
reference itself moves), and NEURON's fixed step at 0.025 and 0.0125 ms (``secondorder = 0``, the default).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from network_bench import N_CELLS, network
from neuron import h

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "datasets" / "neuron"))
from generate_cells import _point_cells  # also loads stdrun.hoc and sets usetable_hh = 0


def build():
    """Sections, clamps, synapses, NetCons and spike recorders of the network; keep the tuple alive while running."""
    drive, pre, post, weight, delay, E = network()
    cells = _point_cells(N_CELLS)  # the point cells of the shipped NEURON network references
    clamps = []
    for i, sec in enumerate(cells):
        clamp = h.IClamp(sec(0.5))
        clamp.delay, clamp.dur, clamp.amp = 0.0, 1e9, float(drive[i]) * 1e-3  # µA/cm² over 100 µm², in nA
        clamps.append(clamp)
    synapses = []
    for k in range(len(pre)):
        syn = h.ExpSyn(cells[post[k]](0.5))
        syn.tau, syn.e = 2.0, float(E[k])
        nc = h.NetCon(cells[pre[k]](0.5)._ref_v, syn, sec=cells[pre[k]])
        nc.threshold, nc.delay, nc.weight[0] = 0.0, float(delay[k]), float(weight[k])
        synapses.append((syn, nc))
    recorders = []
    for sec in cells:
        nc = h.NetCon(sec(0.5)._ref_v, None, sec=sec)
        nc.threshold = 0.0
        vec = h.Vector()
        nc.record(vec)
        recorders.append((nc, vec))
    return cells, clamps, synapses, recorders


def run(recorders, t_end, tol=None, dt=None):
    """Run to ``t_end`` with CVODE at ``tol`` or the fixed step ``dt``; spike times per cell and wall time."""
    cvode = h.CVode()
    cvode.active(1 if tol is not None else 0)
    if tol is not None:
        cvode.atol(tol)
        cvode.rtol(tol)
    else:
        h.dt = dt
    h.celsius = 6.3
    h.tstop = t_end
    h.finitialize(-65.0)
    start = time.perf_counter()
    h.continuerun(t_end)
    wall = time.perf_counter() - start
    return [list(np.array(vec)) for _, vec in recorders], wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--t-end", type=float, default=1000.0)
    args = parser.parse_args()
    import neuron

    keep = build()
    recorders = keep[3]
    out = {"neuron": neuron.__version__, "t_end": args.t_end, "runs": {}}
    for name, kw in [("cvode_1e-9", dict(tol=1e-9)), ("cvode_1e-7", dict(tol=1e-7)),
                     ("fixed_0.025", dict(dt=0.025)), ("fixed_0.0125", dict(dt=0.0125))]:  # fmt: skip
        spikes, wall = run(recorders, args.t_end, **kw)
        out["runs"][name] = {"spikes": spikes, "wall_s": wall}
        print(name, sum(map(len, spikes)), "spikes", f"{wall:.1f} s", flush=True)
    with open(args.out, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
