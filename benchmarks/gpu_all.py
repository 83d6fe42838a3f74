"""Every GPU figure in one run: HH ensembles against Jaxley 0.14, Jaynes–Cummings against dynamiqs 0.3.7.

Rows (one device, the backend JAX picks; medians of `--repeats` runs after compilation, difflab and its peer
timed in alternation):

- HH ensemble, 1000 and 100 000 members, tiers 0.05 ms and 0.01 ms, float32 and float64: difflab's default
  (`RushLarsenCN`, fixed steps, the `lax.scan` loop that `simulate(loop="auto")` takes on an accelerator) against
  Jaxley's `crank_nicolson` (problem and tiers of `hh_ensemble.py`); plus difflab with `loop="while"` (diffrax's
  loop) to show what the scan changes;
- the gradient of the trace MSE wrt (gNa, gK, gL) at the 0.05 ms tier (difflab forward mode, Jaxley reverse);
- an L5PC ensemble (`difflab.neuron.l5pc()`, 699 compartments, Hay's channels and calcium): 100 and 1000 members
  with the somatic Na and K densities drawn per member, a 1.9 nA pulse of 3 ms at 5 ms, 30 ms at a step of
  0.0125 ms, soma V saved every 0.1 ms; difflab only (no peer row yet: Jaxley has no reader for this cell);
- JC N = 30 `mesolve` and the 100-κ ensemble (difflab: one batched solve, the accelerator default; dynamiqs: its
  batched `mesolve` over the jump operators), problems of `quantum_problems.py`; difflab with `diffrax.Tsit5`
  (the accelerator default) and with `UnrolledTsit5`.

Sections run in order of importance (HH at the first member count, quantum, L5PC, HH at the others) and a
section that would start after `--deadline` seconds is skipped, so that a run on a lent machine with a time limit
prints whole rows. Run on a fresh machine with `benchmarks/gpu_all.sh` (makes a venv with the `bench` extra).
`--smoke` runs every row tiny (a few members, short times) to check the script on a CPU; its figures mean nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata as md
import os
import platform
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hh_ensemble as HH
import quantum_problems as P

import difflab
import difflab.datasets

ROWS: list[tuple[str, ...]] = []
START = time.perf_counter()


def alternate(calls: dict, repeats: int) -> dict:
    """Median wall time of each `name -> (context, fn)`, compiled first, then timed in alternation."""
    for ctx, fn in calls.values():
        with ctx():
            jax.block_until_ready(fn())
    times = {name: [] for name in calls}
    for _ in range(repeats):
        for name, (ctx, fn) in calls.items():
            with ctx():
                start = time.perf_counter()
                jax.block_until_ready(fn())
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def row(*cells):
    ROWS.append(tuple(str(c) for c in cells))
    print("| " + " | ".join(ROWS[-1]) + " |", flush=True)


# ------------------------------------------------------------------------------------------------ HH
def hh_rows(members: int, repeats: int, with_jaxley: bool, smoke: bool):
    rng = np.random.default_rng(0)
    gNa, gK = rng.uniform(80.0, 160.0, members), rng.uniform(24.0, 48.0, members)
    ref = difflab.datasets.load("hh/hh_step_10uA")
    for dtype_name, dtype in (("float32", jnp.float32), ("float64", jnp.float64)):
        x64_off = (lambda: jax.enable_x64(False)) if dtype == jnp.float32 else contextlib.nullcontext
        for tier in HH.DIFFLAB_DT:
            d = HH.difflab_calls(ref, dtype, tier)
            a, b = jnp.asarray(gNa, dtype), jnp.asarray(gK, dtype)
            calls = {"difflab": (contextlib.nullcontext, lambda d=d, a=a, b=b: d["run"](a, b))}
            calls["difflab while"] = (contextlib.nullcontext, _while_variant(ref, dtype, tier, a, b))
            if with_jaxley:
                with x64_off():
                    j = HH.jaxley_calls(ref, dtype, tier)
                    ja, jb = jnp.asarray(gNa * 1e-3, dtype), jnp.asarray(gK * 1e-3, dtype)
                calls["jaxley"] = (x64_off, lambda j=j, a=ja, b=jb: j["run"](a, b))
            grads = {}
            if tier == HH.GRAD_TIER:
                grads["difflab"] = (contextlib.nullcontext, lambda d=d: d["grad"](d["p0"]))
                if with_jaxley:
                    grads["jaxley"] = (x64_off, lambda j=j: j["grad"](j["p0"]))
            walls = alternate({**calls, **{k + " grad": v for k, v in grads.items()}}, repeats)
            err = HH.spike_error(d["ts"], d["nominal"](), ref.spike_times.values[0][:7])
            jax_s = walls.get("jaxley", float("nan"))
            row(f"HH {members} members", tier, dtype_name, f"{walls['difflab']:.4f}", f"{walls['difflab while']:.4f}",
                f"{jax_s:.4f}", f"{jax_s / walls['difflab']:.2f}×", f"{err:.4f}" if not smoke else "–")  # fmt: skip
            if grads:
                jg = walls.get("jaxley grad", float("nan"))
                row("HH gradient (gNa, gK, gL)", tier, dtype_name, f"{walls['difflab grad']:.4f}", "–",
                    f"{jg:.4f}", f"{jg / walls['difflab grad']:.2f}×", "–")  # fmt: skip


def _while_variant(ref, dtype, tier, a, b):
    dt = HH.DIFFLAB_DT[tier]
    ts = (jnp.arange(round(HH.T_END / HH.SAVE_DT) + 1) * HH.SAVE_DT).astype(dtype)
    base = difflab.neuron.HodgkinHuxley.squid_axon(dtype)
    protocol = difflab.Step(10.0, 10.0, 110.0)

    @jax.jit
    def run(gNa, gK):
        model = base.replace(gNa=gNa, gK=gK)
        observe = lambda t, y, p: {"V": y["V"]}  # noqa: E731
        return difflab.simulate(model, protocol, ts, dt0=dt, loop="while", observe=observe).ys["V"]

    return lambda: run(a, b)


def unroll_rows(members: int, unrolls: list[int], repeats: int, with_jaxley: bool):
    """difflab's scan with `unrolls` steps per loop iteration (the accelerator default's measurement)."""
    from difflab.core import _backend

    rng = np.random.default_rng(0)
    gNa, gK = rng.uniform(80.0, 160.0, members), rng.uniform(24.0, 48.0, members)
    ref = difflab.datasets.load("hh/hh_step_10uA")
    default = _backend.ACCELERATOR_SCAN_UNROLL
    for dtype_name, dtype in (("float64", jnp.float64), ("float32", jnp.float32)):
        x64_off = (lambda: jax.enable_x64(False)) if dtype == jnp.float32 else contextlib.nullcontext
        for tier in HH.DIFFLAB_DT:
            a, b = jnp.asarray(gNa, dtype), jnp.asarray(gK, dtype)
            calls, first = {}, {}
            for k in unrolls:
                _backend.ACCELERATOR_SCAN_UNROLL = k  # read when the solve is traced (each call builds a new jit)
                d = HH.difflab_calls(ref, dtype, tier)
                start = time.perf_counter()
                jax.block_until_ready(d["run"](a, b))
                first[k] = time.perf_counter() - start
                calls[f"unroll {k}"] = (contextlib.nullcontext, lambda d=d, a=a, b=b: d["run"](a, b))
                if tier == HH.GRAD_TIER:
                    calls[f"unroll {k} grad"] = (contextlib.nullcontext, lambda d=d: d["grad"](d["p0"]))
            _backend.ACCELERATOR_SCAN_UNROLL = default
            if with_jaxley:
                with x64_off():
                    j = HH.jaxley_calls(ref, dtype, tier)
                    ja, jb = jnp.asarray(gNa * 1e-3, dtype), jnp.asarray(gK * 1e-3, dtype)
                calls["jaxley"] = (x64_off, lambda j=j, a=ja, b=jb: j["run"](a, b))
                if tier == HH.GRAD_TIER:
                    calls["jaxley grad"] = (x64_off, lambda j=j: j["grad"](j["p0"]))
            walls = alternate(calls, repeats)
            jax_s, jg = walls.get("jaxley", float("nan")), walls.get("jaxley grad", float("nan"))
            for k in unrolls:
                w = walls[f"unroll {k}"]
                row(f"HH {members} members, scan unroll {k}", tier, dtype_name, f"{w:.4f}", "–", f"{jax_s:.4f}",
                    f"{jax_s / w:.2f}×", f"first call {first[k]:.1f} s")  # fmt: skip
                if f"unroll {k} grad" in walls:
                    g = walls[f"unroll {k} grad"]
                    row(f"HH gradient, scan unroll {k}", tier, dtype_name, f"{g:.4f}", "–", f"{jg:.4f}",
                        f"{jg / g:.2f}×", "–")  # fmt: skip


# ------------------------------------------------------------------------------------------------ quantum
def quantum_rows(repeats: int, with_dynamiqs: bool, smoke: bool):
    import diffrax

    import difflab.quantum as q

    kappas = P.KAPPAS[:4] if smoke else P.KAPPAS
    t_jc = P.T_JC[:50] if smoke else P.T_JC
    a, sm, psi0 = P.jc_operators(q)
    Hc = a.conj().T @ sm + a @ sm.conj().T
    exp_ops = [a.conj().T @ a, sm.conj().T @ sm]
    tol = diffrax.PIDController(rtol=P.RTOL, atol=P.ATOL)
    calls = {}
    for name, solver in (("Tsit5", diffrax.Tsit5()), ("UnrolledTsit5", difflab.UnrolledTsit5())):
        one = dict(exp_ops=exp_ops, stepsize_controller=tol, solver=solver)
        calls[f"difflab {name} jc"] = lambda one=one: q.mesolve(Hc, psi0, t_jc, jump_ops=[np.sqrt(P.KAPPA) * a],
                                                                 **one).expects  # fmt: skip
        jumps = [np.sqrt(kappas)[:, None, None] * a]
        for strategy in ("vmap", "map"):
            calls[f"difflab {name} jc100 {strategy}"] = lambda one=one, s=strategy, jumps=jumps: q.mesolve(
                Hc, psi0, t_jc, jump_ops=jumps, batching=q.Batching(strategy=s), **one).expects  # fmt: skip
    if with_dynamiqs:
        import dynamiqs as dq

        dq.set_precision("double")
        da, dsm, dpsi0 = P.jc_operators(dq)
        dH = da.dag() @ dsm + da @ dsm.dag()
        dexp = [da.dag() @ da, dsm.dag() @ dsm]
        method = dq.method.Tsit5(rtol=P.RTOL, atol=P.ATOL)
        rho0 = dpsi0.todm()
        opts = dict(exp_ops=dexp, method=method, save_states=False, progress_meter=False)
        calls["dynamiqs jc"] = lambda: dq.mesolve(dH, [np.sqrt(P.KAPPA) * da], rho0, t_jc, **opts).expects
        batched = [dq.stack([np.sqrt(k) * da for k in kappas])]  # one batched solve over the jump operators
        calls["dynamiqs jc100"] = lambda: dq.mesolve(dH, batched, rho0, t_jc, **opts).expects
    walls = alternate({k: (contextlib.nullcontext, v) for k, v in calls.items()}, repeats)
    for task in ("jc", "jc100"):
        peer = walls.get(f"dynamiqs {task}", float("nan"))
        for name in ("Tsit5", "UnrolledTsit5"):
            keys = (
                [f"difflab {name} {task}"] if task == "jc" else [f"difflab {name} {task} {s}" for s in ("vmap", "map")]
            )
            for key in keys:
                label = "JC N = 30" if task == "jc" else f"JC × {len(kappas)} κ ({key.split()[-1]})"
                row(label, name, "float64", f"{walls[key]:.4f}", "–", f"{peer:.4f}", f"{peer / walls[key]:.2f}×", "–")


# ------------------------------------------------------------------------------------------------ L5PC
L5PC_T_END, L5PC_DT, L5PC_SAVE = 30.0, 0.0125, 0.1


def l5pc_rows(members_list: list[int], repeats: int, smoke: bool):
    from difflab.neuron import IClamp

    t_end = 2.0 if smoke else L5PC_T_END
    ts = np.arange(round(t_end / L5PC_SAVE) + 1) * L5PC_SAVE
    clamp = IClamp({"soma[0](0.5)": difflab.Step(1.9, 5.0, 8.0)})
    base = difflab.neuron.l5pc()
    observe, info = base.recorder(["soma[0](0.5)"])
    names = ("soma.gbar_NaTs2_t", "soma.gbar_SKv3_1")
    nominal = {n: float(base.parameters()[n]) for n in names}
    for dtype_name, dtype in (("float32", jnp.float32), ("float64", jnp.float64)):
        cell = base.astype(dtype)

        @jax.jit
        def run(values, cell=cell, dtype=dtype):
            def one(v):
                model = cell.replace(**dict(zip(names, v, strict=True)))
                traj = difflab.simulate(model, clamp, jnp.asarray(ts, dtype), dt0=L5PC_DT, observe=observe,
                                        observe_info=info)  # fmt: skip
                return traj.ys["soma[0](0.5)"]

            return jax.vmap(one)(values)

        for members in members_list:
            rng = np.random.default_rng(0)
            values = np.stack([nominal[n] * rng.uniform(0.8, 1.2, members) for n in names], axis=1)
            values = jnp.asarray(values, dtype)
            start = time.perf_counter()
            V = jax.block_until_ready(run(values))
            first = time.perf_counter() - start
            wall = alternate({"l5pc": (contextlib.nullcontext, lambda v=values: run(v))}, repeats)["l5pc"]
            spiking = int(np.sum(np.nanmax(np.asarray(V), axis=-1) > 0.0))
            nan = int(np.isnan(np.asarray(V)).any(-1).sum())
            row(f"L5PC {members} members, {t_end:g} ms", f"dt {L5PC_DT}", dtype_name, f"{wall:.4f}", "–", "–", "–",
                f"first call {first:.1f} s; {spiking}/{members} spike; NaN {nan}")  # fmt: skip


def versions() -> str:
    names = ("difflab", "jax", "jaxlib", "diffrax", "equinox", "jaxley", "dynamiqs")
    found = []
    for n in names:
        with contextlib.suppress(md.PackageNotFoundError):
            found.append(f"{n} {md.version(n)}")
    return ", ".join(found)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: checks the script, figures mean nothing")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--members", type=int, nargs="+", default=[1000, 100_000])
    parser.add_argument("--no-peers", action="store_true", help="skip Jaxley and dynamiqs")
    parser.add_argument("--only", choices=("hh", "quantum", "l5pc", "unroll"), default=None)
    parser.add_argument("--unrolls", type=int, nargs="+", default=[1, 4, 16], help="scan unrolls (--only unroll)")
    parser.add_argument("--l5pc-members", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--deadline", type=float, default=float("inf"), help="skip sections starting after this (s)")
    args = parser.parse_args()
    if args.smoke:
        HH.T_END, args.members, args.repeats, args.l5pc_members = 12.0, [8], 1, [2]
    device = jax.devices()[0]
    print(f"# {device.platform}: {getattr(device, 'device_kind', device)}; {versions()}")
    print(f"# python {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| problem | tier / solver | dtype | difflab (s) | difflab, diffrax loop (s) | peer (s) | peer / difflab "
          "| nominal spike error (ms) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    hh = [(f"HH {m}", hh_rows, (m, args.repeats, not args.no_peers, args.smoke)) for m in args.members]
    sections = hh[:1] if args.only in (None, "hh") else []
    if args.only in (None, "quantum"):
        sections.append(("quantum", quantum_rows, (args.repeats, not args.no_peers, args.smoke)))
    if args.only in (None, "l5pc"):
        sections.append(("L5PC", l5pc_rows, (args.l5pc_members, args.repeats, args.smoke)))
    if args.only in (None, "hh"):
        sections += hh[1:]
    if args.only == "unroll":
        sections = [("unroll", unroll_rows, (args.members[0], args.unrolls, args.repeats, not args.no_peers))]
    for name, fn, fn_args in sections:  # one failing section (a peer's API, memory) must not cost the others
        if time.perf_counter() - START > args.deadline:
            print(f"| {name} | skipped: past the deadline of {args.deadline:g} s |", flush=True)
            continue
        print(f"# {name} from {time.perf_counter() - START:.0f} s", flush=True)
        try:
            fn(*fn_args)
        except Exception as error:
            print(f"| {name} | FAILED: {type(error).__name__}: {str(error)[:300]} |", flush=True)
    print(f"# done in {time.perf_counter() - START:.0f} s", flush=True)


if __name__ == "__main__":
    main()
