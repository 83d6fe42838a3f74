"""Network benchmark: 100 Hodgkin–Huxley point cells, 1000 synapses, 1 s; difflab against Jaxley 0.14.

Network (`numpy.random.default_rng(0)`): 100 squid-axon cells (NEURON `hh`, 6.3 °C, membrane area 100 µm²), each
driven by its own constant current drawn from U[6.5, 12] µA/cm² so that every cell fires; 1000 distinct
(pre, post) pairs without self-connections, 80 % excitatory (E = 0 mV) and 20 % inhibitory (E = −80 mV), weights
U[0.2, 1] nS, delays U[1, 3] ms.

- difflab: `ExpSynapses` (NEURON's `ExpSyn` + `NetCon`, τ = 2 ms) and its `NetworkRushLarsenCN` at dt 0.025 ms;
  accuracy: spike times (0 mV crossings of V saved every 0.025 ms, linear interpolation) against NEURON 9's
  CVODE at atol = rtol = 1e-9 (`--neuron-json`, written by `network_neuron.py`, which also runs NEURON at CVODE
  1e-7 and at its fixed steps as yardsticks), or else against difflab at dt 0.003125 ms (8× smaller).
- Jaxley has no delayed, spike-triggered synapse: its closest network is the same cells and pairs with
  `IonotropicSynapse` (a graded synapse driven by the presynaptic voltage, no delay; gS = the same weights,
  k_minus = 0.5/ms for a 2 ms decay, the same reversal potentials), `crank_nicolson` at dt 0.025 ms. The synapse
  models differ, so the two networks' spike trains differ; the timing compares networks of the same size.

The network is chaotic (its trains part within tens of milliseconds of any perturbation), so its total spike count
is a random variable: compare rates over ensembles with `network_rate.py`, not one run's count.

Timing: compiled first, then difflab and Jaxley called in alternation (the Jaxley half is a second process driven
one call at a time, with the same environment, `XLA_FLAGS` included); medians of `--repeats`.

    PEER_PYTHON benchmarks/network_neuron.py --out /tmp/network_neuron.json
    python benchmarks/network_bench.py --peer-python PEER_PYTHON --neuron-json /tmp/network_neuron.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np
from cells_bench import crossings, timed_call

N_CELLS = 100
N_SYN = 1000
T_END = 1000.0
DT = 0.025
REF_DT = 0.003125
SAVE_DT = 0.025


def network():
    """Drive (µA/cm²), sorted pairs, weights (µS), delays (ms) and reversal potentials (mV)."""
    rng = np.random.default_rng(0)
    drive = rng.uniform(6.5, 12.0, N_CELLS)
    pairs = [(i, j) for i in range(N_CELLS) for j in range(N_CELLS) if i != j]
    chosen = np.sort(rng.choice(len(pairs), N_SYN, replace=False))
    pre, post = np.array([pairs[k] for k in chosen]).T
    weight = rng.uniform(0.0002, 0.001, N_SYN)
    delay = rng.uniform(1.0, 3.0, N_SYN)
    E = np.where(rng.random(N_SYN) < 0.8, 0.0, -80.0)
    return drive, pre, post, weight, delay, E


def difflab_run(dt, loop="auto"):
    import jax
    import jax.numpy as jnp

    import difflab
    from difflab.neuron import ExpSynapses, HodgkinHuxley, Network

    drive, pre, post, weight, delay, E = network()
    syn = ExpSynapses(pre, post, weight, delay, tau=2.0, E=E)
    net = Network(HodgkinHuxley.squid_axon(), syn, N_CELLS, area=100.0)
    stim = difflab.Step(jnp.asarray(drive), 0.0, 2 * T_END)
    ts = np.arange(round(T_END / SAVE_DT) + 1) * SAVE_DT
    observe = lambda t, y, a: {"V": y["V"]}  # noqa: E731

    def run():
        return difflab.simulate(net, stim, ts, dt0=dt, observe=observe, loop=loop).ys["V"]

    return jax.jit(run), ts


def jaxley_run(dt):
    import jax
    import jaxley as jx
    from jaxley.channels import HH
    from jaxley.connect import connectivity_matrix_connect
    from jaxley.synapses import IonotropicSynapse

    drive, pre, post, weight, _, E = network()
    comp = jx.Compartment()
    cell = jx.Cell(jx.Branch(comp, ncomp=1), parents=[-1])
    cell.insert(HH())
    cell.set("radius", 1.0)
    cell.set("length", 100.0 / (2 * np.pi))  # area 100 µm²: 1 µA/cm² = 0.001 nA
    cell.set("capacitance", 1.0)
    net = jx.Network([cell for _ in range(N_CELLS)])
    matrix = np.zeros((N_CELLS, N_CELLS), bool)
    matrix[pre, post] = True
    connectivity_matrix_connect(net.cell("all"), net.cell("all"), IonotropicSynapse(), matrix)
    net.set("IonotropicSynapse_gS", weight)  # edges are in (pre, post) order, as the sorted pairs
    net.set("IonotropicSynapse_e_syn", E)
    net.set("IonotropicSynapse_k_minus", 0.5)
    net.set("v", -65.0)
    net.init_states()
    for i in range(N_CELLS):
        net.cell(i).branch(0).comp(0).stimulate(np.full(round(T_END / dt) + 2, drive[i] * 1e-3), verbose=False)
    net.cell("all").branch(0).comp(0).record("v", verbose=False)

    def run():
        return jx.integrate(net, delta_t=dt, solver="crank_nicolson", t_max=T_END)

    return jax.jit(run), np.arange(round(T_END / dt) + 1) * dt


def peer_main(args):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jaxley

    fn, ts = jaxley_run(DT)
    compile_s = timed_call(fn)
    spikes = crossings(ts, np.asarray(fn()))
    print(json.dumps({"version": jaxley.__version__, "jax": jax.__version__, "compile_s": compile_s,
                      "spikes": sum(len(s) for s in spikes)}), flush=True)  # fmt: skip
    for line in sys.stdin:
        if line.strip() == "quit":
            return
        print(json.dumps({"s": timed_call(fn)}), flush=True)


def compare(got, ref, tol=0.05):
    """Per cell: spikes matched in order until the first one off by more than `tol` ms or missing."""
    matched, total, worst_matched, first_off = 0, 0, 0.0, np.inf
    for a, b in zip(got, ref, strict=True):
        total += len(b)
        for k, tb in enumerate(b):
            if k >= len(a) or abs(a[k] - tb) > tol:
                first_off = min(first_off, tb)
                break
            matched += 1
            worst_matched = max(worst_matched, abs(a[k] - tb))
    return matched, total, worst_matched, first_off


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--peer", action="store_true", help="run the Jaxley half only (JSON on stdout)")
    parser.add_argument("--peer-python", help="python of the Jaxley environment")
    parser.add_argument("--neuron-json", help="spike times from network_neuron.py: compare against NEURON's CVODE")
    parser.add_argument("--loop", default="auto", choices=["auto", "scan", "while"], help="simulate's loop")
    args = parser.parse_args()
    if args.peer:
        peer_main(args)
        return
    import jax

    import difflab

    load = [os.getloadavg()]
    neuron = None
    if args.neuron_json:
        with open(args.neuron_json) as f:
            neuron = json.load(f)
        ref = [np.array(s) for s in neuron["runs"]["cvode_1e-9"]["spikes"]]
    else:
        ref_fn, ts = difflab_run(REF_DT, args.loop)
        ref = crossings(ts, np.asarray(ref_fn()).T)
    fn, ts = difflab_run(DT, args.loop)
    compile_s = timed_call(fn)
    got = crossings(ts, np.asarray(fn()).T)
    peer = None
    if args.peer_python:
        cmd = [args.peer_python, __file__, "--peer"]
        peer = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = json.loads(peer.stdout.readline())
    times, jtimes = [], []
    for _ in range(args.repeats):
        times.append(timed_call(fn))
        if peer:
            peer.stdin.write("go\n")
            peer.stdin.flush()
            jtimes.append(json.loads(peer.stdout.readline())["s"])
    if peer:
        peer.stdin.write("quit\n")
        peer.stdin.flush()
        peer.wait()
    load.append(os.getloadavg())
    reference = "NEURON CVODE 1e-9" if neuron else f"difflab dt {REF_DT}"
    rows = [("difflab dt 0.025", got)]
    if neuron:
        rows += [(f"NEURON {k.replace('_', ' ')}", [np.array(s) for s in v["spikes"]])
                 for k, v in neuron["runs"].items() if k != "cvode_1e-9"]  # fmt: skip
    print(f"| against {reference} | spikes | matched within 0.05 ms (in order, to the first miss) | worst matched (ms) "
          "| first miss (ms) | first 5 per cell: worst (ms) | median (ms) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, trains in rows:
        m, total, w, off = compare(trains, ref)
        e = [abs(a[k] - b[k]) for a, b in zip(trains, ref, strict=True) for k in range(min(len(a), len(b), 5))]
        print(
            f"| {name} | {sum(map(len, trains))} | {m}/{total} | {w:.4f} | {off:.1f} | {max(e):.5f} | "
            f"{np.median(e):.5f} |"
        )
    matched, total, worst, first_off = compare(got, ref)
    errs = [abs(a[k] - b[k]) for a, b in zip(got, ref, strict=True) for k in range(min(len(a), len(b), 5))]
    print(f"# network: {N_CELLS} HH cells, {N_SYN} synapses, {T_END:g} ms, float64, medians of {args.repeats}")
    print(f"load average (1, 5, 15 min) before {load[0]}, after {load[1]}; CPUs: {os.cpu_count()}")
    jx = f"Jaxley {ready['version']} (jax {ready['jax']})" if peer else "no Jaxley"
    print(f"difflab {difflab.__version__}, jax {jax.__version__}; {jx}; XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r} "
          f"(both processes)")  # fmt: skip
    print(f"difflab dt {DT} (loop {args.loop}): {sum(map(len, got))} spikes; reference {reference}: {total} spikes")
    print(f"spikes matching the reference within 0.05 ms (per cell, in order, up to the first miss): {matched}/{total};"
          f" worst of those {worst:.4f} ms; first miss at {first_off:.1f} ms")  # fmt: skip
    print(f"first 5 spikes of every cell: worst error {max(errs):.5f} ms, median {np.median(errs):.5f} ms")
    d = float(np.median(times))
    print("| simulator | synapses | dt (ms) | median (s) | first call (s) | spikes |")
    print("|---|---|---|---|---|---|")
    print(f"| difflab | ExpSynapses, delays 1–3 ms | {DT} | {d:.3f} | {compile_s:.1f} | {sum(map(len, got))} |")
    if peer:
        j = float(np.median(jtimes))
        first, n = ready["compile_s"], ready["spikes"]
        print(f"| Jaxley | IonotropicSynapse, no delay | {DT} | {j:.3f} | {first:.1f} | {n} |")
        print(f"speed-up (Jaxley / difflab): {j / d:.2f}×")


if __name__ == "__main__":
    main()
