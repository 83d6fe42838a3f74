"""41 × 41 (gNa, gK) grid sweep of the HH firing rate at a 10 µA/cm² step; its heat map (`difflab.plot.sweep`) for
the docs.

    python benchmarks/sweep_hh_grid.py [out_dir]

Writes the chunk files to ``out_dir`` (default: a temporary folder), docs/img/sweep_hh_rate.png,
and prints wall time and throughput (simulations/s, and cell-steps/s at the model's default step).
"""

import sys
import tempfile
import time
from pathlib import Path

import jax
import matplotlib

matplotlib.use("Agg")
import numpy as np

import difflab
from difflab import plot
from difflab.neuron import HodgkinHuxley, firing_rate

T_END, DT_SAVE = 110.0, 0.1
design = difflab.Grid(gNa=np.linspace(60.0, 180.0, 41), gK=np.linspace(18.0, 54.0, 41))
observables = {"rate": (lambda traj: firing_rate(traj.ts, traj.ys["V"], (10.0, 110.0)), "Hz")}
ts = np.linspace(0.0, T_END, round(T_END / DT_SAVE) + 1)
model = HodgkinHuxley.squid_axon()
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "sweep_hh"

# Compile once on a chunk of the same shape (421 points), then time the whole grid.
t0 = time.perf_counter()
difflab.sweep(model, difflab.Step(10.0, 10.0, 110.0), ts, difflab.RandomDesign(421, {"gNa": (60, 180)}), observables,
              chunk_size=421)  # fmt: skip
print(f"first chunk of 421 including compilation: {time.perf_counter() - t0:.1f} s")
t0 = time.perf_counter()
ds = difflab.sweep(model, difflab.Step(10.0, 10.0, 110.0), ts, design, observables, chunk_size=421, directory=out)
rate = ds["rate"].load()
wall = time.perf_counter() - t0
steps = T_END / model.default_dt0()
print(f"backend {jax.default_backend()}, {len(design)} simulations of {T_END} ms in {wall:.1f} s "
      f"(chunks of 421, compiled, each written to netCDF): {len(design) / wall:.1f} sims/s, "
      f"{len(design) * steps / wall:,.0f} cell-steps/s")  # fmt: skip
print(
    f"rate at the squid-axon values (120, 36): {float(rate.sel(gNa=120.0, gK=36.0)):.1f} Hz (NEURON: 7 spikes -> 70 Hz)"
)

ax = plot.sweep(ds, x="gK", y="gNa", variable="rate")
ax.plot([36.0], [120.0], "w+", markersize=12, label="squid axon (Hodgkin & Huxley)")
ax.set_title("HH, 10 µA/cm² step: 41 × 41 grid")
ax.legend(loc="lower right", fontsize=8)
path = Path(__file__).resolve().parents[1] / "docs" / "img" / "sweep_hh_rate.png"
ax.figure.savefig(path, dpi=120, bbox_inches="tight")
print(f"wrote {path}")
