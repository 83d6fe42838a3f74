"""How XLA's CPU runtime will run the network's step: its kernels, and how many can be ready at once.

XLA on the CPU runs the body of `simulate`'s loop as a graph of kernels ("thunks"), each started when its inputs
are written. Whenever more than 8 kernels wait in its ready queue behind the one it runs
(`ExecuteSession::kSplitThreshold` in XLA's `backends/cpu/runtime/thunk.h`), the runtime hands half of them to
another thread of its pool, and it does so again in every step. For the network's small kernels (100–4000
numbers) that hand-off costs more than the work: a compiled step whose queue exceeds 8 takes 35–45 µs on the
2-core machine of the benchmarks, one whose queue stays at 8 or fewer 25–27 µs (README, "What decides the
network's speed").

This script compiles networks in a child process with XLA's thunk-executor log on, reads the loop body's graph
from the log (the largest graph), and replays XLA's ready queue on one thread (first in, first out, as the
runtime's default queue): it prints the kernels, the source kernels (ready at the start, mostly copies of the
carried arrays), the copies, and the largest number of kernels waiting behind the one being run (more than 8:
a hand-off every step). The replay is the runtime's order when no other thread takes work, so it is the
criterion, not a timing.

    python benchmarks/network_xla_graph.py            # the benchmark network and four variants
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import subprocess
import sys

import numpy as np

SPLIT_THRESHOLD = 8  # XLA's ExecuteSession::kSplitThreshold (backends/cpu/runtime/thunk.h)
MARK = "#network-case "


def cases():
    """Name -> case: the benchmark network and random variants (kinds, precision, inputs, traced weights)."""
    import jax.numpy as jnp
    from network_bench import N_CELLS, network

    import difflab
    from difflab.neuron import AlphaSynapses, Exp2Synapses, ExpSynapses, HodgkinHuxley, Network

    t_end = 10.0
    drive, pre, post, weight, delay, E = network()
    bench = Network(HodgkinHuxley.squid_axon(), ExpSynapses(pre, post, weight, delay, tau=2.0, E=E), N_CELLS)
    step = difflab.Step(jnp.asarray(drive), 0.0, 2 * t_end)

    def random(seed, populations, dtype=jnp.float64, recorded=False, jitter=0.0):
        rng = np.random.default_rng(seed)
        pairs = rng.choice(N_CELLS * N_CELLS, 1000, replace=False)
        pre, post = pairs // N_CELLS, pairs % N_CELLS
        keep = pre != post
        pre, post = pre[keep], post[keep]
        n = pre.size
        w, d = rng.uniform(2e-4, 1e-3, n), rng.uniform(0.5, 4, n)
        cut = [n * k // populations for k in range(populations + 1)]
        parts = [slice(lo, hi) for lo, hi in itertools.pairwise(cut)]
        kinds = [
            lambda p: ExpSynapses(pre[p], post[p], w[p], d[p], tau=2.0),
            lambda p: Exp2Synapses(pre[p], post[p], w[p], d[p], tau1=0.5, tau2=3.0, E=-80.0),
            lambda p: AlphaSynapses(pre[p], post[p], w[p], d[p], tau=1.5, E=-70.0),
        ]
        if populations == 1:
            E = np.where(np.arange(n) % 5 == 0, -80.0, 0.0)
            syn = (ExpSynapses(pre, post, w, d, tau=2.0, E=E),)
        else:
            syn = tuple(kind(p) for kind, p in zip(kinds, parts))
        level = rng.uniform(6.5, 12.0, N_CELLS)
        if recorded:  # a noisy recorded current per cell, sampled every 0.1 ms
            times = np.arange(0.0, 2 * t_end, 0.1)
            if jitter:  # off a uniform grid (drawn only then: the on-grid case keeps its input)
                times[1:-1] += rng.uniform(-jitter, jitter, times.size - 2)
            values = level + rng.normal(0.0, 2.0, (times.size, N_CELLS))
            drive = difflab.Sampled(jnp.asarray(times, dtype), jnp.asarray(values, dtype))
        else:
            drive = difflab.Step(jnp.asarray(level, dtype), 0.0, 2 * t_end)
        return dict(net=Network(HodgkinHuxley.squid_axon(dtype), syn, N_CELLS), protocol=drive)

    return t_end, {
        "benchmark network": dict(net=bench, protocol=step),
        "benchmark network, weights traced (as in a fit)": dict(net=bench, protocol=step, traced=True),
        "benchmark network, every state saved": dict(net=bench, protocol=step, observe_all=True),
        "random, 1 population (seed 3)": random(3, 1),
        "random, Exp + Exp2 (seed 3)": random(3, 2),
        "random, Exp + Exp2 (seed 4)": random(4, 2),
        "random, Exp + Exp2, weights traced (seed 3)": dict(random(3, 2), traced=True),
        "random, Exp + Exp2 + Alpha (seed 3)": random(3, 3),
        "random, Exp + Exp2, recorded noisy input (seed 3)": random(3, 2, recorded=True),
        "random, Exp + Exp2, recorded input off a grid (seed 3)": random(3, 2, recorded=True, jitter=0.02),
        "random, Exp + Exp2, float32 (seed 3)": random(3, 2, dtype=jnp.float32),
    }


def compile_all():
    """Child process: compile and run each case once, marking each in the log."""
    import jax
    import jax.numpy as jnp

    import difflab

    jax.config.update("jax_enable_x64", True)
    t_end, all_cases = cases()
    ts = np.arange(round(t_end / 0.025) + 1) * 0.025
    for name, case in all_cases.items():
        print(MARK + name, file=sys.stderr, flush=True)
        net = case["net"]
        observe = None if case.get("observe_all") else (lambda t, y, a: {"V": y["V"]})
        traced = case.get("traced", False)

        def run(scale, net=net, protocol=case["protocol"], traced=traced, observe=observe):
            # traced: the weights scaled by a jit argument, as in a fit; else the network's constants
            model = net.replace(**{"synapses.0.weight": net.synapses[0].weight * scale}) if traced else net
            return difflab.simulate(model, protocol, ts.astype(net.area.dtype), dt0=0.025, observe=observe).ys

        jax.block_until_ready(jax.jit(run)(jnp.asarray(1.0, net.area.dtype)))


def parse_graph(log: str):
    """The largest kernel graph in a thunk-executor log: a list of (name, kind, dependencies)."""
    blocks = re.split(r"ThunkExecutor: #thunks=", log)[1:]
    if not blocks:
        raise SystemExit("no kernel graph in XLA's log: this jaxlib does not log its thunk executor at VLOG 6")
    block = max(blocks, key=lambda b: int(b.split()[0]))
    nodes = []
    for line in block.splitlines()[1:]:
        m = re.search(r"thunk #\d+: op_name=([^,]+), kind=(\w+), dependencies=\[([^\]]*)\]", line)
        if m is None:
            break
        nodes.append((m.group(1), m.group(2), [d.strip() for d in m.group(3).split(",") if d.strip()]))
    return nodes


def replay(nodes):
    """XLA's first-in first-out ready queue on one thread: the most kernels waiting behind the one being run."""
    index = {name: i for i, (name, _, _) in enumerate(nodes)}
    waiting = [len(deps) for _, _, deps in nodes]
    users: list[list[int]] = [[] for _ in nodes]
    for i, (_, _, deps) in enumerate(nodes):
        for d in deps:
            users[index[d]].append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    sources, widest = len(ready), 0
    while ready:
        i = ready.pop(0)
        widest = max(widest, len(ready))
        for j in users[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                ready.append(j)
    return sources, widest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        compile_all()
        return
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0", TF_CPP_VMODULE="thunk_executor=6")
    run = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(run.stderr[-3000:])
    import jax

    print(f"jax {jax.__version__}; XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r}")
    columns = ["network", "kernels", "ready at the start", "copies", "most waiting", "hand-off every step"]
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|")
    parts = run.stderr.split(MARK)[1:]
    for part in parts:
        name, log = part.split("\n", 1)
        nodes = parse_graph(log)
        sources, widest = replay(nodes)
        copies = sum(kind == "copy" for _, kind, _ in nodes)
        handoff = "yes" if widest > SPLIT_THRESHOLD else "no"
        print(f"| {name} | {len(nodes)} | {sources} | {copies} | {widest} | {handoff} |")


if __name__ == "__main__":
    main()
