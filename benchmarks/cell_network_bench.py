"""Network of detailed cells: 100 ball-and-stick cells, 2000 dendritic synapses, 200 ms; difflab against Jaxley 0.14.

Network (`numpy.random.default_rng(0)`): 100 ball-and-stick cells (`Cell.ball_and_stick()`: soma L = diam = 20 µm,
one compartment; dendrite 500 × 2 µm at `soma(1)`, 21 compartments; `hh` at 6.3 °C, soma ḡNa 120, ḡK 36, gL 0.3,
dendrite 30, 10, 0.1 mS/cm²; Ra 100 Ω·cm; 22 compartments a cell, 2200 in all), each driven at its soma by its
own constant current drawn from U[0.2, 0.35] nA so that every cell fires; 2000 distinct (pre, post) pairs without
self-connections, each synapse on the postsynaptic dendrite at `dend(x)`, x from U[0.1, 0.9]; 80 % excitatory
(E = 0 mV), 20 % inhibitory (E = −80 mV); weights U[0.5, 2] nS, delays U[1, 3] ms.

- difflab: `CellNetwork` with `Exp2Synapses` (NEURON's `Exp2Syn` + `NetCon`, τ1 = 0.5 ms, τ2 = 3 ms), its default
  solver (`CellNetworkRushLarsenCN`) at dt 0.025 ms, float64 and float32. Accuracy: somatic spike times (0 mV
  upward crossings of V saved every 0.025 ms, linear interpolation) against difflab at dt 0.003125 ms (8× smaller),
  float64.
- Jaxley has no delayed, spike-triggered synapse: its closest network is the same cells (a soma branch of one
  compartment and a dendrite branch of 21; radius = diam / 2, length per compartment, densities in S/cm²) and
  pairs, with `IonotropicSynapse` at the same dendritic compartments (a graded synapse driven by the presynaptic
  voltage, no delay; gS = the same weights in µS, k_minus = 1/3 per ms for a 3 ms decay, the same reversal
  potentials), `crank_nicolson` at dt 0.025 ms. The synapse models differ, so the spike trains differ; the timing
  compares networks of the same size.
- Gradient: of the mean somatic potential over the run and over all cells (a population-rate-like loss) with
  respect to all 2000 synaptic weights (difflab: `"synapses.0.weight"`; Jaxley: `IonotropicSynapse_gS` made
  trainable per synapse, `jx.integrate` under `jax.grad`), reverse mode in both.

Timing: compiled first, then difflab and Jaxley called in alternation (the Jaxley half is a second process driven
one call at a time, one per dtype); medians of `--repeats`.

    python benchmarks/cell_network_bench.py --peer-python PEER_PYTHON

The peer half (`--peer`) imports only Jaxley, JAX and NumPy (`pip install jaxley==0.14.0`).
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np
from cells_bench import PeerProcess, crossings, serve, timed_call
from network_bench import compare

N_CELLS = 100
N_SYN = 2000
NSEG = 21  # dendrite compartments; the soma is compartment 0 of each cell
N_COMP = 1 + NSEG
T_END = 200.0
DT = 0.025
REF_DT = 0.003125
SAVE_DT = 0.025
TAU1, TAU2 = 0.5, 3.0


def network(n_syn=N_SYN):
    """Drive (nA), sorted pairs, dendritic places x, weights (µS), delays (ms) and reversal potentials (mV).

    With `n_syn` < `N_SYN`, the first `n_syn` synapses of the full network (for the cost of the synapses).
    """
    rng = np.random.default_rng(0)
    drive = rng.uniform(0.2, 0.35, N_CELLS)
    pairs = [(i, j) for i in range(N_CELLS) for j in range(N_CELLS) if i != j]
    chosen = np.sort(rng.choice(len(pairs), N_SYN, replace=False))
    pre, post = np.array([pairs[k] for k in chosen]).T
    x = rng.uniform(0.1, 0.9, N_SYN)
    weight = rng.uniform(0.0005, 0.002, N_SYN)
    delay = rng.uniform(1.0, 3.0, N_SYN)
    E = np.where(rng.random(N_SYN) < 0.8, 0.0, -80.0)
    return drive, *(a[:n_syn] for a in (pre, post, x, weight, delay, E))


def dendrite_compartment(x):
    """The compartment (0 = soma, 1..NSEG = dendrite from its root) of `dend(x)` for 0 < x < 1."""
    return 1 + np.minimum((np.asarray(x) * NSEG).astype(int), NSEG - 1)


# ---------------------------------------------------------------- difflab
def difflab_calls(dtype, dt, n_syn=N_SYN):
    """Jitted forward run (somatic V, (time, cell)) and jitted reverse-mode gradient of the mean somatic V."""
    import jax
    import jax.numpy as jnp

    import difflab
    from difflab.neuron import Cell, CellNetwork, Exp2Synapses

    drive, pre, post, x, weight, delay, E = network(n_syn)
    where = [f"dend({float(v)!r})" for v in x]
    syn = Exp2Synapses(pre, post, weight, delay, tau1=TAU1, tau2=TAU2, E=E)
    net = CellNetwork(Cell.ball_and_stick(nseg=NSEG, dtype=dtype), syn, where=[where], counts=N_CELLS)
    expected = np.asarray(post) * N_COMP + dendrite_compartment(x)
    if not np.array_equal(net.targets, expected):  # the Jaxley half places its synapses at these compartments
        raise RuntimeError("difflab's synaptic compartments differ from dendrite_compartment()")
    # one protocol of 100 currents into the cells' somata (an IClamp of 100 locations evaluates 100 protocols a step:
    # 1.45 s against 1.22 s for the float64 forward run, with equal results)
    clamp = difflab.Step(jnp.asarray(drive, dtype), 0.0, 2 * T_END)
    soma = np.array([net.site(f"cell{i}.soma(0.5)") for i in range(N_CELLS)])
    observe = lambda t, y, a: {"V": y["V"][..., soma]}  # noqa: E731
    ts = np.arange(round(T_END / SAVE_DT) + 1) * SAVE_DT
    ts_model = jnp.asarray(ts, dtype)  # float32 times keep a float32 solve in float32

    def soma_v(model):
        traj = difflab.simulate(model, clamp, ts_model, dt0=dt, max_steps=round(T_END / dt) + 1, observe=observe)
        return traj.ys["V"]

    def loss(w):
        return jnp.mean(soma_v(net.replace(**{"synapses.0.weight": w})))

    w0 = jnp.asarray(weight, dtype)
    return jax.jit(lambda: soma_v(net)), (jax.jit(jax.grad(loss)), w0), ts


# ---------------------------------------------------------------- Jaxley (peer process)
def jaxley_calls(dt, n_syn=N_SYN):
    """Jitted forward run (somatic V, (cell, time)) and jitted gradient of the mean somatic V w.r.t. every gS."""
    import jax
    import jax.numpy as jnp
    import jaxley as jx
    from jaxley.channels import HH
    from jaxley.synapses import IonotropicSynapse

    drive, pre, post, x, weight, _, E = network(n_syn)
    comp = jx.Compartment()
    cell = jx.Cell([jx.Branch(comp, ncomp=1), jx.Branch(comp, ncomp=NSEG)], parents=[-1, 0])
    cell.insert(HH())
    geometry = ((20.0, 20.0, 1, (120.0, 36.0, 0.3)), (500.0, 2.0, NSEG, (30.0, 10.0, 0.1)))  # L, diam, nseg, ḡ
    for b, (L, diam, nseg, g) in enumerate(geometry):
        cell.branch(b).set("radius", diam / 2)
        cell.branch(b).set("length", L / nseg)  # per compartment
        for key, value in zip(("HH_gNa", "HH_gK", "HH_gLeak"), g, strict=True):
            cell.branch(b).set(key, value * 1e-3)  # S/cm²
    cell.set("axial_resistivity", 100.0)
    cell.set("capacitance", 1.0)
    net = jx.Network([cell for _ in range(N_CELLS)])
    # Synapse k from the soma of cell pre[k] onto compartment dendrite_compartment(x[k]) of cell post[k], in this
    # order (compartments are numbered cell by cell, soma first, then the dendrite from its root), as Jaxley's
    # own connect functions append rows of `nodes`.
    nodes = net.nodes
    row = nodes.index.to_numpy()[np.argsort(nodes["global_comp_index"].to_numpy())]  # rows also hold branch points
    pre_rows = nodes.loc[row[np.asarray(pre) * N_COMP]]
    post_rows = nodes.loc[row[np.asarray(post) * N_COMP + dendrite_compartment(x)]]
    assert (post_rows["global_cell_index"].to_numpy() == post).all()
    assert (post_rows["global_branch_index"].to_numpy() == 2 * np.asarray(post) + 1).all()
    net._append_multiple_synapses(pre_rows, post_rows, IonotropicSynapse())
    net.set("IonotropicSynapse_gS", weight)
    net.set("IonotropicSynapse_e_syn", E)
    net.set("IonotropicSynapse_k_minus", 1.0 / TAU2)
    net.set("v", -65.0)
    net.init_states()
    for i in range(N_CELLS):
        net.cell(i).branch(0).comp(0).stimulate(np.full(round(T_END / dt) + 2, drive[i]), verbose=False)
    net.cell("all").branch(0).comp(0).record("v", verbose=False)
    net.IonotropicSynapse.edge("all").make_trainable("IonotropicSynapse_gS", verbose=False)
    params = net.get_parameters()

    def run(p):
        return jx.integrate(net, params=p, delta_t=dt, solver="crank_nicolson", t_max=T_END)

    grad = jax.jit(jax.grad(lambda p: jnp.mean(run(p))))
    return jax.jit(lambda: run(params)), (grad, params), np.arange(round(T_END / dt) + 1) * dt


def peer_main(args):
    """Serve Jaxley calls: a JSON 'ready' line, then one JSON line per request read from stdin."""
    import jax

    jax.config.update("jax_enable_x64", args.dtype == "float64")
    import jaxley

    if args.breakdown:
        calls = {f"fwd{n}": (jaxley_calls(DT, n)[0], ()) for n in (1, N_SYN)}
        ready = {"version": jaxley.__version__, "jax": jax.__version__}
        ready |= {name: timed_call(fn) for name, (fn, _) in calls.items()}
        print(json.dumps(ready), flush=True)
    else:
        fwd, (grad, params), ts = jaxley_calls(DT)
        calls = {"fwd": (fwd, ()), "grad": (grad, (params,))}
        ready = peer_ready(jaxley, fwd, grad, params, ts)
    serve(calls)


def peer_ready(jaxley, fwd, grad, params, ts):
    """Compile the Jaxley calls; their first-call times, spike count and gradient size, printed as JSON."""
    import jax

    ready = {"version": jaxley.__version__, "jax": jax.__version__, "compile_s": timed_call(fwd)}
    V = np.asarray(fwd())
    ready["spikes"] = sum(len(s) for s in crossings(ts, V[:, : ts.size]))
    ready["nan"] = bool(np.isnan(V).any())
    ready["grad_compile_s"] = timed_call(grad, params)
    g = np.concatenate([np.ravel(leaf) for leaf in jax.tree.leaves(grad(params))])
    ready["grad_n"], ready["grad_norm"] = int(g.size), float(np.linalg.norm(g))
    print(json.dumps(ready), flush=True)
    return ready


def jaxley_peer(python, dtype, breakdown=False) -> PeerProcess:
    """The Jaxley process for one dtype."""
    return PeerProcess([python, __file__, "--peer", "--dtype", dtype] + (["--breakdown"] if breakdown else []))


# ---------------------------------------------------------------- report
def accuracy(got, ref):
    """Spike count, total |count difference|, cells whose counts differ, and spike-time differences.

    The worst and median spike-time difference are over the cells whose counts agree, spikes paired in order.
    """
    same = [(a, b) for a, b in zip(got, ref, strict=True) if len(a) == len(b)]
    errs = np.abs(np.concatenate([np.subtract(a, b) for a, b in same]))
    count_diff = sum(abs(len(a) - len(b)) for a, b in zip(got, ref, strict=True))
    return sum(map(len, got)), count_diff, len(got) - len(same), float(errs.max()), float(np.median(errs))


def divergence(got, ref) -> str:
    """Where the trains part: spikes matched within 0.05 ms (per cell, in order, to the first miss) and that miss."""
    matched, total, worst, first_off = compare(got, ref)
    return f"{matched}/{total} spikes within 0.05 ms up to the first miss, at {first_off:.1f} ms (worst before: " \
        f"{worst:.4f} ms)"  # fmt: skip


def breakdown(args):
    """Forward cost per step (µs), float64, with one synapse and with all: the cells' part and the synapses' part."""
    import jax.numpy as jnp

    load = [os.getloadavg()]
    fns = {n: difflab_calls(jnp.float64, DT, n)[0] for n in (1, N_SYN)}
    first = {n: timed_call(fn) for n, fn in fns.items()}
    peer = jaxley_peer(args.peer_python, "float64", breakdown=True) if args.peer_python else None
    times = {(who, n): [] for who in ("difflab", "Jaxley") for n in fns}
    for _ in range(args.repeats):
        for n, fn in fns.items():
            times["difflab", n].append(timed_call(fn))
            if peer:
                times["Jaxley", n].append(peer.call(f"fwd{n}"))
    if peer:
        peer.close()
    load.append(os.getloadavg())
    steps = round(T_END / DT)
    print(f"# forward cost per step, float64, {steps} steps, medians of {args.repeats}; first calls {first}")
    print(f"load average (1, 5, 15 min) before {load[0]}, after {load[1]}")
    print("| simulator | 1 synapse (µs/step) | 2000 synapses (µs/step) | synapses' share (µs/step) |")
    print("|---|---|---|---|")
    for who in ("difflab", "Jaxley") if peer else ("difflab",):
        one, full = (float(np.median(times[who, n])) / steps * 1e6 for n in fns)
        print(f"| {who} | {one:.1f} | {full:.1f} | {full - one:.1f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dtypes", nargs="+", choices=("float64", "float32"), default=["float64", "float32"])
    parser.add_argument("--dtype", choices=("float64", "float32"), default="float64", help="the peer's dtype")
    parser.add_argument("--peer", action="store_true", help="run the Jaxley half only (JSON on stdout)")
    parser.add_argument("--peer-python", help="python of the Jaxley environment")
    parser.add_argument("--breakdown", action="store_true", help="cost per step with 1 and with 2000 synapses")
    parser.add_argument("--accuracy", action="store_true", help="spike times only: no gradient, no Jaxley, no timing")
    args = parser.parse_args()
    if args.peer:
        peer_main(args)
        return
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    import difflab

    if args.breakdown:
        breakdown(args)
        return
    load = [os.getloadavg()]
    ref_fn, _, ts = difflab_calls(jnp.float64, REF_DT)
    ref = crossings(ts, np.asarray(ref_fn()).T)
    del ref_fn
    results = {}
    for name in args.dtypes:
        dtype = jnp.float64 if name == "float64" else jnp.float32
        fwd, (grad, w0), ts = difflab_calls(dtype, DT)
        V = np.asarray(fwd())
        if args.accuracy:
            n, dc, cells, worst, med = accuracy(crossings(ts, V.T), ref)
            print(f"{name}: {divergence(crossings(ts, V.T), ref)}")
            print(f"{name} dt {DT} against float64 dt {REF_DT} ({sum(map(len, ref))} spikes): {n} spikes, "
                  f"Σ|Δcount| {dc} over {cells} cells; spike times of the other {N_CELLS - cells} cells: worst "
                  f"{worst:.5f} ms, median {med:.5f} ms")  # fmt: skip
            continue
        r = {"compile_s": timed_call(fwd), "grad_compile_s": timed_call(grad, w0)}
        r["nan"] = bool(np.isnan(V).any())
        r["accuracy"] = accuracy(crossings(ts, V.T), ref)
        r["divergence"] = divergence(crossings(ts, V.T), ref)
        r["grad_norm"] = float(np.linalg.norm(np.asarray(grad(w0))))
        peer = jaxley_peer(args.peer_python, name) if args.peer_python else None
        times = {k: [] for k in ("fwd", "grad", "jaxley fwd", "jaxley grad")}
        for _ in range(args.repeats):  # alternation: difflab, Jaxley, difflab, ...
            times["fwd"].append(timed_call(fwd))
            if peer:
                times["jaxley fwd"].append(peer.call("fwd"))
            times["grad"].append(timed_call(grad, w0))
            if peer:
                times["jaxley grad"].append(peer.call("grad"))
        if peer:
            peer.close()
            r["jaxley"] = peer.ready
        r["median"] = {k: float(np.median(v)) if v else float("nan") for k, v in times.items()}
        r["load"] = os.getloadavg()
        results[name] = r
        print(f"{name} done: {r}", flush=True)
    if args.accuracy:
        return
    load.append(os.getloadavg())

    print(f"# {N_CELLS} ball-and-stick cells ({N_CELLS * N_COMP} compartments), {N_SYN} dendritic synapses, "
          f"{T_END:g} ms, medians of {args.repeats}")  # fmt: skip
    print(f"load average (1, 5, 15 min) before {load[0]}, after {load[1]}; CPUs: {os.cpu_count()}")
    jxv = next((f"Jaxley {r['jaxley']['version']} (jax {r['jaxley']['jax']})" for r in results.values()
                if "jaxley" in r), "no Jaxley")  # fmt: skip
    print(f"difflab {difflab.__version__}, jax {jax.__version__}; {jxv}; XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r}")
    print(f"reference: difflab dt {REF_DT} ms, float64: {sum(map(len, ref))} spikes")
    print()
    print("| dtype | simulator | synapses | forward (s) | gradient wrt 2000 weights (s) | spikes | Σ|Δcount| "
          "(cells differing) | spike-time error, equal-count cells: worst / median (ms) | load 1 min |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        n, dc, cells, worst, med = r["accuracy"]
        m = r["median"]
        print(f"| {name} | difflab dt {DT} | Exp2Synapses, delays 1–3 ms | {m['fwd']:.2f} | {m['grad']:.2f} | {n} | "
              f"{dc} ({cells}) | {worst:.4f} / {med:.5f} | {r['load'][0]:.2f} |")  # fmt: skip
        if "jaxley" in r:
            j = r["jaxley"]
            print(f"| {name} | Jaxley crank_nicolson dt {DT} | IonotropicSynapse, no delay | {m['jaxley fwd']:.2f} | "
                  f"{m['jaxley grad']:.2f} | {j['spikes']} | – | – | |")  # fmt: skip
    print()
    for name, r in results.items():
        m = r["median"]
        if "jaxley" in r:
            print(f"{name}: Jaxley / difflab forward {m['jaxley fwd'] / m['fwd']:.2f}×, "
                  f"gradient {m['jaxley grad'] / m['grad']:.2f}×")  # fmt: skip
        compiled = {"difflab": round(r["compile_s"], 1), "difflab grad": round(r["grad_compile_s"], 1)}
        if "jaxley" in r:
            compiled |= {"Jaxley": round(r["jaxley"]["compile_s"], 1),
                         "Jaxley grad": round(r["jaxley"]["grad_compile_s"], 1)}  # fmt: skip
            print(f"{name}: Jaxley NaN {r['jaxley']['nan']}, gradient entries {r['jaxley']['grad_n']}, "
                  f"norm {r['jaxley']['grad_norm']:.4g}")  # fmt: skip
        print(f"{name}: difflab NaN {r['nan']}, gradient norm {r['grad_norm']:.4g} (mV per µS)")
        print(f"{name}: difflab against the reference: {r['divergence']}")
        print(f"{name}: first call, compilation included (s): {compiled}")


if __name__ == "__main__":
    main()
