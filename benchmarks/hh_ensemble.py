"""Hodgkin–Huxley ensemble and gradient benchmark: difflab against Jaxley 0.14, side by side.

Protocol (both simulators): squid axon (NEURON ``hh``), 1000 parameter sets gNa ~ U[80, 160],
gK ~ U[24, 48] mS/cm², gL = 0.3 mS/cm², a 10 µA/cm² step on [10, 110) ms, t in [0, 120] ms.
difflab saves V every 0.025 ms (dense output of its solver); Jaxley records V at every one of its steps.

Two accuracy tiers, judged on the nominal parameter set against NEURON 9 (CVODE, 1e-11):
all 7 spike times within 0.05 ms, and within 0.01 ms. Each tier compares difflab's default solver
(``RushLarsenCN``) at the step that reaches the tier with Jaxley's fastest solver for it
(``crank_nicolson`` at dt = 0.04 and 0.02 ms). Reported: median wall time after compilation
(float64 and float32), NaN traces, the nominal spike-time error, and value and gradient of the
trace MSE against the NEURON trace with respect to (gNa, gK, gL) (difflab: forward mode, three
tangents in one pass; Jaxley: ``jax.value_and_grad``, reverse mode through its scan).

Timing: all variants of one tier are compiled first, then timed in alternation (A, B, A, B, ...)
so that both simulators see the same machine load; the speed-up is the ratio of the medians.
By default the process has one CPU device and each simulator uses the cores through XLA's own
threading, as users get it. With ``--cpu-devices N`` the process exposes N CPU devices and *both*
simulators split the members over them with ``jax.shard_map`` (one block of members per core).
With ``--cores N`` the process runs on its first N cores only (as ``taskset``): XLA then sizes its thread pool and
splits its kernels for N cores (benchmarks/README.md, "One core against two").

Run:  python benchmarks/hh_ensemble.py [--members 1000] [--repeats 7] [--cores N] [--no-jaxley] [--convergence]
Jaxley is a benchmark-only dependency (``pip install "jaxley==0.14.*"``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec

import difflab
import difflab.datasets
from difflab.neuron import HodgkinHuxley, spike_times

T_END = 120.0
SAVE_DT = 0.025
#: difflab's step per tier: the largest with 10 ms a whole number of steps (pulse edges on step boundaries) that stays
#: 10 % inside the tier, with every smaller step inside it too (docs/hh_convergence.md; with the exponential voltage
#: update the nominal errors are 0.0388 ms at 10/90 and 0.0090 ms at 10/288)
DIFFLAB_DT = {"0.05 ms": 10 / 90, "0.01 ms": 10 / 288}
#: Jaxley's fastest solver per tier: crank_nicolson at these steps
JAXLEY_DT = {"0.05 ms": 0.04, "0.01 ms": 0.02}
TIER_TOL = {"0.05 ms": 0.05, "0.01 ms": 0.01}
#: the gradient is timed at the 0.05 ms tier
GRAD_TIER = "0.05 ms"


def median_time(fn, *args, repeats: int, clock=time.perf_counter) -> float:
    jax.block_until_ready(fn(*args))  # compile
    times = []
    for _ in range(repeats):
        start = clock()
        jax.block_until_ready(fn(*args))
        times.append(clock() - start)
    return float(np.median(times))


def interleaved_medians(calls: dict, repeats: int) -> dict:
    """Median wall time of each ``name -> (context factory, fn, args)``, timed in alternation."""
    for make_ctx, fn, args in calls.values():  # compile (and warm up) everything first
        with make_ctx():
            jax.block_until_ready(fn(*args))
    times = {name: [] for name in calls}
    for _ in range(repeats):
        for name, (make_ctx, fn, args) in calls.items():
            with make_ctx():
                start = time.perf_counter()
                jax.block_until_ready(fn(*args))
                times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def split_over_devices(fn, n_args: int, out_spec):
    """``fn`` applied to blocks of members, one block per CPU device (``jax.shard_map``)."""
    mesh = Mesh(np.array(jax.devices()), ("member",))
    specs = (PartitionSpec("member"),) * n_args
    return jax.jit(jax.shard_map(fn, mesh=mesh, in_specs=specs, out_specs=out_spec, check_vma=False))


def spike_error(ts, V, ref_spikes) -> float:
    got = np.asarray(spike_times(jnp.asarray(ts), jnp.asarray(V)))
    got = got[~np.isnan(got)]
    if len(got) != len(ref_spikes):
        return float("inf")
    return float(np.max(np.abs(got - ref_spikes)))


# ---------------------------------------------------------------- difflab
def difflab_calls(ref, dtype, tier):
    """difflab's ensemble (one device and split over the CPU devices), gradient and checks for one tier."""
    dt = DIFFLAB_DT[tier]
    nsteps = round(T_END / dt)
    ts = (jnp.arange(round(T_END / SAVE_DT) + 1) * SAVE_DT).astype(dtype)
    protocol = difflab.Step(10.0, 10.0, 110.0)
    base = HodgkinHuxley.squid_axon(dtype)
    v_ref = jnp.asarray(ref.V.values[0, : ts.shape[0]], dtype)

    def voltage(gNa, gK):
        # parameters with a member axis: one vectorised solve, V saved as (time, member)
        model = base.replace(gNa=gNa, gK=gK)
        traj = difflab.simulate(model, protocol, ts, dt0=dt, max_steps=nsteps, observe=lambda t, y, a: {"V": y["V"]})
        return traj.ys["V"]

    def loss(p):
        model = base.replace(gNa=p[0], gK=p[1], gL=p[2])
        traj = difflab.simulate(
            model,
            protocol,
            ts,
            dt0=dt,
            max_steps=nsteps,
            adjoint=diffrax.ForwardMode(),
            observe=lambda t, y, a: {"V": y["V"]},
        )
        return jnp.mean((traj.ys["V"] - v_ref) ** 2)

    def value_and_grad(p):
        # three parameters: forward mode (one pass carrying three tangents) beats reverse mode
        tangents = jnp.eye(p.shape[0], dtype=p.dtype)
        value, grad = jax.vmap(lambda t: jax.jvp(loss, (p,), (t,)), out_axes=(None, 0))(tangents)
        return value, grad

    run = jax.jit(voltage)
    return dict(
        dt=dt,
        ts=ts,
        run=run,
        run_split=split_over_devices(voltage, 2, PartitionSpec(None, "member")),
        grad=jax.jit(value_and_grad),
        p0=jnp.asarray([120.0, 36.0, 0.3], dtype),
        nominal=lambda: np.asarray(run(jnp.asarray(120.0, dtype), jnp.asarray(36.0, dtype))),
        time_axis=0,
    )


# ---------------------------------------------------------------- Jaxley
def jaxley_calls(ref, dtype, tier):
    """Jaxley's ensemble (one device and split over the CPU devices), gradient and checks for one tier."""
    import jaxley as jx
    from jaxley.channels import HH

    dt = JAXLEY_DT[tier]
    comp = jx.Compartment()
    comp.insert(HH())
    # area 2 pi r L = 100 µm², so 0.001 nA = 1 µA/cm² (as in the NEURON reference)
    comp.set("radius", 1.0)
    comp.set("length", 100.0 / (2 * np.pi))
    comp.set("capacitance", 1.0)
    comp.set("v", -65.0)
    comp.init_states()
    comp.stimulate(jx.step_current(10.0, 100.0, 0.01, dt, T_END), verbose=False)
    comp.record("v", verbose=False)
    ts = np.arange(round(T_END / dt) + 1) * dt
    v_ref = np.interp(ts, ref.time.values, ref.V.values[0])

    def simulate(a, b):
        state = comp.data_set("HH_gNa", a, None)
        state = comp.data_set("HH_gK", b, state)
        return jx.integrate(comp, param_state=state, delta_t=dt, solver="crank_nicolson", t_max=T_END)[0]

    def loss(p):
        state = comp.data_set("HH_gNa", p[0], None)
        state = comp.data_set("HH_gK", p[1], state)
        state = comp.data_set("HH_gLeak", p[2], state)
        v = jx.integrate(comp, param_state=state, delta_t=dt, solver="crank_nicolson", t_max=T_END)[0, : ts.shape[0]]
        return jnp.mean((v - jnp.asarray(v_ref, v.dtype)) ** 2)

    return dict(
        dt=dt,
        ts=ts,
        run=jax.jit(jax.vmap(simulate)),
        run_split=split_over_devices(jax.vmap(simulate), 2, PartitionSpec("member")),
        grad=jax.jit(jax.value_and_grad(loss)),
        p0=jnp.asarray([0.12, 0.036, 0.0003], dtype),
        nominal=lambda: np.asarray(jax.jit(simulate)(jnp.asarray(0.12, dtype), jnp.asarray(0.036, dtype))),
        time_axis=1,
        scale=1e-3,  # mS/cm² -> S/cm²
    )


def run_tier(gNa, gK, ref, dtype, tier, repeats, with_jaxley):
    """Compile every variant of one tier, time them in alternation, and check NaNs and spike times."""
    x64_off = (lambda: jax.enable_x64(False)) if dtype == jnp.float32 else contextlib.nullcontext
    sims = {"difflab": (contextlib.nullcontext, difflab_calls(ref, dtype, tier))}
    if with_jaxley:
        with x64_off():
            sims["jaxley"] = (x64_off, jaxley_calls(ref, dtype, tier))
    calls, inputs = {}, {}
    for name, (ctx, c) in sims.items():
        scale = c.get("scale", 1.0)
        with ctx():
            a, b = jnp.asarray(gNa * scale, dtype), jnp.asarray(gK * scale, dtype)
        inputs[name] = (a, b)
        calls[name] = (ctx, c["run"] if len(jax.devices()) == 1 else c["run_split"], (a, b))
        if tier == GRAD_TIER:
            calls[name + " grad"] = (ctx, c["grad"], (c["p0"],))
    walls = interleaved_medians(calls, repeats)
    out = {}
    for name, (ctx, c) in sims.items():
        with ctx():
            V = np.asarray(c["run"](*inputs[name]))
            V = V if c["time_axis"] == 0 else V.T
            nominal = c["nominal"]()
            value, g = c["grad"](c["p0"])
        out[name] = dict(
            dt=c["dt"],
            wall=walls[name],
            grad=walls.get(name + " grad", float("nan")),
            nan=int(np.isnan(V[: len(c["ts"])]).any(axis=0).sum()),
            err=spike_error(c["ts"], nominal[: len(c["ts"])], ref.spike_times.values[0][:7]),
            loss=float(value),
            dloss=np.asarray(g),
        )
    return out


# ---------------------------------------------------------------- convergence study
CONVERGENCE_DT = (
    0.1,
    10 / 108,
    10 / 120,
    0.078125,
    10 / 136,
    10 / 140,
    0.0625,
    0.05,
    0.0390625,
    0.03125,
    0.025,
    0.0125,
)
#: the ensemble's reference spike times come from the default solver at this step
ENSEMBLE_REF_DT = 0.003125


def ensemble_spike_errors(spikes, ref_spikes):
    """Per-member max spike-time error against the reference, and the members whose spike count differs."""
    same = np.all(np.isnan(spikes) == np.isnan(ref_spikes), axis=1)
    errors = np.nanmax(np.abs(spikes - ref_spikes), axis=1, initial=0.0)
    return errors[same], int((~same).sum())


def convergence(gNa, gK, ref, repeats):
    """Rows of (solver, dt, steps, nominal max spike-time error, V RMS error, ensemble errors, CPU time), float64.

    Ensemble errors: median and 99th percentile over the members of each member's largest spike-time
    error against the same solver at ``ENSEMBLE_REF_DT``, and how many members fire a different number of
    spikes (members near the onset of firing, whose spike count flips with any perturbation).
    """
    ts = jnp.arange(round(T_END / SAVE_DT) + 1) * SAVE_DT
    protocol = difflab.Step(10.0, 10.0, 110.0)
    base = HodgkinHuxley.squid_axon()
    batch = base.replace(gNa=jnp.asarray(gNa), gK=jnp.asarray(gK))
    v_ref = ref.V.values[0, : ts.shape[0]]
    spikes_ref = ref.spike_times.values[0][:7]

    def runner(dt):
        n = round(T_END / dt)
        return jax.jit(
            lambda m: difflab.simulate(m, protocol, ts, dt0=dt, max_steps=n, observe=lambda t, y, a: {"V": y["V"]}).ys[
                "V"
            ]
        )

    def member_spikes(V):
        return np.asarray(spike_times(ts, jnp.asarray(V).T, max_spikes=20))

    ensemble_ref = member_spikes(runner(ENSEMBLE_REF_DT)(batch))
    rows = []
    for dt in CONVERGENCE_DT:
        run = runner(dt)
        V = np.asarray(run(base))
        rms = float(np.sqrt(np.mean((V - v_ref) ** 2)))
        cpu = median_time(run, batch, repeats=repeats, clock=time.process_time)
        errors, mismatched = ensemble_spike_errors(member_spikes(run(batch)), ensemble_ref)
        spread = (float(np.median(errors)), float(np.percentile(errors, 99)), mismatched)
        rows.append(("RushLarsenCN", dt, round(T_END / dt), spike_error(ts, V, spikes_ref), rms, spread, cpu))
    generic = {
        "Tsit5, fixed": (diffrax.ConstantStepSize(), 0.05),
        "Tsit5, PID rtol 1e-6 atol 1e-8": (diffrax.PIDController(rtol=1e-6, atol=1e-8), None),
    }
    nan3 = (float("nan"),) * 2 + (0,)
    for name, (controller, dt) in generic.items():
        traj = difflab.simulate(base, protocol, ts, solver=diffrax.Tsit5(), stepsize_controller=controller, dt0=dt)
        V = np.asarray(traj.ys["V"])
        rms = float(np.sqrt(np.mean((V - v_ref) ** 2)))
        steps = int(traj.stats["num_steps"])
        rows.append((name, dt or float("nan"), steps, spike_error(ts, V, spikes_ref), rms, nan3, float("nan")))
    return rows


def print_convergence(rows, members):
    print(
        "| solver | dt (ms) | steps | max spike-time error (ms) | V RMS error (mV) "
        f"| ensemble error, median / 99th pct (ms) | spike count differs | {members} members, f64, CPU s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for solver, dt, steps, err, rms, (median, p99, mismatched), cpu in rows:
        spread = "–" if np.isnan(median) else f"{median:.4f} / {p99:.3f}"
        count = "–" if np.isnan(median) else str(mismatched)
        cpu_text = "–" if np.isnan(cpu) else f"{cpu:.3f}"
        print(f"| {solver} | {dt:.4g} | {steps} | {err:.4f} | {rms:.3f} | {spread} | {count} | {cpu_text} |")


# ---------------------------------------------------------------- report
def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--cpu-devices", type=int, default=1, help="split the members over this many CPU devices")
    parser.add_argument("--cores", type=int, default=None, help="run on this many of the machine's cores (default all)")
    parser.add_argument("--no-jaxley", action="store_true")
    parser.add_argument("--convergence", action="store_true", help="print the convergence table instead")
    args = parser.parse_args()
    if args.cores is not None:  # before XLA's CPU client starts: it sizes its threads from the process's cores
        allowed = sorted(os.sched_getaffinity(0))
        if not 1 <= args.cores <= len(allowed):
            parser.error(f"--cores must be in [1, {len(allowed)}] (the cores this process may use); got {args.cores}")
        os.sched_setaffinity(0, allowed[: args.cores])
    jax.config.update("jax_num_cpu_devices", args.cpu_devices)  # before the first computation

    rng = np.random.default_rng(0)
    gNa = rng.uniform(80.0, 160.0, args.members)
    gK = rng.uniform(24.0, 48.0, args.members)
    ref = difflab.datasets.load("hh/hh_step_10uA")
    load_before = os.getloadavg()[0]
    if args.convergence:
        rows = convergence(gNa, gK, ref, args.repeats)
        print(f"load average (1 min) before/after: {load_before:.2f} / {os.getloadavg()[0]:.2f}")
        print_convergence(rows, args.members)
        return
    results = {}
    for name, dtype in (("float64", jnp.float64), ("float32", jnp.float32)):
        for tier in DIFFLAB_DT:
            results[name, tier] = run_tier(gNa, gK, ref, dtype, tier, args.repeats, not args.no_jaxley)
    load_after = os.getloadavg()[0]
    n_dev = len(jax.devices())

    print(f"# HH ensemble: {args.members} members, medians of {args.repeats} alternating runs after compilation")
    cores = f"cores in use: {len(os.sched_getaffinity(0))} of {os.cpu_count()}"
    print(f"load average (1 min) before/after: {load_before:.2f} / {load_after:.2f}; {cores}")
    how = "one device, XLA threading" if n_dev == 1 else f"members split over {n_dev} devices (jax.shard_map)"
    print(f"jax {jax.__version__}, difflab {difflab.__version__}, CPU devices: {n_dev} ({how})")
    print()
    print(
        "| tier | dtype | difflab dt | difflab (s) | NaN | nominal err (ms) | Jaxley CN dt | Jaxley (s) "
        "| NaN | nominal err (ms) | speed-up |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for tier in DIFFLAB_DT:
        for name in ("float64", "float32"):
            d = results[name, tier]["difflab"]
            j = results[name, tier].get("jaxley")
            ok = "ok" if d["err"] < TIER_TOL[tier] else "MISSES TIER"
            jcols = (
                f"{j['dt']} | {j['wall']:.4f} | {j['nan']} | {j['err']:.4f} | {j['wall'] / d['wall']:.2f}x"
                if j
                else "– | – | – | – | –"
            )
            cols = f"{d['dt']:.4g} | {d['wall']:.4f} | {d['nan']} | {d['err']:.4f} ({ok})"
            print(f"| {tier} | {name} | {cols} | {jcols} |")
    print()
    print(
        "| value_and_grad of trace MSE wrt (gNa, gK, gL) | dtype | difflab (s) | loss (mV²) | Jaxley CN (s) "
        "| loss (mV²) | speed-up |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in ("float64", "float32"):
        d = results[name, GRAD_TIER]["difflab"]
        j = results[name, GRAD_TIER].get("jaxley")
        jcols = f"{j['grad']:.4f} | {j['loss']:.2f} | {j['grad'] / d['grad']:.2f}x" if j else "– | – | –"
        steps = f"dt {d['dt']:.4g} (difflab, forward mode) / {JAXLEY_DT[GRAD_TIER]} (Jaxley, reverse mode)"
        print(f"| {steps} | {name} | {d['grad']:.4f} | {d['loss']:.2f} | {jcols} |")
    print()
    d = results["float64", GRAD_TIER]["difflab"]
    print(f"difflab gradient at the nominal parameters (mV² per mS/cm²): {d['dloss']}")


if __name__ == "__main__":
    main()
