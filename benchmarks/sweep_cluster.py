"""A 100 000-point HH sweep on a Dask LocalCluster of 2 worker processes against the best local run.

    python benchmarks/sweep_cluster.py [n_points] [t_end_ms]

Runs (each into a fresh folder of chunk files, every process already compiled for the chunk shape):

- local: `difflab.sweep` in this process (one CPU device, XLA's own threads), median of 3;
- local, 2 devices: the same in a subprocess with 2 host CPU devices (the chunk sharded over both), median of 3;
- cluster: `difflab.sweep(client=...)` on `LocalCluster(n_workers=2, threads_per_worker=1)`, median of 3;
- cluster, one worker killed: the same, with one worker process killed (SIGKILL) at a random moment between
  20 % and 60 % of the uninterrupted cluster time; the result must equal the uninterrupted one bit for bit.

Prints a Markdown table of median wall times (compilation excluded: every process compiles beforehand on a
two-chunk warm-up study of the same chunk shape).
"""

import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import xarray as xr

import difflab
from difflab.neuron import HodgkinHuxley, spike_count

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
T_END = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0  # ms; short, so that the whole benchmark stays modest
CHUNK = 12_500
REPEATS = 3
DESIGN = difflab.Grid(gNa=np.linspace(60.0, 180.0, N // 250), gK=np.linspace(18.0, 54.0, 250))
MODEL = HodgkinHuxley.squid_axon()
PROTOCOL = difflab.Step(10.0, 1.0, T_END)
TS = np.linspace(0.0, T_END, int(T_END / 0.5) + 1)
OBS = {
    "spikes": (lambda traj: spike_count(traj.ts, traj.ys["V"], 0.0), "1"),
    "peak": (lambda traj: traj.ys["V"].max(), "mV"),
}
WARM = difflab.Grid(gNa=np.linspace(60.0, 180.0, 2 * CHUNK // 250), gK=np.linspace(18.0, 54.0, 250))


def run(folder, **kwargs):
    t0 = time.perf_counter()
    ds = difflab.sweep(MODEL, PROTOCOL, TS, DESIGN, OBS, chunk_size=CHUNK, directory=folder, **kwargs).load()
    return time.perf_counter() - t0, ds


def local_median(root, repeats=REPEATS):
    difflab.sweep(MODEL, PROTOCOL, TS, WARM, OBS, chunk_size=CHUNK)  # compile for the chunk shape
    times = []
    for r in range(repeats):
        wall, ds = run(root / f"local{r}")
        times.append(wall)
    print("local runs:", ", ".join(f"{t:.2f}" for t in times), flush=True)
    return float(np.median(times)), ds


def main():
    root = Path(tempfile.mkdtemp(prefix="sweep_cluster_"))
    if "--local-only" in sys.argv:  # the 2-device local variant, in its own process
        print(f"LOCAL2 {local_median(root)[0]:.3f}")
        return
    import dask
    import distributed
    import jax

    print(f"{len(DESIGN)} points, {T_END} ms each, chunks of {CHUNK}; difflab {difflab.__version__}, "
          f"jax {jax.__version__}, dask {dask.__version__}, distributed {distributed.__version__}, "
          f"{os.cpu_count()} CPUs", flush=True)  # fmt: skip
    local, reference = local_median(root)
    print(f"local (1 device): {local:.2f} s", flush=True)
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    out = subprocess.run([sys.executable, __file__, str(N), str(T_END), "--local-only"], env=env, capture_output=True,
                         text=True)  # fmt: skip
    local2 = float(out.stdout.split("LOCAL2")[1]) if "LOCAL2" in out.stdout else float("nan")
    print(f"local (2 devices): {local2:.2f} s", flush=True)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster,
        distributed.Client(cluster) as client,
    ):
        difflab.sweep(MODEL, PROTOCOL, TS, WARM, OBS, chunk_size=CHUNK, directory=root / "warm", client=client)
        times = []
        for r in range(REPEATS):
            wall, ds = run(root / f"cluster{r}", client=client)
            xr.testing.assert_identical(ds, reference)
            times.append(wall)
        cluster_wall = float(np.median(times))
        print("cluster runs (each equal to the local result bit for bit):", ", ".join(f"{t:.2f}" for t in times))
        pids = list(client.run(os.getpid).values())
        victim, delay = random.choice(pids), random.uniform(0.2, 0.6) * cluster_wall
        timer = threading.Timer(delay, os.kill, (victim, signal.SIGKILL))  # a worker of the cluster started here
        timer.start()
        killed_wall, ds = run(root / "killed", client=client)
        timer.join()
        assert victim not in client.run(os.getpid).values()
        xr.testing.assert_identical(ds, reference)
        print(f"cluster, worker {victim} killed at {delay:.1f} s: {killed_wall:.2f} s (result equal)", flush=True)
    best = np.nanmin([local, local2])
    print()
    print("| run | wall (s) | vs best local |")
    print("|---|---|---|")
    rows = [("local, 1 device", local), ("local, 2 host devices", local2), ("cluster, 2 workers", cluster_wall),
            (f"cluster, a worker killed at {delay:.1f} s", killed_wall)]  # fmt: skip
    for name, wall in rows:
        print(f"| {name} | {wall:.2f} | {wall / best:.2f}× |")


if __name__ == "__main__":
    main()
