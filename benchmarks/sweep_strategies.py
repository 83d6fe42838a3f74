"""Ensemble strategies on one backend: vmap vs lax.map vs chunked, for HH with adaptive and fixed steps.

A vmapped adaptive solve advances all members in lock-step (one step-size loop for the batch),
so every member pays for the slowest one; lax.map runs members one after another, each with
its own step count. Prints wall times (best of 3 compiled calls) and per-member step counts.

    python benchmarks/sweep_strategies.py [members] [t_end_ms]
"""

import sys
import time

import diffrax
import jax
import numpy as np

import difflab
from difflab.ensembles._ensemble import make_batch, run_ensemble
from difflab.neuron import HodgkinHuxley

members = int(sys.argv[1]) if len(sys.argv) > 1 else 64
t_end = float(sys.argv[2]) if len(sys.argv) > 2 else 100.0
gna = np.linspace(60.0, 180.0, members)
batch = make_batch(HodgkinHuxley.squid_axon(), gNa=gna)
protocol = difflab.Step(10.0, 10.0, 110.0)
ts = np.linspace(0.0, t_end, int(t_end / 0.5) + 1)
configs = {
    "adaptive Tsit5 (rtol 1e-6)": dict(
        solver=diffrax.Tsit5(), stepsize_controller=diffrax.PIDController(rtol=1e-6, atol=1e-8)
    ),
    "fixed RushLarsenCN dt=0.02": {},
}
print(f"backend {jax.default_backend()}, devices {len(jax.devices())}, members {members}, {t_end} ms")
for label, options in configs.items():
    for strategy in ("vmap", "map", "chunked"):
        run = lambda s=strategy, o=options: run_ensemble(batch, protocol, ts, strategy=s, chunk_size=8, **o)  # noqa: E731
        jax.block_until_ready(run().ys)
        walls = []
        for _ in range(3):  # best of 3: the machine is shared
            t0 = time.perf_counter()
            traj = run()
            jax.block_until_ready(traj.ys)
            walls.append(time.perf_counter() - t0)
        wall = min(walls)
        steps = np.asarray(traj.stats["num_steps"])
        print(
            f"{label:28s} {strategy:8s} {wall:8.3f} s  steps/member min {steps.min()} max {steps.max()} "
            f"sum {steps.sum()}  member-steps/s {steps.sum() / wall:,.0f}"
        )
