"""Stiff channel sets: spike-time error against NEURON versus the fixed step, and the cost of a step.

Two cells, each against its NEURON 9 reference (CVODE at tight tolerance):

* the squid axon (`hh`, 6.3 °C), 10 µA/cm² on [10, 110) ms, 7 spikes (`datasets/hh/hh_step_10uA.nc`);
* a point L5PC soma with BluePyOpt's released somatic densities (NaTs2_t 983.955 mS/cm², SKv3_1, SK_E2,
  Ca_HVA, Ca_LVAst, Ih, pas, CaDynamics_E2, 34 °C), 10 µA/cm² on [20, 220) ms, 9 spikes
  (`datasets/neuron/l5pc_channels.nc`, the `cc_*` variables). Its largest conductance Σḡ/C = 1298 mS/µF
  is 8.3 times hh's, so its voltage update sees `G h / C` up to 8.3 times larger at a given step.

`accuracy` prints the largest spike-time error (ms) at each step; `cost` prints the wall time per step (µs,
median of repeated runs after compilation; the machine may be shared, so compare medians): one L5PC soma, one
squid axon, and a 1000-member squid-axon ensemble (gNa ~ U[80, 120], gK ~ U[24, 36] mS/cm², float64). Run the
script on two versions of the library (e.g. ``PYTHONPATH=<checkout>/src``) to compare them.

Run:  python benchmarks/stiff_step.py [accuracy] [cost] [--repeats 7]
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import difflab
import difflab.datasets
from difflab.neuron import HodgkinHuxley, spike_times
from difflab.neuron.channels import SK_E2, Ca_HVA, Ca_LVAst, CaDynamics_E2, Ih, NaTs2_t, SKv3_1, pas

jax.config.update("jax_enable_x64", True)

HH_STEPS = (0.1, 10 / 108, 5 / 64, 10 / 136, 0.0625, 0.05, 0.025, 0.0125)
L5PC_STEPS = (5 / 128, 5 / 256, 5 / 512, 5 / 1024, 5 / 2048)


def l5pc_soma() -> HodgkinHuxley:
    """The reference's current-clamp cell (densities in S/cm² × 1000 = mS/cm²)."""
    return HodgkinHuxley(
        channels={
            "NaTs2_t": NaTs2_t(gbar=983.955),
            "SKv3_1": SKv3_1(gbar=303.472, E=-85.0),
            "SK_E2": SK_E2(gbar=8.407, E=-85.0),
            "Ca_HVA": Ca_HVA(gbar=0.994),
            "Ca_LVAst": Ca_LVAst(gbar=0.333),
            "Ih": Ih(gbar=0.08),
            "pas": pas(g=0.03, E=-75.0),
        },
        concentrations={"ca": CaDynamics_E2(gamma=0.000609, decay=210.485284)},
        celsius=34.0,
        v_init=-65.0,
    )


def _spikes(ts, V) -> np.ndarray:
    got = np.asarray(spike_times(jnp.asarray(ts), jnp.asarray(V), max_spikes=32))
    return got[np.isfinite(got)]


def _error(got: np.ndarray, want: np.ndarray) -> str:
    if got.size != want.size:
        return f"{got.size} of {want.size} spikes"
    return f"{np.max(np.abs(got - want)):.4f}"


def cases():
    """`{name: (cell, protocol, ts, NeuRON spike times, steps)}`."""
    hh = difflab.datasets.load("hh/hh_step_10uA")
    l5 = difflab.datasets.load("neuron/l5pc_channels")
    hh_spikes = hh.spike_times.values[0]
    return {
        "hh": (HodgkinHuxley.squid_axon(), difflab.Step(10.0, 10.0, 110.0), hh.time.values,
               hh_spikes[np.isfinite(hh_spikes)], HH_STEPS),
        "L5PC soma": (l5pc_soma(), difflab.Step(10.0, 20.0, 220.0), l5.cc_time.values,
                      _spikes(l5.cc_time.values, l5.cc_V.values), L5PC_STEPS),
    }  # fmt: skip


def accuracy() -> None:
    print("| cell | default step (ms) | step (ms) | max spike-time error (ms) |\n|---|---|---|---|")
    for name, (cell, protocol, ts, want, steps) in cases().items():
        run = jax.jit(lambda dt, cell=cell, protocol=protocol, ts=ts: difflab.simulate(
            cell, protocol, jnp.asarray(ts), dt0=dt, throw=False).ys["V"])  # fmt: skip
        for dt in steps:
            V = np.asarray(run(dt))
            err = "fails (NaN)" if np.isnan(V).any() else _error(_spikes(ts, V), want)
            print(f"| {name} | {cell.default_dt0():.6g} | {dt:.6g} | {err} |", flush=True)


def _median_time(fn, repeats: int) -> float:
    jax.block_until_ready(fn())  # compile
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def cost(repeats: int) -> None:
    all_cases = cases()
    key_na, key_k = jax.random.split(jax.random.PRNGKey(0))
    hh = all_cases["hh"][0]
    ensemble = hh.replace(
        gNa=jax.random.uniform(key_na, (1000,), minval=80.0, maxval=120.0),
        gK=jax.random.uniform(key_k, (1000,), minval=24.0, maxval=36.0),
    )
    runs = {
        "L5PC soma, 1 cell, 5/512 ms": (all_cases["L5PC soma"], all_cases["L5PC soma"][0], 5 / 512),
        "hh, 1 cell, 5/64 ms": (all_cases["hh"], hh, 5 / 64),
        "hh, 1000 cells, 5/64 ms": (all_cases["hh"], ensemble, 5 / 64),
    }
    print("| run | steps | wall per run (s) | per step (µs) |\n|---|---|---|---|")
    for name, ((_, protocol, ts, _, _), cell, dt) in runs.items():
        ts = jnp.asarray(ts)
        run = jax.jit(lambda cell=cell, protocol=protocol, ts=ts, dt=dt: difflab.simulate(
            cell, protocol, ts, dt0=dt).ys["V"])  # fmt: skip
        wall = _median_time(run, repeats)
        steps = round(float(ts[-1] - ts[0]) / dt)
        print(f"| {name} | {steps} | {wall:.3f} | {1e6 * wall / steps:.2f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", default=["accuracy", "cost"], choices=["accuracy", "cost"])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    if "accuracy" in args.parts:
        accuracy()
    if "cost" in args.parts:
        cost(args.repeats)


if __name__ == "__main__":
    main()
