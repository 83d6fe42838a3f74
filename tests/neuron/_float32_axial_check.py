"""Run in a subprocess with JAX's default compiler: a branched cell's somatic spikes in float32 and in float64.

Prints the two arrays of spike times (ms) as JSON. The suite's own processes compile with XLA's legacy CPU loop
emitters (tests/conftest.py), whose float32 rounding differs from the default fusion emitters that users run.
"""

import json

import jax
import jax.numpy as jnp
import numpy as np

import difflab
from difflab.neuron import Cell, IClamp, Morphology, Section, spike_times

jax.config.update("jax_enable_x64", True)
secs, parents = [Section.cylinder("soma", 20.0, 20.0)], ["soma"]
for L, diam in ((200.0, 2.0), (150.0, 1.5), (100.0, 1.0)):  # a binary tree of three levels, 113 compartments
    level = [f"dend[{len(secs) + k}]" for k in range(2 * len(parents))]
    secs += [Section.cylinder(name, L, diam, parent=parents[k // 2], nseg=8) for k, name in enumerate(level)]
    parents = level
cell = Cell(Morphology(secs), Cell.ball_and_stick().regions)
clamp = IClamp({"soma(0.5)": difflab.Step(0.5, 10.0, 90.0)})
ts = np.arange(0.0, 100.0, 0.025)
observe, info = cell.recorder(["soma(0.5)"])
spikes = {}
for dt in (jnp.float32, jnp.float64):
    V = difflab.simulate(cell.astype(dt), clamp, ts.astype(dt), observe=observe, observe_info=info)
    times = np.asarray(spike_times(ts, np.asarray(V.ys["soma(0.5)"], np.float64), max_spikes=10))
    spikes[np.dtype(dt).name] = times[np.isfinite(times)].tolist()
print(json.dumps(spikes))
