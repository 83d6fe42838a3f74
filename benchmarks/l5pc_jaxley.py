"""The L5PC against Jaxley 0.14 with jaxley-mech 0.4's L5PC channels: accuracy against NEURON, ensemble, gradient.

The cell is `difflab.neuron.l5pc()` (Hay et al. 2011 as BluePyOpt's example builds it: 199 sections, 699
compartments, BluePyOpt's released densities, 34 °C). Jaxley gets the same cell, compartment by compartment
(`export`): the sections as branches with difflab's `nseg` and parents; each compartment's membrane area and the
resistive loads of its two halves from NEURON's frustum geometry (Jaxley's `area`, `resistive_load_in/out`, the
quantities its own SWC reader computes); `cm`, `Ra`; every channel's density per compartment after the distributions
(the apical Ih's exponential); NEURON's reversal potentials. The channels are jaxley-mech's `NaTs2T`, `NaTaT`,
`NapEt2`, `KPst`, `KTst`, `SKv3_1`, `SKE2`, `CaHVA`, `CaLVA`, `H`, `M` and Jaxley's `Leak`, with Jaxley's
`CaPump` (CaDynamics_E2's γ, decay, depth, minCai per region) and `CaNernstReversal` (its temperature set to
34 °C: Jaxley's default is 6.3 °C). Each jaxley-mech gate's steady state and time constant equal NEURON's
mechanism to 4e-6 over −100…+50 mV (`datasets/neuron/l5pc_channels.nc`). One difference is left: NEURON attaches
the dendrites to the middle of the one-compartment soma and the axon to its end, while Jaxley attaches a branch
at its parent's end only. `--split-soma` builds the soma as two branches of one compartment each, its halves,
with the dendrites at their junction and the axon at the end (`split_soma`); without it every branch meets the
soma at its end.

**Accuracy** (`--accuracy`, one cell, float64), against `datasets/neuron/l5pc.nc` (NEURON 9, CVODE at 1e-9):
the somatic spike times (upward −20 mV crossings of V sampled every 0.025 ms, linearly interpolated, against
NEURON's CVODE-interpolated ones; the sampling alone costs about 0.002 ms) under the bAP protocol (1.9 nA into the
soma over [295, 300) ms, 330 ms simulated; also the peaks at the two apical sites, 654 and 810 µm) and under
BluePyOpt's step protocols (3 s, `--protocols Step1 Step3`), for difflab and Jaxley's solvers at the given steps.

**Speed** (`--members` cells, float64 or float32): the bAP pulse moved to [2, 7) ms and 20 ms simulated (the
spike, its back-propagation and the AHP), the soma's NaTs2_t and SKv3_1 and the axon's NaTa_t and K_Pst drawn per
member from U[0.8, 1.2] × BluePyOpt's values (`numpy.random.default_rng(0)`), one vectorised solve, the somatic
V at every 0.025 ms. Gradient: value and gradient of the mean squared difference of the somatic and apical (660 µm)
traces over those 20 ms from the released cell's, with respect to the ten densities of `benchmarks/l5pc_fit.py
--ten`, at 1.1 × the released values; difflab in forward mode (the ten tangents in one pass, as `calibrate` does)
and in reverse mode (`jax.value_and_grad` through its solve, diffrax's checkpointed adjoint), Jaxley in reverse
mode (`jax.value_and_grad` through its `scan`).

Timing: compile everything, then call difflab and Jaxley in alternation (Jaxley runs in a second process that
serves one call per request, so both see the same machine load); medians of `--repeats`.

    python benchmarks/l5pc_jaxley.py --peer-python PEER_PYTHON --accuracy --protocols bAP Step1 Step3 \
        --dt 0.003125 0.0125 --jaxley crank_nicolson:0.0125 crank_nicolson:0.003125 --split-soma
    python benchmarks/l5pc_jaxley.py --peer-python PEER_PYTHON --dt 0.003125 0.0125 \
        --jaxley crank_nicolson:0.0125 crank_nicolson:0.025 --split-soma      # ensemble and gradient

The peer half (`--peer`) imports only Jaxley, jaxley-mech, JAX and NumPy
(`pip install jaxley==0.14.0 jaxley-mech==0.4.0`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np
from cells_bench import PeerProcess, crossings, serve, timed_call

SOMA = "soma[0](0.5)"
APIC = "apic[46](0.7)"
BAP = (295.0, 300.0, 1.9)  # on (ms), off (ms), nA
BAP_END = 330.0
#: the step protocols' amplitudes (nA), held from 700 to 2700 ms over a -0.126 nA hold (BluePyOpt's Step1-3)
STEPS = {"Step1": 0.458, "Step2": 0.562, "Step3": 0.95}
WINDOW = (2.0, 7.0, 1.9, 20.0)  # on, off, nA, end (ms): the speed runs
SAVE_DT = 0.025
#: difflab channel -> (jaxley-mech class, its density parameter, its reversal parameter)
CHANNELS = {
    "NaTs2_t": ("NaTs2T", "NaTs2T_gNaTs2T", "eNa"),
    "NaTa_t": ("NaTaT", "NaTaT_gNaTaT", "eNa"),
    "Nap_Et2": ("NapEt2", "NapEt2_gNapEt2", "eNa"),
    "K_Pst": ("KPst", "KPst_gKPst", "eK"),
    "K_Tst": ("KTst", "KTst_gKTst", "eK"),
    "SKv3_1": ("SKv3_1", "SKv3_1_gSKv3_1", "eK"),
    "SK_E2": ("SKE2", "SKE2_gSKE2", "eK"),
    "Ca_HVA": ("CaHVA", "CaHVA_gCaHVA", None),
    "Ca_LVAst": ("CaLVA", "CaLVA_gCaLVA", None),
    "Ih": ("H", "H_gH", "eH"),
    "Im": ("M", "M_gM", "eK"),
    "pas": ("Leak", "Leak_gLeak", "Leak_eLeak"),
}
VARIED = ("soma.gbar_NaTs2_t", "soma.gbar_SKv3_1", "axon.gbar_NaTa_t", "axon.gbar_K_Pst")
#: the ten densities of `l5pc_fit.py --ten`
FITTED = ("soma.gbar_NaTs2_t", "soma.gbar_SKv3_1", "axon.gbar_NaTa_t", "axon.gbar_K_Pst", "axon.gbar_SKv3_1",
          "apic.gbar_NaTs2_t", "axon.gbar_K_Tst", "axon.gbar_Nap_Et2", "apic.gbar_SKv3_1",
          "soma.gbar_Ca_HVA")  # fmt: skip


def members(n):
    """Scale factors of the varied densities, shape `(4, n)` (the first members do not depend on `n`)."""
    return np.random.default_rng(0).uniform(0.8, 1.2, size=(n, len(VARIED))).T


def first_spikes(t, V) -> list[float]:
    """The first upward −20 mV crossing of each row of `V` (linear interpolation); NaN where there is none."""
    return [c[0] if c else float("nan") for c in crossings(t, V, threshold=-20.0)]


# ---------------------------------------------------------------- difflab
def export(cell) -> dict:
    """The cell as per-compartment arrays for the peer (NumPy, NEURON's units, densities in S/cm²)."""
    # the half-segment resistances are internal to the morphology (its node tree sums them per edge)
    from difflab.neuron._morphology import _segment_geometry

    m = cell.morphology
    S = m.n_segments
    halves = np.concatenate([_segment_geometry(s)[1] for s in m.sections])  # MΩ per Ω·cm, (S, 2)
    out = {
        "parents": np.array([-1 if s.parent is None else m.index[s.parent] for s in m.sections]),
        "nseg": np.array([s.nseg for s in m.sections]),
        "length": np.array([s.L / s.nseg for s in m.sections for _ in range(s.nseg)]),
        "area": m.area[:S],
        # Jaxley's resistive load is ∫ dl / (π r²) in 1/µm; difflab's factor is that times 10⁻² (MΩ per Ω·cm)
        "load_in": halves[:, 0] * 100.0,
        "load_out": halves[:, 1] * 100.0,
        "cm": np.asarray(cell.per_section("cm"))[m.seg_section],
        "Ra": np.asarray(cell.per_section("Ra"))[m.seg_section],
        "v_init": float(cell.v_init),
        "celsius": float(cell.celsius),
        "regions": np.array([m.sections[k].region for k in m.seg_section]),
    }
    for name, ch, mask in cell.segment_channels():
        g = np.asarray(ch.g if name == "pas" else ch.gbar) * 1e-3  # mS/cm² -> S/cm²
        out[f"g_{name}"] = np.where(mask > 0, g, np.nan)
        out[f"E_{name}"] = np.asarray(ch.E)
    for ion, mech, mask in cell.concentration_mechanisms():
        for f in ("gamma", "decay", "depth", "minCai", "c_out", "c_init"):
            out[f"{ion}_{f}"] = np.where(mask > 0, np.asarray(getattr(mech, f)), np.nan)
    return out


def difflab_calls(dtype, dt, n_members):
    """Jitted ensemble and forward- and reverse-mode gradients of difflab at step `dt` over the speed window."""
    import diffrax
    import jax
    import jax.numpy as jnp

    import difflab
    from difflab.neuron import IClamp, l5pc

    cell = l5pc().astype(dtype)
    on, off, amp, t_end = WINDOW
    stim = IClamp({SOMA: difflab.Step(amp, on, off)})
    ts = np.arange(round(t_end / SAVE_DT) + 1) * SAVE_DT
    ts_model = jnp.asarray(ts, dtype)
    observe, info = cell.recorder([SOMA, APIC])
    steps = int(np.ceil(t_end / dt)) + 16

    def traces(model, adjoint=None):
        kw = {} if adjoint is None else {"adjoint": adjoint}
        traj = difflab.simulate(model, stim, ts_model, dt0=dt, max_steps=steps, observe=observe, observe_info=info,
                                **kw)  # fmt: skip
        return traj.ys[SOMA], traj.ys[APIC]

    params = cell.parameters()
    nominal = {n: jnp.asarray(params[cell.resolve(n)], dtype) for n in (*VARIED, *FITTED)}

    def ensemble(scales):
        values = {n: nominal[n] * s for n, s in zip(VARIED, scales, strict=True)}
        return traces(cell.replace(**values))[0]  # (time, member)

    target = jax.jit(lambda: jnp.stack(traces(cell)))()

    def loss(p, adjoint=None):
        model = cell.replace(**dict(zip(FITTED, p, strict=True)))
        return jnp.mean((jnp.stack(traces(model, adjoint)) - target) ** 2)

    def grad(p):
        tangents = jnp.eye(p.shape[0], dtype=p.dtype)
        value, dots = jax.vmap(lambda t: jax.jvp(lambda q: loss(q, diffrax.ForwardMode()), (p,), (t,)),
                               out_axes=(None, 0))(tangents)  # fmt: skip
        return value, dots

    p = jnp.asarray([1.1 * float(nominal[n]) for n in FITTED], dtype)
    return {"ens": (jax.jit(ensemble), (jnp.asarray(members(n_members), dtype),)), "grad": (jax.jit(grad), (p,)),
            "grad_rev": (jax.jit(jax.value_and_grad(loss)), (p,)), "ts": ts}  # fmt: skip


def pulses(protocol) -> list[tuple[float, float, float]]:
    """The somatic current of a protocol of `datasets/neuron/l5pc.nc` as `(on, off, nA)` steps."""
    if protocol == "bAP":
        return [BAP]
    return [(0.0, 3000.0, -0.126), (700.0, 2700.0, STEPS[protocol])]


def t_end(protocol) -> float:
    return BAP_END if protocol == "bAP" else 3000.0


def difflab_run(protocol, dt):
    """difflab's measures of `protocol` at step `dt` (None: the default step) and the wall time per simulated
    second after compilation."""
    import jax
    import jax.numpy as jnp

    import difflab
    from difflab.neuron import IClamp, l5pc

    ts = np.arange(round(t_end(protocol) / SAVE_DT) + 1) * SAVE_DT
    cell = l5pc()
    step = cell.default_dt0() if dt is None else dt
    locations = [SOMA, *(str(w) for w in difflab.datasets.load("neuron/l5pc").location.values[1:])]
    observe, info = cell.recorder(locations)
    stim = IClamp({SOMA: difflab.Sum(*(difflab.Step(a, on, off) for on, off, a in pulses(protocol)))})

    @jax.jit
    def solve(cell):
        traj = difflab.simulate(cell, stim, jnp.asarray(ts), dt0=step, max_steps=int(np.ceil(ts[-1] / step)) + 16,
                                observe=observe, observe_info=info)  # fmt: skip
        return jnp.stack([traj.ys[w] for w in locations])

    compiled = solve.lower(cell).compile()
    start = time.perf_counter()
    V = np.asarray(compiled(cell))
    wall = time.perf_counter() - start
    return {"dt": float(step), **measures(protocol, ts, V), "s_per_s": wall / (ts[-1] / 1000.0)}


def measures(protocol, ts, V) -> dict:
    """`V` (site, time) at the soma and the two apical sites: the somatic spike times (upward −20 mV crossings)
    and, for the bAP, the apical peaks after the pulse's onset."""
    out = {"spikes": crossings(ts, V[0], threshold=-20.0)[0]}
    if protocol == "bAP":
        window = ts >= BAP[0]
        out["peaks"] = [float(V[j, window].max()) for j in (1, 2)]
    return out


def neuron_reference(protocol) -> dict:
    import difflab

    ref = difflab.datasets.load("neuron/l5pc")
    spikes = ref.spike_times.sel(protocol=protocol).values
    out = {"spikes": spikes[np.isfinite(spikes)].tolist()}
    if protocol == "bAP":
        keep = ref.time_bap.values <= BAP_END
        out["peaks"] = measures("bAP", ref.time_bap.values[keep], ref.V_bap.values[keep].T.astype(float))["peaks"]
    return out


# ---------------------------------------------------------------- Jaxley (peer process)
def split_soma(spec) -> dict:
    """`spec` with the one-compartment soma as two branches of one compartment each, its halves.

    Jaxley attaches a branch at its parent's end only, while NEURON attaches the L5PC's dendrites at `soma(0.5)`
    and its axon at `soma(1)`. With the soma as two halves (the first carrying the dendrites at its end, the
    centre; the second the axon), each half has half the area and its own half-segment resistance split between
    its two ends. The compartments after the soma move up by one (`sites` included).
    """
    out = {}
    per_comp = [k for k, v in spec.items() if isinstance(v, np.ndarray) and v.shape == spec["area"].shape]
    for k in per_comp:
        out[k] = np.insert(spec[k], 1, spec[k][0])
    out["area"][:2] = spec["area"][0] / 2
    out["length"][:2] = spec["length"][0] / 2
    out["load_in"][:2] = out["load_out"][:2] = (spec["load_in"][0] / 2, spec["load_out"][0] / 2)
    first = np.concatenate([[0], np.cumsum(spec["nseg"])[:-1]])
    section_region = spec["regions"][first]
    parents = spec["parents"] + (spec["parents"] >= 1)  # the sections after the soma move up by one
    parents = np.where((spec["parents"] == 0) & (section_region == "axon"), 1, parents)
    out["parents"] = np.insert(parents, 1, 0)
    out["nseg"] = np.insert(spec["nseg"], 1, 1)
    out["sites"] = spec["sites"] + (spec["sites"] >= 1)
    return {**spec, **out}


def jaxley_cell(spec, dt, t_max, steps, sites):
    """The exported cell in Jaxley, stimulated by `steps` (on, off, nA) at the soma and recording `sites`."""
    import jaxley as jx
    from jaxley.channels import Leak
    from jaxley.pumps import CaNernstReversal, CaPump
    from jaxley_mech.channels import l5pc as mech

    comp = jx.Compartment()
    cell = jx.Cell([jx.Branch(comp, ncomp=int(n)) for n in spec["nseg"]], parents=[int(p) for p in spec["parents"]])
    for name, (cls, _, _) in CHANNELS.items():
        where = np.flatnonzero(np.isfinite(spec[f"g_{name}"]))
        if where.size == 0:
            continue
        channel = Leak() if name == "pas" else getattr(mech, cls)()
        cell.select(nodes=where).insert(channel)
    ca = np.flatnonzero(np.isfinite(spec["ca_gamma"]))
    reversal = CaNernstReversal()
    reversal.channel_constants["T"] = 273.15 + spec["celsius"]
    cell.select(nodes=ca).insert(CaPump())
    cell.select(nodes=ca).insert(reversal)
    # geometry written into Jaxley's columns (its set() would recompute area and loads from cylinders)
    cell.nodes["length"] = spec["length"]
    cell.nodes["radius"] = spec["area"] / (2 * np.pi * spec["length"])
    cell.nodes["area"] = spec["area"]
    cell.nodes["resistive_load_in"] = spec["load_in"]
    cell.nodes["resistive_load_out"] = spec["load_out"]
    cell.nodes["capacitance"] = spec["cm"]
    cell.nodes["axial_resistivity"] = spec["Ra"]
    for name, (_, gkey, ekey) in CHANNELS.items():
        g = spec[f"g_{name}"]
        if not np.isfinite(g).any():
            continue
        cell.nodes[gkey] = np.where(np.isfinite(g), g, cell.nodes[gkey])
        if ekey is not None:
            e = np.where(np.isfinite(g), spec[f"E_{name}"], np.nan)
            cell.nodes[ekey] = np.where(np.isfinite(e), e, cell.nodes[ekey])
    for f, key in (("gamma", "CaPump_gamma"), ("decay", "CaPump_decay"), ("depth", "CaPump_depth"),
                   ("minCai", "CaPump_minCaCon_i"), ("c_out", "CaCon_e"), ("c_init", "CaCon_i")):  # fmt: skip
        cell.nodes[key] = np.where(np.isfinite(spec[f"ca_{f}"]), spec[f"ca_{f}"], cell.nodes[key])
    R, F = 8.314, 96485.3329
    e_ca = 1e3 * R * reversal.channel_constants["T"] / (2 * F) * np.log(cell.nodes["CaCon_e"] / cell.nodes["CaCon_i"])
    cell.nodes["eCa"] = np.where(np.isfinite(spec["ca_gamma"]), e_ca, cell.nodes["eCa"])
    cell.set("v", spec["v_init"])
    cell.init_states()
    soma = int(np.flatnonzero(spec["regions"] == "soma")[0])
    current = sum(jx.step_current(on, off - on, amp, dt, t_max) for on, off, amp in steps)
    cell.select(nodes=soma).stimulate(current, verbose=False)
    for s in sites:
        cell.select(nodes=int(s)).record("v", verbose=False)
    return cell


def region_views(cell, spec):
    return {r: cell.select(nodes=np.flatnonzero(spec["regions"] == r)) for r in ("soma", "axon", "apic")}


def jaxley_calls(spec, solver, dt, n_members, sites):
    """Jitted ensemble and reverse-mode gradient of Jaxley (densities in S/cm²) over the speed window; the loss's
    target is the released cell's traces at the same step."""
    import jax
    import jax.numpy as jnp
    import jaxley as jx

    on, off, amp, t_end = WINDOW
    cell = jaxley_cell(spec, dt, t_end, [(on, off, amp)], sites)
    views = region_views(cell, spec)
    stride = round(SAVE_DT / dt)

    def key(name):
        region, channel = name.split(".gbar_")
        return views[region], CHANNELS[channel][1]

    def nominal(name):
        region, channel = name.split(".gbar_")
        g = spec[f"g_{channel}"][spec["regions"] == region]
        return float(g[0])

    def run(state):
        return jx.integrate(cell, param_state=state, delta_t=dt, solver=solver, t_max=t_end)[:, ::stride]

    def ensemble(scales):
        state = None
        for name, s in zip(VARIED, scales, strict=True):
            view, k = key(name)
            state = view.data_set(k, nominal(name) * s, state)
        return run(state)[0]

    target = jax.jit(lambda: run(None))()

    def loss(p):
        state = None
        for name, value in zip(FITTED, p, strict=True):
            view, k = key(name)
            state = view.data_set(k, value, state)
        return jnp.mean((run(state) - target) ** 2)

    p = jnp.asarray([1.1 * nominal(n) for n in FITTED])
    return {"ens": (jax.jit(jax.vmap(ensemble, in_axes=1)), (jnp.asarray(members(n_members)),)),
            "grad": (jax.jit(jax.value_and_grad(loss)), (p,))}  # fmt: skip


def jaxley_run(spec, protocol, solver, dt, sites):
    import jax
    import jaxley as jx

    cell = jaxley_cell(spec, dt, t_end(protocol), pulses(protocol), sites)
    fn = jax.jit(lambda: jx.integrate(cell, delta_t=dt, solver=solver, t_max=t_end(protocol)))
    jax.block_until_ready(fn())
    start = time.perf_counter()
    V = np.asarray(fn())
    wall = time.perf_counter() - start
    stride = round(SAVE_DT / dt)
    V = V[:, ::stride]
    ts = np.arange(V.shape[1]) * SAVE_DT
    return {"protocol": protocol, "solver": solver, "dt": dt, **measures(protocol, ts, V),
            "s_per_s": wall / (t_end(protocol) / 1000.0)}  # fmt: skip


def peer_main(args):
    """Serve Jaxley calls: print a JSON 'ready' line, then one JSON line per request read from stdin."""
    import jax

    jax.config.update("jax_enable_x64", args.dtype == "float64")
    import jaxley

    spec = dict(np.load(args.spec, allow_pickle=False))
    if args.split_soma:
        spec = split_soma(spec)
    sites = [int(s) for s in spec["sites"]]
    info = {"version": jaxley.__version__, "jax": jax.__version__}
    if args.accuracy:
        rows = [jaxley_run(spec, p, t.split(":")[0], float(t.split(":")[1]), sites[:3])
                for p in args.protocols for t in args.jaxley]  # fmt: skip
        print(json.dumps({**info, "rows": rows}), flush=True)
        return
    calls, ready = {}, {**info, "tiers": {}}  # float32 where x64 is off: JAX makes the inputs float32
    for tier in args.jaxley:
        solver, dt = tier.split(":")[0], float(tier.split(":")[1])
        speed_sites = sites[:1] + sites[-1:]  # the soma and APIC
        c = jaxley_calls(spec, solver, dt, args.members, speed_sites)
        fn, a = c["ens"]
        row = {"compile_s": timed_call(fn, *a)}
        V = np.asarray(fn(*a))
        row["spike"] = first_spikes(np.arange(V.shape[1]) * SAVE_DT, V[: args.check])
        row["nan"] = int(np.isnan(V).any(axis=1).sum())
        g, ga = c["grad"]
        row["grad_compile_s"] = timed_call(g, *ga)
        value, grad = g(*ga)
        row["loss"], row["grad"] = float(value), (np.asarray(grad) * 1e-3).tolist()  # per mS/cm²
        calls[f"{tier} ens"], calls[f"{tier} grad"] = (fn, a), (g, ga)
        ready["tiers"][tier] = row
    print(json.dumps(ready), flush=True)
    serve(calls)


def jaxley_peer(python, args, spec_path) -> PeerProcess:
    """The Jaxley process of the speed runs."""
    cmd = [python, __file__, "--peer", "--spec", spec_path, "--dtype", args.dtype, "--members", str(args.members),
           "--check", str(args.check), "--jaxley", *args.jaxley]  # fmt: skip
    return PeerProcess(cmd + (["--split-soma"] if args.split_soma else []))


# ---------------------------------------------------------------- report
def write_spec(path):
    import difflab
    from difflab.neuron import l5pc

    cell = l5pc()
    spec = export(cell)
    ref = difflab.datasets.load("neuron/l5pc")
    spec["sites"] = np.array([cell.morphology.segment(str(w)) for w in ref.location.values] +
                             [cell.morphology.segment(APIC)])  # fmt: skip
    np.savez(path, **spec)


def accuracy(args, spec_path):
    import jax

    print("| protocol | simulator | solver | dt (ms) | spikes (NEURON) | largest spike-time difference (ms) | "
          "apical peaks − NEURON (mV) | s per simulated s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    want = {p: neuron_reference(p) for p in args.protocols}

    def row(name, solver, protocol, r):
        a, b = np.asarray(r["spikes"]), np.asarray(want[protocol]["spikes"])
        err = float(np.max(np.abs(a - b))) if a.size == b.size else float("nan")
        peaks = np.round(np.subtract(r["peaks"], want[protocol]["peaks"]), 3).tolist() if "peaks" in r else "–"
        print(f"| {protocol} | {name} | {solver} | {r['dt']:.6g} | {a.size} ({b.size}) | {err:.4f} | {peaks} | "
              f"{r['s_per_s']:.1f} |", flush=True)  # fmt: skip

    for protocol in args.protocols:
        for dt in args.dt:
            row("difflab", "RL/CN", protocol, difflab_run(protocol, dt))
    if args.peer_python:
        cmd = [args.peer_python, __file__, "--peer", "--accuracy", "--spec", spec_path, "--jaxley", *args.jaxley,
               "--protocols", *args.protocols, *(["--split-soma"] if args.split_soma else [])]  # fmt: skip
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[-1])
        for r in out["rows"]:
            row(f"Jaxley {out['version']}", r["solver"], r["protocol"], r)
    print(f"jax {jax.__version__}")


def speed(args, spec_path):
    import jax
    import jax.numpy as jnp

    import difflab

    dtype = jnp.float64 if args.dtype == "float64" else jnp.float32
    load = [os.getloadavg()]
    peer = jaxley_peer(args.peer_python, args, spec_path) if args.peer_python else None
    calls, rows = {}, {}
    for dt in args.dt:
        c = difflab_calls(dtype, dt, args.members)
        fn, a = c["ens"]
        row = {"compile_s": timed_call(fn, *a)}
        V = np.asarray(fn(*a)).T
        row["spike"] = first_spikes(c["ts"], V[: args.check])
        row["nan"] = int(np.isnan(V).any(axis=1).sum())
        g, ga = c["grad"]
        row["grad_compile_s"] = timed_call(g, *ga)
        value, dots = g(*ga)
        row["loss"], row["grad"] = float(value), np.asarray(dots).tolist()
        gr, gra = c["grad_rev"]
        row["grad_rev_compile_s"] = timed_call(gr, *gra)
        row["grad_rev_diff"] = float(np.max(np.abs(np.asarray(gr(*gra)[1]) - np.asarray(dots))) / np.max(np.abs(dots)))
        calls[f"{dt} ens"], calls[f"{dt} grad"], calls[f"{dt} grad_rev"] = (fn, a), (g, ga), (gr, gra)
        rows[dt] = row
    times = {k: [] for k in calls}
    if peer:
        times.update({f"jaxley {t} {k}": [] for t in args.jaxley for k in ("ens", "grad")})
    for _ in range(args.repeats):  # alternation: difflab, Jaxley, difflab, ...
        for k in ("ens", "grad", "grad_rev"):
            for dt in args.dt:
                times[f"{dt} {k}"].append(timed_call(*calls[f"{dt} {k}"][:1], *calls[f"{dt} {k}"][1]))
            for t in args.jaxley if peer and k != "grad_rev" else ():
                times[f"jaxley {t} {k}"].append(peer.call(f"{t} {k}"))
    load.append(os.getloadavg())
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(f"# L5PC, 699 compartments, {args.members} members, {args.dtype}, medians of {args.repeats}")
    print(f"load average before {load[0]}, after {load[1]}; CPUs: {os.cpu_count()}")
    jx_version = f"Jaxley {peer.ready['version']} (jax {peer.ready['jax']})" if peer else "no Jaxley"
    print(f"difflab {difflab.__version__}, jax {jax.__version__}; {jx_version}")
    print("| simulator | step | ensemble (s) | compile (s) | spike times of the first members (ms) | NaN | "
          "gradient (s) | loss | gradient (per mS/cm²) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for dt, r in rows.items():
        print(f"| difflab | RL/CN {dt} | {med[f'{dt} ens']:.3f} | {r['compile_s']:.1f} | "
              f"{np.round(r['spike'], 4).tolist()} | {r['nan']} | {med[f'{dt} grad']:.3f} | {r['loss']:.6g} | "
              f"{np.array2string(np.asarray(r['grad']), precision=4)} |")  # fmt: skip
    for dt, r in rows.items():
        print(
            f"difflab {dt}: reverse-mode gradient {med[f'{dt} grad_rev']:.3f} s "
            f"(compile {r['grad_rev_compile_s']:.1f} s), largest difference from forward mode "
            f"{r['grad_rev_diff']:.1e} of the largest component"
        )
    for t in args.jaxley if peer else ():
        r = peer.ready["tiers"][t]
        print(f"| Jaxley | {t} | {med[f'jaxley {t} ens']:.3f} | {r['compile_s']:.1f} | "
              f"{np.round(r['spike'], 4).tolist()} | {r['nan']} | {med[f'jaxley {t} grad']:.3f} | {r['loss']:.6g} | "
              f"{np.array2string(np.asarray(r['grad']), precision=4)} |")  # fmt: skip
    if peer:
        peer.close()


def solver_step(text: str) -> str:
    """`--jaxley`'s `solver:dt`, checked: one of Jaxley's implicit solvers and a positive step in ms."""
    solver, _, dt = text.partition(":")
    try:
        step = float(dt)
    except ValueError:
        step = float("nan")
    if solver not in ("bwd_euler", "crank_nicolson", "exp_euler", "fwd_euler") or not step > 0:
        raise argparse.ArgumentTypeError(f"expected SOLVER:DT with SOLVER one of bwd_euler, crank_nicolson, "
                                         f"exp_euler, fwd_euler and DT > 0 (ms); got {text!r}")  # fmt: skip
    return text


def positive_step(text: str) -> float:
    """`--dt`'s steps, checked: positive (ms)."""
    try:
        step = float(text)
    except ValueError:
        step = float("nan")
    if not step > 0:
        raise argparse.ArgumentTypeError(f"expected a step > 0 (ms); got {text!r}")
    return step


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--check", type=int, default=4, help="members whose spike times are printed")
    parser.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    parser.add_argument("--dt", type=positive_step, nargs="*", default=[0.003125], help="difflab's steps (ms)")
    parser.add_argument("--jaxley", nargs="*", type=solver_step, default=["bwd_euler:0.025"],
                        help="Jaxley's solver:dt pairs")  # fmt: skip
    parser.add_argument("--accuracy", action="store_true", help="spike times against NEURON instead of the speed")
    parser.add_argument("--protocols", nargs="*", default=["bAP"], help="(--accuracy) bAP, Step1, Step2, Step3")
    parser.add_argument("--peer", action="store_true", help="run the Jaxley half only (JSON on stdout)")
    parser.add_argument("--peer-python", help="python of the Jaxley environment")
    parser.add_argument("--spec", help="(peer) the exported cell")
    parser.add_argument("--split-soma", action="store_true", help="(Jaxley) the soma as two halves (split_soma)")
    args = parser.parse_args()
    if args.peer:
        peer_main(args)
        return
    import jax

    jax.config.update("jax_enable_x64", True)
    with tempfile.TemporaryDirectory() as tmp:
        spec_path = os.path.join(tmp, "l5pc.npz")
        write_spec(spec_path)
        (accuracy if args.accuracy else speed)(args, spec_path)


if __name__ == "__main__":
    main()
