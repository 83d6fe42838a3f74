"""DGSM of the squid axon's firing rate (4 parameters): cost of forward-mode derivatives against the plain sweep.

    python benchmarks/sensitivity_dgsm_hh.py [n ...]      # default n = 64 256

The squid axon (difflab's HH, NEURON `hh` conventions) at a 10 µA/cm² step on [10, 110) ms; the rate is
3000 / (t4 - t1) Hz from the first four interpolated spike times (differentiable, unlike a spike count); the
design is a scrambled Sobol' sample of n points over gNa in [114, 126], gK in [34.2, 37.8], gL in [0.285, 0.315]
mS/cm² (±5 %) and celsius in [6.3, 8.3] °C. For each n: `sweep` of the design (values only), then `sweep(...,
derivatives=True)` (values and the 4 partials, one forward-mode pass carrying 4 tangents), each timed six
times (the first with compilation; the median of the other five is compared). The partials are checked against
central differences (step 1e-4 of each interval) of the plain sweep at 4 points.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import difflab
from difflab.neuron import HodgkinHuxley, spike_times
from difflab.sensitivity import dgsm_analyze

BOUNDS = {"gNa": (114.0, 126.0), "gK": (34.2, 37.8), "gL": (0.285, 0.315), "celsius": (6.3, 8.3)}
TS = np.arange(0.0, 110.0 + 1e-9, 0.1)
STEP = difflab.Step(10.0, 10.0, 110.0)


def rate(traj):
    t = spike_times(traj.ts, traj["V"], 0.0, max_spikes=4)
    return 3000.0 / (t[3] - t[0])


def timed(design, derivatives, repeats=6):
    """The sweep's wall times: the first call (with compilation), then `repeats - 1` more."""
    walls = []
    for _ in range(repeats):
        start = time.perf_counter()
        ds = difflab.sweep(HodgkinHuxley.squid_axon(), STEP, TS, design, {"rate": (rate, "Hz")},
                           chunk_size=len(design), progress=False, derivatives=derivatives)  # fmt: skip
        ds = ds.load()
        walls.append(time.perf_counter() - start)
    return ds, walls


def check_partials(ds, h=1e-4):
    """Largest relative difference between the forward-mode partials and central differences (4 points)."""
    worst = 0.0
    for i in range(4):
        point = {p: float(ds[p].values[i]) for p in BOUNDS}
        for p in BOUNDS:
            step = h * (BOUNDS[p][1] - BOUNDS[p][0])
            grid = difflab.Grid(**{q: [v - step, v + step] if q == p else [v] for q, v in point.items()})
            out = difflab.sweep(HodgkinHuxley.squid_axon(), STEP, TS, grid, {"rate": rate}, progress=False)
            values = out["rate"].values.ravel()
            fd = (values[1] - values[0]) / (2 * step)
            ad = float(ds["d_rate"].sel(parameter=p).values[i])
            worst = max(worst, abs(ad - fd) / max(abs(fd), 1e-12))
    return worst


def main(sizes):
    print("| n | plain sweep (s: 1st, median of later) | with derivatives (s: 1st, median of later) | ratio |")
    print("|---|---|---|---|")
    for n in sizes:
        design = difflab.Sobol(n, BOUNDS, seed=0)
        _, plain = timed(design, False)
        ds, deriv = timed(design, True)
        p, d = np.median(plain[1:]), np.median(deriv[1:])
        print(f"| {n} | {plain[0]:.1f}, {p:.4f} | {deriv[0]:.1f}, {d:.4f} | {d / p:.2f} |")
    measures = dgsm_analyze(ds, BOUNDS)
    print("nu ((Hz / unit)^2):", dict(zip(BOUNDS, np.round(measures["nu"].sel(output="rate").values, 4))))
    print("bound on S_T:", dict(zip(BOUNDS, np.round(measures["total_bound"].sel(output="rate").values, 4))))
    print(f"rate {float(ds['rate'].min()):.2f}-{float(ds['rate'].max()):.2f} Hz")
    # the same fixed-step solution on both sides: forward mode differentiates the discrete map exactly
    print(f"forward-mode vs central differences (4 points): max relative difference {check_partials(ds):.1e}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [64, 256])
