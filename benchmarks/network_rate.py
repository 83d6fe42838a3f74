"""Population rate of the recurrent point-cell network at the default step, against a converged step, as a statistic.

The network of `network_bench.py` (100 squid-axon cells, 1000 ExpSyn synapses with delays U[1, 3] ms, 1 s) is
chaotic: a perturbation of 1e-6 mV parts its spike trains within tens of milliseconds. Its total spike count over
1 s is then not one number that a step converges to but a random variable of the trajectory, and of the network's
exact parameters: delays moved by 0.01 ms (less than half a step) move the mean over perturbed starts by about
1.5 %. The step's bias on the rate is therefore measured over an ensemble, each member run at both steps and the
relative difference of its counts taken (paired, so the spread between networks cancels):

- ``random``: networks drawn as the benchmark's (same pairs; drives, weights, delays and signs drawn from
  ``numpy.random.default_rng(1000 + m)``), the rate of the network family;
- ``jitter``: the benchmark network itself with every delay moved by U[-0.01, 0.01] ms (member m:
  ``default_rng(2000 + m)``), the rate of that network's neighbourhood;
- ``starts``: the benchmark network itself from initial potentials perturbed by 1e-6 mV (``default_rng(1)``),
  which shows how far one parameter set's mean departs from its neighbourhood's;
- ``feedforward``: no recurrence, so no chaos: cells 0–49 (drives U[9.9, 10.1] µA/cm², nearly in phase) drive
  cells 50–99 (U[6.5, 12]) through 500 synapses drawn as the benchmark's (``default_rng(0)``); the receivers'
  count then has one value per step, and any difference is the step's own, per cell and synapse.

Spikes are counted from the network's own spike buffer (upward crossings of 0 mV, timed inside the step), saved
every 1 ms. Members run vmapped, one compiled solve per step size.

    python benchmarks/network_rate.py random --members 32
    python benchmarks/network_rate.py jitter --members 16
"""

from __future__ import annotations

import argparse
import os
import time

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from network_bench import N_CELLS, N_SYN, network

import difflab
from difflab.neuron import ExpSynapses, HodgkinHuxley, Network

SAVE_DT = 1.0  # ms; a cell fires at most once per ms here, and the buffer keeps 4 spikes


def ensemble(kind: str, members: int):
    """Per member: drives (µA/cm²), weights (µS), delays (ms), reversal potentials (mV), initial V offsets (mV)."""
    drive, pre, post, weight, delay, E = network()
    if kind == "random":
        draws = []
        for m in range(members):
            r = np.random.default_rng(1000 + m)
            draws.append((r.uniform(6.5, 12.0, N_CELLS), r.uniform(0.0002, 0.001, N_SYN),
                          r.uniform(1.0, 3.0, N_SYN), np.where(r.random(N_SYN) < 0.8, 0.0, -80.0)))  # fmt: skip
        arrays = [np.stack(x) for x in zip(*draws, strict=True)]
        return pre, post, (*arrays, np.zeros((members, N_CELLS)))
    if kind == "feedforward":
        r = np.random.default_rng(0)
        drive = np.concatenate([r.uniform(9.9, 10.1, N_CELLS // 2), r.uniform(6.5, 12.0, N_CELLS // 2)])
        pairs = [(i, j) for i in range(N_CELLS // 2) for j in range(N_CELLS // 2, N_CELLS)]
        n = N_SYN // 2
        pre, post = np.array([pairs[k] for k in np.sort(r.choice(len(pairs), n, replace=False))]).T
        weight, delay = r.uniform(0.0002, 0.001, n), r.uniform(1.0, 3.0, n)
        E = np.where(r.random(n) < 0.8, 0.0, -80.0)
    same = [np.stack([x] * members) for x in (drive, weight, delay, E)]
    if kind == "jitter":
        same[2] = same[2] + np.stack(
            [np.random.default_rng(2000 + m).uniform(-0.01, 0.01, N_SYN) for m in range(members)]
        )
        return pre, post, (*same, np.zeros((members, N_CELLS)))
    return pre, post, (*same, 1e-6 * np.random.default_rng(1).standard_normal((members, N_CELLS)))


def spike_counts(pre, post, params, dt: float, t_end: float) -> np.ndarray:
    """Each member's total spike count over `t_end` (ms) at the fixed step `dt` (ms)."""
    drive, weight, delay, E, dV = (jnp.asarray(p) for p in params)
    template = Network(
        HodgkinHuxley.squid_axon(), ExpSynapses(pre, post, weight[0], delay[0], tau=2.0, E=E[0]), N_CELLS, area=100.0
    )
    y_start = template.initial_state()
    ts = np.arange(round(t_end / SAVE_DT) + 1) * SAVE_DT

    def one(d, w, dl, e, dv):
        net = eqx.tree_at(lambda n: (n.synapses[0].weight, n.synapses[0].delay, n.synapses[0].E), template, (w, dl, e))
        y0 = {**y_start, "V": y_start["V"] + dv}
        observe = lambda t, y, a: {"spikes": y["spikes"]}  # noqa: E731
        return difflab.simulate(net, difflab.Step(d, 0.0, 2 * t_end), ts, dt0=dt, y0=y0, observe=observe).ys

    spikes = np.asarray(jax.jit(jax.vmap(one))(drive, weight, delay, E, dV)["spikes"])  # (members, time, cells, buf)
    # a spike is counted in the save interval (t_{k-1}, t_k] that holds its time
    new = (spikes[:, 1:] > ts[None, :-1, None, None]) & (spikes[:, 1:] <= ts[None, 1:, None, None])
    return new.sum(axis=(1, 2, 3))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["random", "jitter", "starts", "feedforward"])
    parser.add_argument("--members", type=int, default=16)
    parser.add_argument("--t-end", type=float, default=1000.0, help="duration (ms)")
    parser.add_argument("--steps", default="0.025,0.003125", help="comma-separated dt (ms); the last is the reference")
    args = parser.parse_args()
    jax.config.update("jax_enable_x64", True)
    steps = [float(s) for s in args.steps.split(",")]
    pre, post, params = ensemble(args.kind, args.members)
    print(f"{args.kind}, {args.members} members, load {os.getloadavg()[0]:.1f}, jax {jax.__version__}")
    counts = {}
    for dt in steps:
        start = time.perf_counter()
        counts[dt] = spike_counts(pre, post, params, dt, args.t_end)
        print(f"dt {dt} ms: mean {counts[dt].mean():.1f}, sd {counts[dt].std(ddof=1):.1f} "
              f"({time.perf_counter() - start:.0f} s): {counts[dt].tolist()}", flush=True)  # fmt: skip
    ref = counts[steps[-1]]
    for dt in steps[:-1]:
        rel = (counts[dt] - ref) / ref
        sem = rel.std(ddof=1) / np.sqrt(len(rel))
        print(f"dt {dt} against {steps[-1]}: paired relative difference {100 * rel.mean():+.2f} % "
              f"± {100 * sem:.2f} % (standard error; 95 % interval {100 * (rel.mean() - 1.96 * sem):+.2f} "
              f"… {100 * (rel.mean() + 1.96 * sem):+.2f} %)")  # fmt: skip


if __name__ == "__main__":
    main()
