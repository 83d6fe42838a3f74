"""Branched-cell ensemble and gradient benchmark: difflab's `Cell` against Jaxley 0.14, side by side.

The cell (built the same way in both): a soma (L = diam = 20 µm, one compartment) and a binary tree of three
levels attached at `soma(1)` and at each parent's `1` end: 2 branches of 200 × 2 µm, 4 of 150 × 1.5 µm, 8 of
100 × 1 µm, 8 compartments each (113 compartments); NEURON's `hh` everywhere at 6.3 °C (Jaxley's `HH` channel:
the same rate functions, no temperature factor), soma ḡNa 120, ḡK 36, gL 0.3, dendrites 30, 10, 0.1 mS/cm²,
Ra 100 Ω·cm, cm 1 µF/cm², a 0.5 nA step into the soma on [10, 90) ms, 100 ms (six spikes at the soma).

Ensemble: the four densities (soma and dendrite ḡNa, ḡK) drawn per member from U[0.8, 1.2] × nominal
(`numpy.random.default_rng(0)`), one vectorised solve, V at the soma saved every 0.025 ms (difflab) or at every
step (Jaxley). Accuracy: somatic spike times (0 mV upward crossings, linear interpolation) of the first
`--check` members against difflab at `REF_DT` = 0.003125 ms (8× smaller than its default), float64. Jaxley's
Crank–Nicolson converges to the same spike times (0.00014 ms apart at dt 0.0016 ms; `--convergence`).

Two tiers: difflab at its default step 0.025 ms against Jaxley's fastest solver reaching the same accuracy
(`crank_nicolson`, `jaxley.dhs`, dt 0.0125 ms); and Jaxley's `crank_nicolson` at 0.025 ms against difflab at the
largest step with at least its accuracy. Gradient: value and gradient of the MSE of the somatic trace against
the nominal cell's reference trace with respect to all six channel densities (soma and dendrites, ḡNa, ḡK, gL),
at 1.1 × nominal, one cell (difflab: forward mode, six tangents in one pass, and reverse mode; Jaxley:
`jax.value_and_grad` through its scan).

Timing: compile everything, then call difflab and Jaxley in alternation (the Jaxley half is a second process
that runs one call per request, so both see the same machine load); medians of `--repeats` calls.

    python benchmarks/cells_bench.py --peer-python PEER_PYTHON --dtype float64
    python benchmarks/cells_bench.py --peer-python PEER_PYTHON --convergence

The peer half (`--peer`) imports only Jaxley, JAX and NumPy (`pip install jaxley==0.14.0`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

T_END = 100.0
SAVE_DT = 0.025
REF_DT = 0.003125
STIM = (10.0, 90.0, 0.5)  # on (ms), off (ms), nA
LEVELS = ((200.0, 2.0), (150.0, 1.5), (100.0, 1.0))  # (L, diam) in µm per tree level
NSEG = 8
NOMINAL = {"soma": (120.0, 36.0, 0.3), "dend": (30.0, 10.0, 0.1)}  # ḡNa, ḡK, gL (mS/cm²)
VARIED = (("soma", 0), ("soma", 1), ("dend", 0), ("dend", 1))
#: tier -> (difflab dt, Jaxley solver, Jaxley dt)
TIERS = {"difflab default": (0.025, "crank_nicolson", 0.0125), "Jaxley CN 0.025": (0.04, "crank_nicolson", 0.025)}
GRAD_TIER = "difflab default"


def sections():
    """`(name, parent index, L, diam, nseg)`: the soma, then the tree level by level."""
    out, parents = [("soma", -1, 20.0, 20.0, 1)], [0]
    for L, diam in LEVELS:
        level = []
        for p in parents:
            for _ in range(2):
                out.append((f"dend[{len(out) - 1}]", p, L, diam, NSEG))
                level.append(len(out) - 1)
        parents = level
    return out


def members(n):
    """Scale factors of the varied densities, shape `(4, n)` (the first members do not depend on `n`)."""
    return np.random.default_rng(0).uniform(0.8, 1.2, size=(n, len(VARIED))).T


def crossings(t, v, threshold=0.0):
    """Upward threshold crossings of `v` (last axis) by linear interpolation; a list per trace."""
    v = np.atleast_2d(v)
    out = []
    for row in v:
        i = np.flatnonzero((row[:-1] < threshold) & (row[1:] >= threshold))
        out.append((t[i] + (threshold - row[i]) / (row[i + 1] - row[i]) * (t[i + 1] - t[i])).tolist())
    return out


def spike_error(got, ref) -> float:
    """Largest spike-time difference over all traces (inf if a spike count differs)."""
    worst = 0.0
    for a, b in zip(got, ref, strict=True):
        if len(a) != len(b):
            return float("inf")
        worst = max(worst, float(np.max(np.abs(np.subtract(a, b)), initial=0.0)))
    return worst


def timed_call(fn, *args) -> float:
    import jax

    start = time.perf_counter()
    jax.block_until_ready(fn(*args))
    return time.perf_counter() - start


# ---------------------------------------------------------------- difflab
def difflab_cell(dtype):
    from difflab.neuron import Cell, LeakChannel, Morphology, PotassiumChannel, Region, Section, SodiumChannel

    secs = sections()
    morph = Morphology(
        [Section.cylinder(n, L, d, parent=None if p < 0 else secs[p][0], nseg=k) for n, p, L, d, k in secs]
    )

    def hh(gna, gk, gl):
        return {"na": SodiumChannel(gna, 50.0), "k": PotassiumChannel(gk, -77.0), "leak": LeakChannel(gl, -54.3)}

    regions = {r: Region(hh(*g), cm=1.0, Ra=100.0) for r, g in NOMINAL.items()}
    return Cell(morph, regions).astype(dtype)


def difflab_calls(dtype, dt, n_members, v_target=None):
    """Jitted ensemble, nominal run and gradients (forward and reverse) of difflab at step `dt`."""
    import diffrax
    import jax
    import jax.numpy as jnp

    import difflab
    from difflab.neuron import IClamp

    cell = difflab_cell(dtype)
    stim = IClamp({"soma(0.5)": difflab.Step(STIM[2], STIM[0], STIM[1])})
    observe, info = cell.recorder(["soma(0.5)"])
    ts = np.arange(round(T_END / SAVE_DT) + 1) * SAVE_DT
    ts_model = jnp.asarray(ts, dtype)  # float32 times keep a float32 solve in float32
    names = [f"{r}.gbar_{'na' if i == 0 else 'k'}" for r, i in VARIED]
    all_names = [f"{r}.{f}" for r in NOMINAL for f in ("gbar_na", "gbar_k", "g_leak")]

    def soma_v(model, adjoint=None):
        kw = {} if adjoint is None else {"adjoint": adjoint}
        traj = difflab.simulate(model, stim, ts_model, dt0=dt, max_steps=round(T_END / dt), observe=observe,
                                observe_info=info, **kw)  # fmt: skip
        return traj.ys["soma(0.5)"]

    def ensemble(scales):
        values = {n: jnp.asarray(NOMINAL[r][i], dtype) * s for n, (r, i), s in zip(names, VARIED, scales, strict=True)}
        return soma_v(cell.replace(**values))  # (time, member)

    def loss(p, adjoint):
        model = cell.replace(**dict(zip(all_names, p, strict=True)))
        return jnp.mean((soma_v(model, adjoint) - v_target) ** 2)

    def forward(p):
        tangents = jnp.eye(p.shape[0], dtype=p.dtype)
        fwd = diffrax.ForwardMode()
        return jax.vmap(lambda t: jax.jvp(lambda q: loss(q, fwd), (p,), (t,)), out_axes=(None, 0))(tangents)

    scales = jnp.asarray(members(n_members), dtype)
    return dict(
        ens=(jax.jit(ensemble), (scales,)),
        nominal=lambda: np.asarray(jax.jit(lambda: soma_v(cell))()),
        grad_fwd=(jax.jit(forward), None),
        grad_rev=(jax.jit(jax.value_and_grad(lambda p: loss(p, None))), None),
        ts=ts,
    )


def p0(dtype, scale=1e0):
    import jax.numpy as jnp

    return jnp.asarray([1.1 * g * scale for r in NOMINAL for g in NOMINAL[r]], dtype)


# ---------------------------------------------------------------- Jaxley (peer process)
def jaxley_calls(dt, solver, n_members, v_target=None, voltage_solver="jaxley.dhs"):
    """Jitted ensemble, nominal run and reverse-mode gradient of Jaxley (densities in S/cm²)."""
    import jax
    import jax.numpy as jnp
    import jaxley as jx
    from jaxley.channels import HH

    secs = sections()
    comp = jx.Compartment()
    cell = jx.Cell([jx.Branch(comp, ncomp=s[4]) for s in secs], parents=[s[1] for s in secs])
    cell.insert(HH())
    for i, (_, _, L, diam, nseg) in enumerate(secs):
        cell.branch(i).set("radius", diam / 2)
        cell.branch(i).set("length", L / nseg)  # per compartment
    cell.set("axial_resistivity", 100.0)
    cell.set("capacitance", 1.0)
    cell.set("v", -65.0)
    views = {"soma": cell.branch(0), "dend": cell.branch(list(range(1, len(secs))))}
    for r, (gna, gk, gl) in NOMINAL.items():
        for key, g in (("HH_gNa", gna), ("HH_gK", gk), ("HH_gLeak", gl)):
            views[r].set(key, g * 1e-3)
    cell.init_states()
    on, off, amp = STIM
    cell.branch(0).comp(0).stimulate(jx.step_current(on, off - on, amp, dt, T_END), verbose=False)
    cell.branch(0).comp(0).record("v", verbose=False)
    keys = ("HH_gNa", "HH_gK", "HH_gLeak")

    def soma_v(state):
        return jx.integrate(cell, param_state=state, delta_t=dt, solver=solver, voltage_solver=voltage_solver,
                            t_max=T_END)[0]  # fmt: skip

    def ensemble(scales):
        state = None
        for (r, i), s in zip(VARIED, scales, strict=True):
            state = views[r].data_set(keys[i], NOMINAL[r][i] * 1e-3 * s, state)
        return soma_v(state)

    stride = round(SAVE_DT / dt)

    def loss(p):
        state = None
        for k, (r, i) in enumerate((r, i) for r in NOMINAL for i in range(3)):
            state = views[r].data_set(keys[i], p[k], state)
        v = soma_v(state)[::stride][: v_target.shape[0]]
        return jnp.mean((v - v_target) ** 2)

    scales = jnp.asarray(members(n_members))
    return dict(
        ens=(jax.jit(jax.vmap(ensemble, in_axes=1)), (scales,)),
        nominal=lambda: np.asarray(jax.jit(lambda: soma_v(None))()),
        grad_rev=(jax.jit(jax.value_and_grad(loss)), None),
        ts=np.arange(round(T_END / dt) + 1) * dt,
    )


def peer_main(args):
    """Serve Jaxley calls: print a JSON 'ready' line, then one JSON line per request read from stdin."""
    import jax

    jax.config.update("jax_enable_x64", args.dtype == "float64")
    import jax.numpy as jnp
    import jaxley

    if args.convergence:
        rows = []
        for solver in ("crank_nicolson", "bwd_euler", "exp_euler"):
            for dt in (0.025, 0.0125, 0.00625, 0.003125, 0.0015625):
                c = jaxley_calls(dt, solver, 1)
                v = c["nominal"]()
                rows.append({"solver": solver, "dt": dt, "spikes": crossings(c["ts"], v)[0]})
        print(json.dumps({"rows": rows, "version": jaxley.__version__, "jax": jax.__version__}), flush=True)
        return
    v_target = jnp.asarray(json.loads(sys.stdin.readline())["v_target"])
    calls = {}
    ready = {"version": jaxley.__version__, "jax": jax.__version__, "tiers": {}}
    for tier, (_, solver, dt) in TIERS.items():
        c = jaxley_calls(dt, solver, args.members, v_target if tier == GRAD_TIER else None)
        fn, a = c["ens"]
        ready["tiers"][tier] = {"compile_s": timed_call(fn, *a)}
        calls[tier] = (fn, a)
        V = np.asarray(fn(*a))
        ready["tiers"][tier]["spikes"] = crossings(c["ts"], V[: args.check])
        ready["tiers"][tier]["nan"] = int(np.isnan(V).any(axis=1).sum())
        if tier == GRAD_TIER:
            g, _ = c["grad_rev"]
            x = p0(jnp.float64 if args.dtype == "float64" else jnp.float32, 1e-3)
            ready["grad_compile_s"] = timed_call(g, x)
            value, grad = g(x)
            ready["loss"], ready["grad"] = float(value), (np.asarray(grad) * 1e-3).tolist()  # per mS/cm²
            calls["grad"] = (g, (x,))
    print(json.dumps(ready), flush=True)
    serve(calls)


class PeerProcess:
    """A peer simulator in a Python of its own, run as `cmd`, timed one call at a time over lines of JSON.

    The peer prints a JSON 'ready' line (after reading `first_line`, if one is given), then answers each call name
    it reads with `{"s": seconds}` (`serve`), until "quit". The other benchmarks of a peer against difflab use it.
    """

    def __init__(self, cmd, first_line=None):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if first_line is not None:
            self.send(first_line)
        self.ready = self.read()

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self):
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the peer process ended (rc {self.proc.wait()})")
        return json.loads(line)

    def call(self, name):
        self.send(name)
        return self.read()["s"]

    def close(self):
        self.send("quit")
        self.proc.wait()


def serve(calls):
    """The peer's side of `PeerProcess`: time `calls[name]` (a function and its arguments) for each name read from
    stdin, one JSON line each, until "quit"."""
    for line in sys.stdin:
        name = line.strip()
        if name == "quit":
            return
        fn, a = calls[name]
        print(json.dumps({"s": timed_call(fn, *a)}), flush=True)


# ---------------------------------------------------------------- report
def reference(n_check):
    """Spike times of the first members and the nominal somatic trace, difflab at `REF_DT`, float64."""
    import jax.numpy as jnp

    c = difflab_calls(jnp.float64, REF_DT, n_check)
    fn, a = c["ens"]
    V = np.asarray(fn(*a)).T
    return crossings(c["ts"], V), c["nominal"]()


def convergence(args):
    import jax
    import jax.numpy as jnp

    _, v_ref = reference(args.check)
    nominal_ref = crossings(np.arange(v_ref.shape[0]) * SAVE_DT, v_ref)
    print(f"reference: difflab at dt {REF_DT} ms, nominal spikes {np.round(nominal_ref[0], 5).tolist()}")
    print("| simulator | solver | dt (ms) | nominal max spike-time error (ms) |")
    print("|---|---|---|---|")
    for dt in (0.05, 0.04, 1 / 30, 0.025, 0.0125):
        c = difflab_calls(jnp.float64, dt, 1)
        err = spike_error(crossings(c["ts"], c["nominal"]()), nominal_ref)
        print(f"| difflab | CableRushLarsenCN | {dt:.4g} | {err:.5f} |")
    if args.peer_python:
        cmd = [args.peer_python, __file__, "--peer", "--convergence", "--dtype", "float64"]
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[-1])
        for row in out["rows"]:
            err = spike_error([row["spikes"]], nominal_ref)
            print(f"| Jaxley {out['version']} | {row['solver']} | {row['dt']:.4g} | {err:.5f} |")
    print(f"jax {jax.__version__}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--check", type=int, default=8, help="members whose spike times are checked")
    parser.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    parser.add_argument("--peer", action="store_true", help="run the Jaxley half only (JSON on stdout)")
    parser.add_argument("--peer-python", help="python of the Jaxley environment")
    parser.add_argument("--convergence", action="store_true", help="spike-time error against the step instead")
    args = parser.parse_args()
    if args.peer:
        peer_main(args)
        return
    import jax
    import jax.numpy as jnp

    import difflab

    if args.convergence:
        convergence(args)
        return
    dtype = jnp.float64 if args.dtype == "float64" else jnp.float32
    load = [os.getloadavg()]
    ref, v_ref = reference(args.check)
    peer = None
    if args.peer_python:
        cmd = [args.peer_python, __file__, "--peer", "--dtype", args.dtype, "--members", str(args.members),
               "--check", str(args.check)]  # fmt: skip
        peer = PeerProcess(cmd, json.dumps({"v_target": np.asarray(v_ref).tolist()}))
    calls, rows = {}, {}
    for tier, (dt, _, _) in TIERS.items():
        c = difflab_calls(dtype, dt, args.members, jnp.asarray(v_ref, dtype))
        fn, a = c["ens"]
        compile_s = timed_call(fn, *a)
        V = np.asarray(fn(*a)).T
        rows[tier] = {"dt": dt, "compile_s": compile_s, "err": spike_error(crossings(c["ts"], V[: args.check]), ref),
                      "nan": int(np.isnan(V).any(axis=1).sum())}  # fmt: skip
        calls[tier] = (fn, a)
        if tier == GRAD_TIER:
            for mode in ("grad_fwd", "grad_rev"):
                g, _ = c[mode]
                x = p0(dtype)
                rows[mode] = {"compile_s": timed_call(g, x)}
                value, grad = g(x)
                rows[mode]["loss"], rows[mode]["grad"] = float(value), np.asarray(grad).tolist()
                calls[mode] = (g, (x,))
    times = {k: [] for k in [*calls, *(f"jaxley {t}" for t in TIERS), "jaxley grad"]}
    for _ in range(args.repeats):  # alternation: difflab, Jaxley, difflab, ...
        for tier in TIERS:
            times[tier].append(timed_call(*calls[tier][:1], *calls[tier][1]))
            if peer:
                times[f"jaxley {tier}"].append(peer.call(tier))
        for mode in ("grad_fwd", "grad_rev"):
            times[mode].append(timed_call(*calls[mode][:1], *calls[mode][1]))
        if peer:
            times["jaxley grad"].append(peer.call("grad"))
    load.append(os.getloadavg())
    if peer:
        peer.close()
    med = {k: float(np.median(v)) if v else float("nan") for k, v in times.items()}
    print(f"# branched cell, 113 compartments, {args.members} members, {args.dtype}, medians of {args.repeats}")
    print(f"load average (1, 5, 15 min) before {load[0]}, after {load[1]}; CPUs: {os.cpu_count()}")
    jx_version = f"Jaxley {peer.ready['version']} (jax {peer.ready['jax']})" if peer else "no Jaxley"
    print(f"difflab {difflab.__version__}, jax {jax.__version__}; {jx_version}")
    print(f"reference: difflab dt {REF_DT} ms, float64; spike times checked on the first {args.check} members")
    print()
    print("| tier | difflab dt | difflab (s) | err (ms) | NaN | Jaxley | Jaxley (s) | err (ms) | NaN | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for tier, (dt, solver, jdt) in TIERS.items():
        d = rows[tier]
        j = peer.ready["tiers"][tier] if peer else None
        jcols = (f"{solver} dt {jdt} | {med['jaxley ' + tier]:.3f} | {spike_error(j['spikes'], ref):.5f} | "
                 f"{j['nan']} | {med['jaxley ' + tier] / med[tier]:.2f}×") if j else "– | – | – | – | –"  # fmt: skip
        print(f"| {tier} | {dt} | {med[tier]:.3f} | {d['err']:.5f} | {d['nan']} | {jcols} |")
    print()
    print("| gradient of trace MSE wrt 6 densities | time (s) | loss (mV²) | Jaxley reverse (s) | speed-up |")
    print("|---|---|---|---|---|")
    for mode, label in (("grad_fwd", "difflab forward mode"), ("grad_rev", "difflab reverse mode")):
        jt = med["jaxley grad"]
        print(f"| {label} | {med[mode]:.3f} | {rows[mode]['loss']:.4f} | {jt:.3f} | {jt / med[mode]:.2f}× |")
    print()
    print("difflab gradient (mV² per mS/cm²):", np.round(rows["grad_rev"]["grad"], 5).tolist())
    if peer:
        print("Jaxley gradient  (mV² per mS/cm²):", np.round(peer.ready["grad"], 5).tolist(),
              f"loss {peer.ready['loss']:.4f}")  # fmt: skip
    compiled = {k: round(v["compile_s"], 1) for k, v in rows.items()}
    if peer:
        compiled |= {f"Jaxley {k}": round(v["compile_s"], 1) for k, v in peer.ready["tiers"].items()}
        compiled["Jaxley grad"] = round(peer.ready["grad_compile_s"], 1)
    print("first call, compilation included (s):", compiled)


if __name__ == "__main__":
    main()
