"""The L5PC cell's spike times against NEURON at fixed steps, and the wall time per simulated second.

Runs BluePyOpt's Step1/2/3 protocols (a -0.126 nA hold over [0, 3000) ms and a step over [700, 2700) ms at
`soma[0](0.5)`) and the bAP (1.9 nA over [295, 300) ms) of `datasets/neuron/l5pc.nc` with difflab's `Cell` at
each given step, and prints per protocol and step: spike count, the largest |spike-time difference| (ms, upward
-20 mV crossings on the reference's sample grid, linearly interpolated, against NEURON's samples crossed the same
way), for the bAP the amplitude error at the two apical sites (mV), and the wall time (s per simulated s, after
compilation; the first call compiles).

    python benchmarks/l5pc_step.py [--dt 0.00625 0.003125 ...] [--protocols Step1 bAP] [--t-end 3000]

No --dt: the cell's default step.
"""

from __future__ import annotations

import argparse
import time

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import difflab  # noqa: E402
from difflab.neuron import IClamp, l5pc, spike_times  # noqa: E402

SOMA = "soma[0](0.5)"
STEPS = {"Step1": 0.458, "Step2": 0.562, "Step3": 0.95}


def clamp(protocol: str) -> IClamp:
    if protocol == "bAP":
        return IClamp({SOMA: difflab.Step(1.9, 295.0, 300.0)})
    return IClamp({SOMA: difflab.Sum(difflab.Step(-0.126, 0.0, 3000.0), difflab.Step(STEPS[protocol], 700.0, 2700.0))})


def crossings(ts, V) -> np.ndarray:
    s = np.asarray(spike_times(jnp.asarray(ts), jnp.asarray(V), threshold=-20.0, max_spikes=64))
    return s[np.isfinite(s)]


def run(cell, protocol: str, dt: float | None, t_end: float, ref) -> dict:
    bap = protocol == "bAP"
    ts = ref.time_bap.values if bap else ref.time_step.values
    keep = ts <= t_end
    ts = ts[keep]
    want = (ref.V_bap.values if bap else ref.V_step.sel(step_protocol=protocol).values)[keep]
    locations = [str(w) for w in ref.location.values] if bap else [SOMA]
    observe, info = cell.recorder(locations)
    step = cell.default_dt0() if dt is None else dt
    # inside jit the times are traced, so simulate cannot count the fixed steps itself
    options = {"dt0": step, "max_steps": int(np.ceil(ts[-1] / step)) + 16}

    @jax.jit
    def solve(cell, stimulus):
        traj = difflab.simulate(cell, stimulus, jnp.asarray(ts), observe=observe, observe_info=info, **options)
        return jnp.stack([traj.ys[w] for w in locations], axis=1)

    compiled = solve.lower(cell, clamp(protocol)).compile()  # compiled ahead, so the timing is the solve's alone
    start = time.perf_counter()
    got = np.asarray(compiled(cell, clamp(protocol)))
    wall = time.perf_counter() - start
    a, b = crossings(ts, got[:, 0]), crossings(ts, want[:, 0])
    n = min(a.size, b.size)
    out = {"spikes": (a.size, b.size), "err": float(np.max(np.abs(a[:n] - b[:n]))) if n else np.nan,
           "s_per_s": wall / (ts[-1] / 1000.0)}  # fmt: skip
    if bap:
        window, before = ts >= 295.0, np.flatnonzero(ts < 295.0)[-1]
        out["amp_err"] = [float(got[window, j].max() - want[window, j].max()) for j in (1, 2)]
        out["amp_ref"] = [float(want[window, j].max() - want[before, j]) for j in (1, 2)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dt", type=float, nargs="*", default=[None])
    parser.add_argument("--protocols", nargs="*", default=["Step1", "Step2", "Step3", "bAP"])
    parser.add_argument("--t-end", type=float, default=3000.0)
    args = parser.parse_args()
    ref = difflab.datasets.load("neuron/l5pc")
    cell = l5pc()
    print(f"default step {cell.default_dt0()} ms")
    for dt in args.dt:
        for protocol in args.protocols:
            t_end = min(args.t_end, 600.0) if protocol == "bAP" else args.t_end
            print(f"{protocol} dt={dt} t_end={t_end}: {run(cell, protocol, dt, t_end, ref)}", flush=True)


if __name__ == "__main__":
    main()
