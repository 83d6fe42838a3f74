"""Fit dendritic sodium and potassium densities of a branched cell from a somatic recording.

The recording is synthetic with a known truth: the cell (ball-and-stick, the 113-compartment branched cell of
`cells_bench.py`, or the 1289-section DA1 projection neuron read from SWC) is simulated at its default step under a
somatic current clamp, the somatic potential is saved every `--dt-data` ms and 1 mV of Gaussian noise is added (seed
0). `difflab.calibrate` then fits `dend.gbar_na` and `dend.gbar_k` from starts off the truth (bounded transforms,
Levenberg–Marquardt, `strategy="multistart"`), observing only the somatic potential (`Cell.recorder`). Reported: the
estimates, their standard errors, relative errors against the truth, and the wall time (compilation included).

    python benchmarks/cells_fit.py ball_and_stick
    python benchmarks/cells_fit.py tree --t-end 100
    python benchmarks/cells_fit.py da1_lpn
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import xarray as xr

import difflab
from difflab.neuron import Cell, IClamp, LeakChannel, PotassiumChannel, Region, SodiumChannel, read_swc


def da1_lpn() -> Cell:
    """The hemibrain DA1 lPN skeleton shipped in datasets/neuron, hh everywhere (as the validation case)."""
    morph = read_swc(difflab.datasets.path("neuron/da1_lpn_722817260.swc"))
    hh = {"na": SodiumChannel(120.0, 50.0), "k": PotassiumChannel(36.0, -77.0), "leak": LeakChannel(0.3, -54.3)}
    return Cell(morph, {"dend": Region(hh, Ra=100.0)})


def tree() -> Cell:
    """The 113-compartment branched cell of `cells_bench.py` (soma and a three-level binary tree, hh everywhere)."""
    from cells_bench import difflab_cell

    return difflab_cell(np.float64)


CELLS = {"ball_and_stick": Cell.ball_and_stick, "da1_lpn": da1_lpn, "tree": tree}

SETUPS = {
    # cell: (soma location, clamp amplitude nA, truth of the dendritic densities in mS/cm², bounds)
    "ball_and_stick": ("soma(0.5)", 0.3, {"dend.gbar_na": 30.0, "dend.gbar_k": 10.0}),
    "da1_lpn": ("dend[0](0.5)", 0.3, {"dend.gbar_na": 120.0, "dend.gbar_k": 36.0}),
    "tree": ("soma(0.5)", 0.5, {"dend.gbar_na": 30.0, "dend.gbar_k": 10.0}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cell", choices=sorted(SETUPS))
    parser.add_argument("--t-end", type=float, default=50.0, help="recording length (ms)")
    parser.add_argument("--dt-data", type=float, default=0.1, help="sample spacing of the recording (ms)")
    parser.add_argument("--steps", type=int, default=20, help="Levenberg–Marquardt steps")
    args = parser.parse_args()
    soma, amplitude, truth = SETUPS[args.cell]
    cell = CELLS[args.cell]()
    cell = cell.replace(**truth)
    clamp = IClamp({soma: difflab.Step(amplitude, 5.0, args.t_end - 5.0)})
    ts = np.arange(0.0, args.t_end + 1e-9, args.dt_data)
    observe, info = cell.recorder([soma])
    clean = np.asarray(difflab.simulate(cell, clamp, ts, observe=observe, observe_info=info)[soma])
    noisy = clean + np.random.default_rng(0).normal(0.0, 1.0, clean.shape)
    data = xr.Dataset({soma: ("time", noisy, {"units": "mV"})}, coords={"time": ("time", ts, {"units": "ms"})})
    bounds = {name: (0.25 * v, 2.5 * v) for name, v in truth.items()}
    starts = {name: [0.6 * v, 1.5 * v] for name, v in truth.items()}
    t = time.perf_counter()
    run = difflab.RunOptions(strategy="multistart", progress=False)
    fit = difflab.calibrate(cell.replace(**{k: 0.6 * v for k, v in truth.items()}), clamp, data, params=bounds,
                            compare=difflab.Comparison(observe=observe, variables=[soma]), starts=starts,
                            steps=args.steps, run=run)  # fmt: skip
    wall = time.perf_counter() - t
    spikes = int(np.sum((clean[1:] >= 0) & (clean[:-1] < 0)))
    print(f"{args.cell}: {cell.morphology.n_segments} compartments, {spikes} somatic spikes in {args.t_end:g} ms, "
          f"{ts.size} samples, 1 mV noise; loss {float(fit.losses.min()):.4f} mV²; wall {wall:.1f} s")  # fmt: skip
    for name, value in truth.items():
        estimate, se = float(fit.best[name]), float(fit.stderr[name])
        print(f"  {name}: {estimate:.4f} ± {se:.4f} (truth {value:g}, error {100 * (estimate / value - 1):+.3f} %)")


if __name__ == "__main__":
    main()
