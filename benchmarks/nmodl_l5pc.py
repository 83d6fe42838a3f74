"""The L5PC's original .mod files read by `read_nmodl`, against difflab's hand-written channels and NEURON.

Reads every .mod file of a folder (BluePyOpt's `examples/l5pc/mechanisms`, Hay et al. 2011: eleven channels and
the calcium mechanism `CaDynamics_E2`, which the reader refuses by name) and prints, per channel and gate, the
largest relative difference of x∞ and τ (and of the conductance at sampled gate values) between the read channel
and the library's, on −100…50 mV in 0.1 mV steps at 34 °C (SK_E2: `cai` 1e-8…1e-1 mM, 15 values per decade, at
every 5 mV). Two columns: all potentials, and all but the few where the .mod divides 0/0 and moves `v` by 1e-4 mV
(the library evaluates the limit there). Then the same x∞, τ against NEURON 9's values for the same files
(`datasets/neuron/l5pc_channels.nc`, −100…50 mV in 0.5 mV steps; SK_E2 on its `cai` grid), and the time of
one jitted `rates` call on the 1501 potentials, read channel against library channel (median of 200 calls).
`CaDynamics_E2` (a concentration mechanism) is compared by its `(s(I), 1/τ)` over −50…10 µA/cm².

Last, the somatic current clamp of the same dataset (BluePyOpt's released somatic densities, 0.01 nA on 100 µm²
over [20, 220) ms, 300 ms; `pas` is NEURON's built-in, so the library's): once with the read mechanisms, once with
the library's, at the cell's default step; V's largest difference between the two and the spike times against
NEURON's.

    python benchmarks/nmodl_l5pc.py MECHANISMS_FOLDER [--hh PEER_VENV/.../neuron/.data/share/modfile/hh.mod]

With `--hh`, NEURON's own `hh.mod` is read once per current (`ina`, `ik`, `il`) and its (α, β) and conductances
compared with `SodiumChannel`, `PotassiumChannel` and `LeakChannel` on the same potentials at 6.3 and 18.5 °C.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import difflab  # noqa: E402
from difflab.neuron import HodgkinHuxley, NMODLError, channels, read_nmodl, spike_times  # noqa: E402

# potentials (mV) where the .mod files test `v == …` and move v by 1e-4 mV before dividing
SINGULAR = {"NaTs2_t": (-32.0, -60.0), "NaTa_t": (-38.0, -66.0), "Nap_Et2": (-38.0, -17.0, -64.4), "Ca_HVA": (-27.0,)}
V = np.arange(-1000, 501) / 10.0
CAI = np.logspace(-8, -1, 106)
GATE_VALUES = np.linspace(0.05, 0.95, 11)


def _rel(a, b) -> np.ndarray:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.abs(a - b) / np.abs(b)


def _inf_tau(rates: dict) -> dict:
    return {g: (np.asarray(a / (a + b)), np.asarray(1 / (a + b))) for g, (a, b) in rates.items()}


def _grid(name: str, v: np.ndarray, cai: np.ndarray) -> tuple[np.ndarray, dict]:
    if name != "SK_E2":
        return v, {}
    vg, cg = np.meshgrid(v, cai)
    return vg.ravel(), {"cai": jnp.asarray(cg.ravel())}


def against_library(name: str, read) -> list[tuple[str, float, float]]:
    """(quantity, max rel. difference everywhere, away from the .mod's shifted singular points)."""
    lib = getattr(channels, name)()
    v, conc = _grid(name, V if name != "SK_E2" else V[::50], CAI)
    celsius = jnp.asarray(34.0)
    got, want = _inf_tau(read.rates(jnp.asarray(v), celsius, **conc)), _inf_tau(lib.rates(jnp.asarray(v), 34.0, **conc))
    away = ~np.isin(v, SINGULAR.get(name, ()))
    rows = []
    for gate in lib.gates:
        for k, what in enumerate(("inf", "tau")):
            err = _rel(got[gate][k], want[gate][k])
            rows.append((f"{gate} {what}", float(err.max()), float(err[away].max())))
    gates = {g: jnp.asarray(np.roll(GATE_VALUES, i)) for i, g in enumerate(lib.gates)}
    err = _rel(read.conductance(gates), lib.conductance(gates))
    rows.append(("conductance", float(err.max()), float(err.max())))
    return rows


def against_neuron(name: str, read, ref) -> float:
    """Max relative difference of every x∞ and τ from NEURON's on the reference grid."""
    v, conc = _grid(name, ref.voltage.values, ref.cai.values)
    if name == "SK_E2":  # NEURON's SK_E2 curves are over cai at one potential
        v, conc = np.zeros_like(ref.cai.values), {"cai": jnp.asarray(ref.cai.values)}
    got = _inf_tau(read.rates(jnp.asarray(v), jnp.asarray(34.0), **conc))
    worst = 0.0
    for gate, (inf, tau) in got.items():
        state = gate.split("_", 1)[0]
        worst = max(worst, _rel(inf, ref[f"{name}_{state}_inf"].values).max())
        worst = max(worst, _rel(tau, ref[f"{name}_{state}_tau"].values).max())
    return float(worst)


def rates_time(channel, name: str) -> float:
    """Median wall time (µs) of one jitted `rates` call on the 1501 potentials (SK_E2 at cai 1e-4 mM)."""
    v = jnp.asarray(V)
    conc = {"cai": jnp.full_like(v, 1e-4)} if name == "SK_E2" else {}
    fn = jax.jit(lambda ch, v, conc: ch.rates(v, jnp.asarray(34.0), **conc))
    jax.block_until_ready(fn(channel, v, conc))
    times = []
    for _ in range(200):
        start = time.perf_counter()
        jax.block_until_ready(fn(channel, v, conc))
        times.append(time.perf_counter() - start)
    return 1e6 * float(np.median(times))


def against_library_pool(read) -> float:
    """Max relative difference of `(s(I), 1/τ)` from `channels.CaDynamics_E2` over −50…10 µA/cm²."""
    current = jnp.linspace(-50.0, 10.0, 61)
    got, want = read.linear_terms(current), channels.CaDynamics_E2().linear_terms(current)
    return float(max(_rel(g, w).max() for g, w in zip(got, want, strict=True)))


# BluePyOpt's released somatic densities (S/cm² × 1000 = mS/cm²) and calcium pool, the dataset's current clamp
SOMA = {"NaTs2_t": 983.955, "SKv3_1": 303.472, "SK_E2": 8.407, "Ca_HVA": 0.994, "Ca_LVAst": 0.333, "Ih": 0.08}
K_CHANNELS = ("SKv3_1", "SK_E2")


def current_clamp(mechanisms: dict, ref) -> None:
    """The somatic current clamp with the read mechanisms and with the library's; spike times against NEURON's."""
    cells = {}
    for kind in ("read", "library"):
        chans = {}
        for name, gbar in SOMA.items():
            E = {"E": -85.0} if name in K_CHANNELS else {}
            if kind == "read":
                chans[name] = mechanisms[name].replace(**{f"g{name}bar": gbar}, **E)
            else:
                chans[name] = getattr(channels, name)(gbar=gbar, **E)
        chans["pas"] = channels.pas(g=0.03, E=-75.0)
        pool = {"gamma": 0.000609, "decay": 210.485284}
        calcium = mechanisms["CaDynamics_E2"].replace(**pool) if kind == "read" else channels.CaDynamics_E2(**pool)
        cells[kind] = HodgkinHuxley(channels=chans, concentrations={"ca": calcium}, celsius=34.0, v_init=-65.0)
    ts = jnp.asarray(ref.cc_time.values)
    stimulus = difflab.Step(10.0, 20.0, 220.0)
    V = {k: np.asarray(difflab.simulate(c, stimulus, ts).ys["V"]) for k, c in cells.items()}
    want = np.asarray(spike_times(ts, jnp.asarray(ref.cc_V.values)))
    got = np.asarray(spike_times(ts, jnp.asarray(V["read"])))
    want, got = want[np.isfinite(want)], got[np.isfinite(got)]
    print(
        f"current clamp (dt {cells['read'].default_dt0():.6f} ms): max |V read − V library| "
        f"{np.max(np.abs(V['read'] - V['library'])):.2e} mV; spikes {got.size} (NEURON {want.size}), "
        f"largest spike-time difference from NEURON {np.max(np.abs(got - want)):.4f} ms"
    )


def against_hh(path: Path) -> None:
    """NEURON's hh.mod, read per current, against the library's squid-axon channels: largest relative difference."""
    library = {"ina": difflab.neuron.SodiumChannel(), "ik": difflab.neuron.PotassiumChannel()}
    library["il"] = difflab.neuron.LeakChannel()
    for current, lib in library.items():
        read = read_nmodl(path, current=current)
        worst, where = 0.0, ""
        for celsius in (6.3, 18.5):
            got, want = read.rates(jnp.asarray(V), jnp.asarray(celsius)), lib.rates(jnp.asarray(V), celsius)
            for gate, lib_gate in zip(read.gates, lib.gates, strict=True):
                for k, name in enumerate(("alpha", "beta")):
                    err = float(_rel(got[gate][k], want[lib_gate][k]).max())
                    worst, where = max((worst, where), (err, f"{gate} {name}"))
        values = {g: jnp.asarray(np.roll(GATE_VALUES, i)) for i, g in enumerate(read.gates)}
        lib_values = dict(zip(lib.gates, values.values(), strict=True))
        g_err = float(_rel(read.conductance(values), lib.conductance(lib_values)).max())
        print(f"hh.mod {current}: gates {read.gates}, (alpha, beta) {worst:.2e} ({where}), conductance {g_err:.2e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="folder of the L5PC .mod files")
    parser.add_argument("--hh", type=Path, help="NEURON's hh.mod")
    args = parser.parse_args()
    folder = args.folder
    if args.hh is not None:
        against_hh(args.hh)
    ref = difflab.datasets.load("neuron/l5pc_channels")
    print(f"{'channel':10s} {'quantity':16s} {'vs library, all V':>18s} {'away from 0/0':>14s}")
    overall = [0.0, 0.0, 0.0]
    mechanisms = {}
    for path in sorted(folder.glob("*.mod")):
        name = path.stem
        try:
            read = mechanisms[name] = read_nmodl(path)
        except NMODLError as err:
            print(f"{name:10s} refused: {err}")
            continue
        if name == "CaDynamics_E2":
            print(f"{name:10s} {'s(I), 1/tau':16s} {against_library_pool(read):18.2e}")
            continue
        for what, everywhere, away in against_library(name, read):
            print(f"{name:10s} {what:16s} {everywhere:18.2e} {away:14.2e}")
            overall[0], overall[1] = max(overall[0], everywhere), max(overall[1], away)
        worst = against_neuron(name, read, ref)
        overall[2] = max(overall[2], worst)
        print(f"{name:10s} {'vs NEURON 9':16s} {worst:18.2e}")
        t_read, t_lib = rates_time(read, name), rates_time(getattr(channels, name)(), name)
        print(f"{name:10s} {'rates (µs)':16s} {t_read:18.1f} {t_lib:14.1f}  (read, library)")
    print(f"largest: vs library {overall[0]:.2e} (away from 0/0: {overall[1]:.2e}); vs NEURON {overall[2]:.2e}")
    if {"CaDynamics_E2", *SOMA} <= set(mechanisms):
        current_clamp(mechanisms, ref)


if __name__ == "__main__":
    main()
