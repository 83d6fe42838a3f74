"""Fitting a recording: held input accuracy, global strategies from starts anywhere, coverage, the Rabi fit.

Data: datasets/hh/hh_ou_hold.nc (NEURON 9, squid axon, Ornstein–Uhlenbeck current held over 0.025 ms
samples, CVODE 1e-11). The fit uses the first 300 ms (17 spikes) plus 1 mV Gaussian noise; fitted gNa, gK,
gL with Bounded(50, 200), Bounded(10, 80), Bounded(0.05, 1); 16 starts uniform in the bounds.

    python benchmarks/calibration_global.py accuracy      # default-step spike times vs NEURON, f64 and f32
    python benchmarks/calibration_global.py strategies    # 16 starts: auto (linear estimate), windows, multistart
    python benchmarks/calibration_global.py coverage      # 20 noise seeds: do the 95 % intervals hold the truth?
    python benchmarks/calibration_global.py rabi          # Rabi fit from Omega 5 % and 30 % off
    python benchmarks/calibration_global.py export        # the fit's data and starts for calibration_jaxley_ou.py
"""

import sys
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

import difflab
from difflab.neuron import HodgkinHuxley, spike_times

TRUE = {"gNa": 120.0, "gK": 36.0, "gL": 0.3}
BOUNDS = {"gNa": difflab.Bounded(50.0, 200.0), "gK": difflab.Bounded(10.0, 80.0), "gL": difflab.Bounded(0.05, 1.0)}


def recording(t_end=300.0, seed=1, noise=1.0):
    ref = difflab.datasets.load("hh/hh_ou_hold").sel(time=slice(0.0, t_end))
    ts = ref.time.values
    V = ref.V.values + noise * np.random.default_rng(seed).normal(0.0, 1.0, ts.size)
    return difflab.Sampled(ts, ref.I_stim.values), {"time": ts, "V": V}


def accuracy():
    ref = difflab.datasets.load("hh/hh_ou_hold")
    want = ref.spike_times.values
    print("| dtype | mode | step (ms) | spikes (NEURON) | largest spike-time error (ms) | wall (s) |")
    print("|---|---|---|---|---|---|")
    for dtype in (jnp.float64, jnp.float32):
        for mode in ("hold", "linear"):
            ts = jnp.asarray(ref.time.values, dtype)
            protocol = difflab.Sampled(ts, jnp.asarray(ref.I_stim.values, dtype), mode=mode)
            t0 = time.perf_counter()
            traj = difflab.simulate(HodgkinHuxley.squid_axon(dtype), protocol, ts)
            V = jax.block_until_ready(traj.ys["V"])
            wall = time.perf_counter() - t0
            got = np.asarray(spike_times(ts, V, max_spikes=80), float)
            got = got[~np.isnan(got)]
            n = min(got.size, want.size)
            err = np.abs(got[:n] - want[:n]).max()
            dt = dict(traj.provenance)["dt0"]
            print(f"| {jnp.dtype(dtype).name} | {mode} | {dt} | {got.size} ({want.size}) | {err:.4f} | {wall:.1f} |")


def _fit(strategy, starts, seed=1, steps=20):
    protocol, data = recording(seed=seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = difflab.calibrate(HodgkinHuxley.squid_axon(), protocol, data, params=BOUNDS, starts=starts,
                                run=difflab.RunOptions(strategy=strategy, progress=False), steps=steps)  # fmt: skip
    return fit, time.perf_counter() - t0, [str(w.message) for w in caught]


def uniform_starts(n=16, seed=2026):
    rng = np.random.default_rng(seed)
    return {k: rng.uniform(float(b.lo), float(b.hi), n) for k, b in BOUNDS.items()}


def export(path="/tmp/hh_ou_fit.npz"):
    """The noisy 300 ms recording, its held current and the 16 starts, for the Jaxley workflow."""
    protocol, data = recording()
    starts = uniform_starts()
    np.savez(path, time=data["time"], V=data["V"], I_stim=np.asarray(protocol.values),
             **{f"start_{k}": v for k, v in starts.items()})  # fmt: skip
    print(f"wrote {path}")


def strategies():
    starts = uniform_starts()
    print("| strategy | starts within 1 % of the truth (all three) | best gNa, gK, gL | best loss (mV²) | wall (s) |")
    print("|---|---|---|---|---|")
    for strategy in ("auto", difflab.GrowingWindows(), "multistart"):
        fit, wall, _ = _fit(strategy, starts)
        ends = {k: fit.history[k].isel(step=-1).values for k in TRUE}
        good = np.all([np.abs(ends[k] / v - 1) < 0.01 for k, v in TRUE.items()], axis=0)
        best = ", ".join(f"{fit.best[k]:.4g}" for k in TRUE)
        print(f"| {fit.strategy} | {int(good.sum())} / 16 | {best} | {float(fit.losses.min()):.4f} | {wall:.1f} |")


def coverage(seeds=20):
    hits = {k: 0 for k in TRUE}
    print("| seed | gNa ± se | gK ± se | gL ± se | misfit ratio | shift / se (max) | wall (s) |")
    print("|---|---|---|---|---|---|---|")
    for seed in range(100, 100 + seeds):
        fit, wall, _ = _fit("auto", 1, seed=seed)
        cells = []
        for k, v in TRUE.items():
            est, se = float(fit.best[k]), float(fit.stderr[k])
            hits[k] += abs(est - v) <= 1.96 * se
            cells.append(f"{est:.4f} ± {se:.4f}")
        d = fit.diagnostics
        print(f"| {seed} | {' | '.join(cells)} | {float(d.misfit_ratio):.3f} | "
              f"{float(d.shift_over_stderr.max()):.2f} | {wall:.1f} |")  # fmt: skip
    print("\n95 % intervals holding the truth: " + ", ".join(f"{k} {n}/{seeds}" for k, n in hits.items()))


def rabi():
    import difflab.quantum as q

    truth = {"omega": 2 * np.pi * 1.0, "delta": 2 * np.pi * 0.3, "t1": 12.0, "t2": 8.0}
    readout = q.Readout(eps_g=0.03, eps_e=0.06)
    data = q.measure_rabi(q.RabiQubit(**truth), readout, np.linspace(0.0, 10.0, 81), shots=2000,
                          rng=np.random.default_rng(7))  # fmt: skip
    print("| Ω start / truth | strategy | Ω/2π (MHz) | Δ/2π (MHz) | T1 (µs) | T2 (µs) | loss | wall (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for off in (0.95, 0.7, 1.3):
        for strategy in (difflab.GrowingWindows(), "multistart"):
            start = q.RabiQubit(omega=2 * np.pi * off, delta=2 * np.pi * 0.2, t1=8.0, t2=6.0)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", difflab.CalibrationWarning)
                fit = q.fit_rabi(data, start, readout, steps=40, run=difflab.RunOptions(strategy=strategy))
            s = q.rabi_summary(fit)
            cells = [f"{float(s[k]):.4f} ± {float(s[k + '_stderr']):.4f}" for k in
                     ("omega_over_2pi", "delta_over_2pi", "T1", "T2")]  # fmt: skip
            print(f"| {off} | {fit.strategy} | {' | '.join(cells)} | {float(fit.losses.min()):.4e} | "
                  f"{time.perf_counter() - t0:.1f} |")  # fmt: skip


if __name__ == "__main__":
    parts = sys.argv[1:] or ["accuracy", "strategies", "coverage", "rabi", "export"]
    for part in parts:
        print(f"\n## {part}\n")
        globals()[part]()
