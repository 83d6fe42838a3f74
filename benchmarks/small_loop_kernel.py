"""Loops over a small state as one CPU kernel: difflab's XLA option against XLA's default, case by case.

`import difflab` adds `xla_cpu_small_while_loop_byte_threshold=8388608` to XLA's backend options
(`difflab.core._xla_cpu`): a loop whose iteration reads and writes less than 8 MiB, and holds no dot or scatter,
runs as one kernel. XLA's own threshold is 1 kB. Each case runs in a process of its own, once with difflab's
default and once with `XLA_FLAGS=--xla_backend_extra_options=xla_cpu_small_while_loop_byte_threshold=1024` (XLA's
default given explicitly, which difflab leaves as it is), the two alternated over `--rounds` rounds. Reported: the
first call (compilation and one run) and the median of `--repeats` later calls, and the largest difference of the
results between the two settings.

Cases (float64, jitted):
- chains: the squid axon's 300 ms held-OU recording (datasets/hh/hh_ou_hold.nc), value and forward-mode gradient
  with respect to gNa, gK, gL for 4 parameter sets at 0.00625 ms (the posterior's solve);
- gradient: one cell, the same recording, reverse-mode gradient of the trace MSE at the default step (a fit's);
- cell: the squid axon, a 10 µA/cm² step, 120 ms at the default step, 4801 saves;
- ensemble: 1000 squid axons (gNa spread 100-140), the same step, `run_ensemble`;
- ball_and_stick: `Cell.ball_and_stick()`, a 0.25 nA step at the soma, 60 ms, 2401 saves;
- jaynes_cummings: `mesolve` of docs/quantum.md (10 levels, 501 saves).

    python benchmarks/small_loop_kernel.py [--cases chains cell ...] [--rounds 2] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

XLA_DEFAULT = "--xla_backend_extra_options=xla_cpu_small_while_loop_byte_threshold=1024"
CASES = ("chains", "gradient", "cell", "ensemble", "ball_and_stick", "jaynes_cummings")


def build(case: str):
    """(function, argument) of one case; imported here so that the child sets nothing before difflab."""
    import jax
    import jax.numpy as jnp

    import difflab
    import difflab.quantum as q
    from difflab.core.internal import set_paths
    from difflab.neuron import Cell, HodgkinHuxley, IClamp

    squid = HodgkinHuxley.squid_axon()
    if case in ("chains", "gradient"):
        ref = difflab.datasets.load("hh/hh_ou_hold").sel(time=slice(0.0, 300.0))
        ts, measured = ref.time.values, jnp.asarray(ref.V.values)
        protocol = difflab.Sampled(ts, ref.I_stim.values)
        dt = 0.00625 if case == "chains" else None

        def loss(g):
            model = set_paths(squid, {"channels.na.gbar": g[0], "channels.k.gbar": g[1], "channels.leak.g": g[2]})
            return jnp.mean((difflab.simulate(model, protocol, ts, dt0=dt)["V"] - measured) ** 2)

        start = jnp.array([120.0, 36.0, 0.3])
        if case == "gradient":
            return jax.jit(jax.value_and_grad(loss)), start

        def value_and_tangents(g):
            values, slopes = jax.vmap(lambda t: jax.jvp(loss, (g,), (t,)))(jnp.eye(3))
            return values[0], slopes

        return jax.jit(jax.vmap(value_and_tangents)), start * (1.0 + 0.01 * jnp.arange(4.0))[:, None]
    step = difflab.Step(10.0, 10.0, 110.0)
    ts = jnp.arange(0.0, 120.0, 0.025)
    if case == "cell":
        return jax.jit(lambda g: difflab.simulate(set_paths(squid, {"channels.na.gbar": g}), step, ts)["V"]), 120.0
    if case == "ensemble":
        batch = difflab.make_batch(squid, gNa=jnp.linspace(100.0, 140.0, 1000))
        return jax.jit(lambda b: difflab.run_ensemble(b, step, ts)["V"]), batch
    if case == "ball_and_stick":
        cell = Cell.ball_and_stick()
        stim = IClamp({"soma(0.5)": difflab.Step(0.25, 5.0, 45.0)})
        observe, info = cell.recorder(["soma(0.5)", "dend(0.5)"])
        cts = jnp.linspace(0.0, 60.0, 2401)
        return jax.jit(lambda c: difflab.simulate(c, stim, cts, observe=observe, observe_info=info)["dend(0.5)"]), cell
    if case == "jaynes_cummings":
        n = 10
        a = q.tensor(q.eye(2), q.destroy(n))
        sm = q.tensor(q.sigmam(), q.eye(n))
        psi0 = q.tensor(q.basis(2, 0), q.coherent(n, 2.0, max_lost_weight=1e-2))
        saves = np.linspace(0, 50, 501)

        def expect(g):
            h = g * (a.conj().T @ sm + a @ sm.conj().T)
            out = q.mesolve(h, psi0, saves, jump_ops=[np.sqrt(0.02) * a], exp_ops=[a.conj().T @ a])
            return out.expects.real

        return jax.jit(expect), jnp.asarray(1.0)
    raise ValueError(f"case must be one of {CASES}; got {case!r}")


def child(case: str, repeats: int) -> None:
    import jax

    fn, arg = build(case)
    t0 = time.perf_counter()
    out = jax.block_until_ready(fn(arg))
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = jax.block_until_ready(fn(arg))
        times.append(time.perf_counter() - t0)
    leaves = [np.asarray(x, dtype=np.float64).ravel() for x in jax.tree.leaves(out)]
    np.save(os.environ["SMALL_LOOP_OUT"], np.concatenate(leaves))
    print(json.dumps({"first": first, "median": float(np.median(times))}))


def run(case: str, setting: str, repeats: int, out: str) -> dict:
    env = {**os.environ, "SMALL_LOOP_OUT": out, "JAX_PLATFORMS": "cpu"}
    env.pop("XLA_FLAGS", None)
    if setting == "xla":
        env["XLA_FLAGS"] = XLA_DEFAULT
    proc = subprocess.run([sys.executable, __file__, "--child", case, "--repeats", str(repeats)], env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.repeats)
        return
    import jax

    print(f"jax {jax.__version__}; {os.cpu_count()} CPUs; medians of {args.repeats} calls, {args.rounds} rounds")
    print("| case | first call, XLA default / difflab (s) | call, XLA default (s) | call, difflab (s) | speed-up | "
          "largest difference |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for case in args.cases:
        rows = {"xla": [], "difflab": []}
        for _ in range(args.rounds):
            for setting in ("xla", "difflab"):
                rows[setting].append(run(case, setting, args.repeats, f"/tmp/small_loop_{setting}.npy"))
        diff = float(np.max(np.abs(np.load("/tmp/small_loop_xla.npy") - np.load("/tmp/small_loop_difflab.npy"))))
        xla = min(r["median"] for r in rows["xla"])
        ours = min(r["median"] for r in rows["difflab"])
        firsts = f"{min(r['first'] for r in rows['xla']):.2f} / {min(r['first'] for r in rows['difflab']):.2f}"
        print(f"| {case} | {firsts} | {xla:.4f} | {ours:.4f} | {xla / ours:.2f}× | {diff:.2g} |", flush=True)


if __name__ == "__main__":
    main()
