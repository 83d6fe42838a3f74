"""Fit the L5PC's spike-generating densities from random starts: how many starts reach the truth, and how fast.

The recording is synthetic with a known truth: `difflab.neuron.l5pc()` (Hay et al. 2011 as BluePyOpt's example
builds it: 699 compartments, BluePyOpt's released densities) at its default step (0.003125 ms) under a
somatic pulse (`--amp` nA for 5 ms from `--pulse` ms, the bAP protocol's 1.9 nA, from 10 ms by default; the
spike peaks at the soma 1.9 ms after the onset and at the apical site 8 ms after it), observed from 0 to
`--t-end` ms (20) at the soma and at the apical site 660 µm from it (`apic[46](0.7)`, the bAP recording's
`dend1`) every `--dt-data` ms, with
Gaussian noise of `--noise` mV (seed 0). `difflab.calibrate` then fits the densities in `FITTED` from
`--starts` starts drawn log-uniformly within [0.5, 2] × the truth (seed 1; bounds [0.25, 4] × the truth),
Levenberg–Marquardt, all starts as one batched fit (`strategy="multistart"`). The fit solves at the same step as
the data, so the model is exact and refinement is switched off (`refine=False`).

`--protocols three` records the cell under three somatic protocols instead of one, each from 0 to `--t-end` ms
with its onset at `--pulse` ms: the bAP pulse above, and steps of 0.95 nA (the example's Step3) and 2.5 nA held
to the end (two and three spikes in 20 ms). The three recordings are fitted with one parameter set
(`difflab.Comparison(joint=True)`), which is what identifies densities that one spike leaves free.

`--loss features` fits eFEL spike features of the somatic trace instead of the traces
(`difflab.neuron.SpikeFeatures`, each recording from its onset to `--t-end`): the AP's amplitude, half-width and
begin voltage, the AHP depth, the mean frequency and the spike count, with the scales of `FEATURE_SCALES`.

`--spikes-first N` fits the somatic spike times first (`difflab.SpikeTimes`, N steps at `--spikes-dt`), then the
traces held in the data's spike configuration (`difflab.LossSum` of the traces' MSE and `--spike-weight` × the
spike-time loss, `--steps` steps), then the traces alone (`--polish` steps), each stage from where every start
ended the one before. `--missing-slope` sets the spike-time loss's `missing_slope` (what a missing spike's bump
costs per mV below the threshold), and `--spike-windows [FIRST]` fits the spike times in growing windows
(`GrowingWindows(first=FIRST)`, 0.25 without a value). `--stage-file` keeps the spike-time stage's end points,
so that trace stages can be compared from the same ones. `--apical-spikes MV` adds the upward crossings of MV
at the apical site to the spike-time stage (the data have none at −20 mV; a dendritic spike does). `--apical-stage
N` puts N steps on the apical trace,
with `--apical-weight` × the somatic spike times, between the spike-time stage and the trace stage, and `--terms`
prints every start's misfit term by term after each stage (`report_terms`).

Reported: every start's final loss and relative errors, the best fit's standard errors, the number of starts
within 2 % of the truth on every parameter the data identify (standard error below 5 %), and the wall time
(compilation included).

    python benchmarks/l5pc_fit.py                      # 10 starts, 15 steps, the six densities of FITTED
    python benchmarks/l5pc_fit.py --ten                # the ten of FITTED and MORE
    python benchmarks/l5pc_fit.py --ten --protocols three --pulse 2 --t-end 20 --dt 0.00625 --steps 20
                                                       # ten, from three protocols jointly
    python benchmarks/l5pc_fit.py --ten --protocols three --pulse 2 --t-end 40 --design
                                                       # what a design identifies: standard errors at the truth
    python benchmarks/l5pc_fit.py --ten --protocols three --pulse 2 --t-end 20 --design --loss features
                                                       # what the spike features identify
    python benchmarks/l5pc_fit.py --ten --protocols three --pulse 2 --t-end 40 --dt-data 0.025 --dt 0.0125 \
        --spikes-first 10 --steps 15                   # spike times, then traces with spike times, then traces
    python benchmarks/l5pc_fit.py --starts 2 --steps 2 --pulse 2 --t-end 8   # a smoke run
"""

from __future__ import annotations

import argparse
import json
import pathlib
import time

import jax

jax.config.update("jax_enable_x64", True)

import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

import difflab  # noqa: E402
from difflab.neuron import IClamp, SpikeFeatures, l5pc, spike_count, spike_times  # noqa: E402

SITES = ("soma[0](0.5)", "apic[46](0.7)")
#: the densities fitted (mS/cm²): the soma's and the axon's sodium and fast potassium channels, and the apical
#: tree's sodium channel that carries the back-propagating spike
FITTED = ("soma.gbar_NaTs2_t", "soma.gbar_SKv3_1", "axon.gbar_NaTa_t", "axon.gbar_K_Pst", "axon.gbar_SKv3_1",
          "apic.gbar_NaTs2_t")  # fmt: skip
#: `--ten`: four more, the axon's transient potassium and persistent sodium, the apical tree's fast potassium and
#: the soma's high-voltage calcium channel
MORE = ("axon.gbar_K_Tst", "axon.gbar_Nap_Et2", "apic.gbar_SKv3_1", "soma.gbar_Ca_HVA")
#: `--loss features`: the features and their scales (mV, ms, Hz, spikes), of the order of the experimental standard
#: deviations BluePyOpt's L5PC example scores its features with
FEATURE_SCALES = {"AP_amplitude": 2.0, "AP_duration_half_width": 0.05, "AP_begin_voltage": 1.0, "AHP_depth": 1.0,
                  "mean_frequency": 2.0, "Spikecount": 1.0}  # fmt: skip


def report_terms(stage: str, cell, clamps, data, clean_spikes, points: dict[str, list[float]], observe, info, options):
    """Each start's misfit per recording, term by term: where a stage leaves it, and what a loss sum trades.

    Per protocol: the somatic and apical mean squared errors (mV²), the apical peak's difference from the data's
    (mV), the somatic spike count's difference from the clean recording's, and the RMS spike-time difference (ms)
    where the counts agree (threshold −20 mV).
    """
    ts = data["time"].values
    print(f"{stage}, term by term (per protocol: soma / apical MSE mV², apical peak − data's mV, spikes − data's, "
          "spike-time RMS ms):")  # fmt: skip
    n_starts = len(next(iter(points.values())))
    for k in range(n_starts):
        model = cell.replace(**{name: values[k] for name, values in points.items()})
        parts = []
        for p, clamp in enumerate(clamps):
            trace = difflab.simulate(model, clamp, ts, observe=observe, observe_info=info, options=options)
            soma, apic = (np.asarray(trace[s]) for s in SITES)
            mse = [float(np.mean((v - data[s].values[p]) ** 2)) for v, s in zip((soma, apic), SITES, strict=True)]
            peak = float(np.max(apic) - np.max(data[SITES[1]].values[p]))
            found = np.asarray(spike_times(ts, soma, threshold=-20.0, max_spikes=8))
            n_found, n_data = int(np.sum(~np.isnan(found))), int(np.sum(~np.isnan(clean_spikes[p])))
            rms = np.sqrt(np.mean((found[:n_data] - clean_spikes[p][:n_data]) ** 2)) if n_found == n_data else np.nan
            parts.append(f"{mse[0]:.3g} / {mse[1]:.3g}, {peak:+.1f}, {n_found - n_data:+d}, {rms:.3g}")
        print(f"  start {k}: " + " | ".join(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--steps", type=int, default=15, help="Levenberg–Marquardt steps")
    parser.add_argument("--t-end", type=float, default=20.0, help="recording length (ms)")
    parser.add_argument("--amp", type=float, default=1.9, help="pulse amplitude (nA), for 5 ms")
    parser.add_argument("--pulse", type=float, default=10.0, help="pulse onset (ms)")
    parser.add_argument("--dt-data", type=float, default=0.1, help="sample spacing of the recording (ms)")
    parser.add_argument("--noise", type=float, default=0.5, help="Gaussian noise (mV)")
    parser.add_argument("--ten", action="store_true", help="fit ten densities (FITTED and MORE)")
    parser.add_argument("--dt", type=float, default=None, help="the step of the data and the fit (ms); default the "
                        "cell's default step")  # fmt: skip
    parser.add_argument("--design", action="store_true", help="only the standard errors at the truth (no fit)")
    parser.add_argument("--protocols", choices=("bap", "three"), default="bap",
                        help="one pulse (bap) or the pulse and two steps fitted jointly (three)")  # fmt: skip
    parser.add_argument("--loss", choices=("trace", "features"), default="trace",
                        help="the traces' mean squared error, or the somatic spike features")  # fmt: skip
    parser.add_argument("--spikes-first", type=int, default=0, metavar="STEPS",
                        help="first fit the somatic spike times (difflab.SpikeTimes) for this many steps at "
                        "--spikes-dt, then the traces from where each start ended")  # fmt: skip
    parser.add_argument("--spikes-dt", type=float, default=0.0125, help="the step of the spike-time stage (ms)")
    parser.add_argument("--spike-weight", type=float, default=10.0,
                        help="with --spikes-first: the weight of the spike times (mV²/ms²) beside the traces; 0: "
                        "the traces alone for --steps steps")  # fmt: skip
    parser.add_argument("--missing-slope", type=float, default=None,
                        help="with --spikes-first: SpikeTimes' missing_slope (ms per mV)")  # fmt: skip
    parser.add_argument("--spike-windows", type=float, nargs="?", const=0.25, default=None, metavar="FIRST",
                        help="with --spikes-first: the spike-time stage in GrowingWindows(first=FIRST), 0.25 "
                             "without a value")  # fmt: skip
    parser.add_argument("--stage-file", default=None, metavar="JSON",
                        help="with --spikes-first: the spike-time stage's end points are written to JSON, or "
                             "read from it (the stage skipped) where it exists with the same settings")  # fmt: skip
    parser.add_argument("--polish", type=int, default=2,
                        help="with --spikes-first: steps of the traces alone after the joint stage")  # fmt: skip
    parser.add_argument("--apical-spikes", type=float, default=None, metavar="MV",
                        help="with --spikes-first: the spike-time stage also fits the upward crossings of MV at the "
                        "apical site (dendritic spikes), beside the somatic spike times")  # fmt: skip
    parser.add_argument("--apical-stage", type=int, default=0, metavar="STEPS",
                        help="with --spikes-first: before the trace stage, this many steps on the apical trace with "
                        "--apical-weight × the somatic spike times")  # fmt: skip
    parser.add_argument("--apical-weight", type=float, default=1000.0,
                        help="the spike times' weight (mV²/ms²) in the apical stage")  # fmt: skip
    parser.add_argument("--terms", action="store_true",
                        help="after each stage, every start's misfit term by term (report_terms)")  # fmt: skip
    parser.add_argument("--windows", action="store_true", help="the trace fit by difflab.GrowingWindows(first=0.25)")
    args = parser.parse_args()
    fitted = FITTED + MORE if args.ten else FITTED

    cell = l5pc()
    values = cell.parameters()
    truth = {name: float(np.asarray(values[name])) for name in fitted}
    pulse = (args.amp, args.pulse, args.pulse + 5.0)
    stimuli = {"bap": [pulse], "three": [pulse, (0.95, args.pulse, 1e9), (2.5, args.pulse, 1e9)]}[args.protocols]
    clamps = [IClamp({SITES[0]: difflab.Step(*stimulus)}) for stimulus in stimuli]
    labels = [f"{amp:g} nA from {on:g} ms" + (f" to {off:g} ms" if off < 1e8 else "") for amp, on, off in stimuli]
    ts = np.arange(0.0, args.t_end + 1e-9, args.dt_data)
    observe, info = cell.recorder(SITES)
    # the data's step for the fit too, so that the model is exact: a start with denser channels would otherwise
    # take a shorter default step
    options = difflab.SolveOptions(dt0=args.dt or cell.default_dt0())
    noise = np.random.default_rng(0).normal(0.0, args.noise, (len(clamps), len(SITES), ts.size))
    traces = {s: [] for s in SITES}
    clean_spikes = []
    for p, (clamp, label) in enumerate(zip(clamps, labels, strict=True)):
        clean = difflab.simulate(cell, clamp, ts, observe=observe, observe_info=info, options=options)
        for k, s in enumerate(SITES):
            traces[s].append(np.asarray(clean[s]) + noise[p, k])
        spikes = int(spike_count(ts, clean[SITES[0]], threshold=-20.0))
        clean_spikes.append(np.asarray(spike_times(ts, clean[SITES[0]], threshold=-20.0, max_spikes=8)))
        print(f"{label}: {spikes} somatic spike(s) in {args.t_end:g} ms, peak at {SITES[1]} "
              f"{float(np.max(clean[SITES[1]])):.1f} mV")  # fmt: skip
    data = xr.Dataset({s: (("protocol", "time"), np.stack(traces[s]), {"units": "mV"}) for s in SITES},
                      coords={"time": ("time", ts, {"units": "ms"}), "protocol": labels})  # fmt: skip
    print(f"L5PC: {cell.morphology.n_segments} compartments, step {options.dt0} ms; {len(clamps)} "
          f"recording(s) of {ts.size} samples per site, {args.noise:g} mV noise")  # fmt: skip

    bounds = {name: difflab.Bounded(0.25 * v, 4.0 * v) for name, v in truth.items()}
    draws = np.exp(np.random.default_rng(1).uniform(np.log(0.5), np.log(2.0), (args.starts, len(fitted))))
    starts = {name: (draws[:, k] * truth[name]).tolist() for k, name in enumerate(fitted)}
    run = difflab.RunOptions(strategy="multistart", refine=False, progress=True)
    compare = difflab.Comparison(observe=observe, variables=list(SITES), joint=True)
    loss = "mse"
    if args.loss == "features":
        loss = SpikeFeatures(scales=FEATURE_SCALES, stimulus=(args.pulse, args.t_end), variable=SITES[0], max_spikes=8)
        compare = difflab.Comparison(observe=observe, variables=[SITES[0]], joint=True)
    if args.design:  # the standard errors of the densities at the truth: what the recordings can identify
        at_truth = difflab.calibrate(
            cell,
            clamps,
            data,
            params=bounds,
            loss=loss,
            compare=compare,
            steps=0,
            options=options,
            starts={n: [v] for n, v in truth.items()},
            run=run.replace(progress=False),
        )
        print("standard errors at the truth: " + ", ".join(
            f"{n} {100 * float(at_truth.stderr[n]) / truth[n]:.2f} %" for n in fitted))  # fmt: skip
        return
    t = time.perf_counter()
    if args.spikes_first:
        # the spike times first: a start that fires a spike too many or too few sits in a side minimum of the trace
        # loss, while each spike's time moves smoothly with the densities (at 0.0125 ms; at 0.025 ms it does not)
        slope = {} if args.missing_slope is None else {"missing_slope": args.missing_slope}
        times = difflab.SpikeTimes(variable=SITES[0], threshold=-20.0, max_spikes=8, refractory=2.0, **slope)
        windows = args.spike_windows
        spike_run = run if windows is None else run.replace(strategy=difflab.GrowingWindows(first=windows))
        later = ("steps", "polish", "spike_weight", "stage_file", "apical_stage", "apical_weight", "terms")
        settings = {k: v for k, v in vars(args).items() if k not in later and (k != "apical_spikes" or v is not None)}
        stored = json.loads(pathlib.Path(args.stage_file).read_text()) if args.stage_file and pathlib.Path(
            args.stage_file).exists() else None  # fmt: skip
        if stored is not None:
            if stored["settings"] != settings:
                raise SystemExit(f"{args.stage_file} was made with other settings: {stored['settings']}")
            starts, losses = stored["ends"], stored["losses"]
        else:
            stage_loss = times
            if args.apical_spikes is not None:
                # the data have no crossing of this threshold at the apical site; a start that fires a dendritic
                # spike there has one, which costs as an extra spike and is pushed out of the recording
                dendritic = difflab.SpikeTimes(variable=SITES[1], threshold=args.apical_spikes, max_spikes=8,
                                               refractory=2.0, **slope)  # fmt: skip
                stage_loss = difflab.LossSum((times, dendritic))
            first = difflab.calibrate(cell, clamps, data, params=bounds, loss=stage_loss, compare=compare,
                                      starts=starts, steps=args.spikes_first, optimizer="lm",
                                      options=difflab.SolveOptions(dt0=args.spikes_dt), run=spike_run)  # fmt: skip
            starts = {name: first.history[name].isel(step=-1).values.reshape(-1).tolist() for name in fitted}
            losses = first.losses.values.reshape(-1).tolist()
            if args.stage_file:
                record = {"settings": settings, "ends": starts, "losses": losses}
                pathlib.Path(args.stage_file).write_text(json.dumps(record))
        print(f"spike-time stage: {time.perf_counter() - t:.1f} s" + (" (read)" if stored else "") + ", losses (ms²) "
              + " ".join(f"{x:.3g}" for x in losses))  # fmt: skip
        for k in range(args.starts):
            print(f"  start {k}: " + " ".join(f"{starts[n][k] / truth[n]:.3f}x" for n in fitted))
        if args.terms:
            report_terms("after the spike-time stage", cell, clamps, data, clean_spikes, starts, observe, info, options)
        if args.steps == 0 and args.polish == 0:  # the spike-time stage alone
            return
    if args.windows:
        run = run.replace(strategy=difflab.GrowingWindows(first=0.25))
    if args.spikes_first and args.apical_stage:
        # the apical trace with the somatic spike times held: the truth sits at the apical site's threshold for a
        # dendritic spike, and a start that the spike-time stage leaves above it fires one there, whose misfit
        # the trace stage would otherwise pay for with the somatic spike times (the soma's trace weighs 1e-9)
        apical = difflab.LossSum((difflab.MSE(weights={SITES[0]: 1e-9, SITES[1]: 1.0}), times),
                                 weights=(1.0, args.apical_weight))  # fmt: skip
        fit = difflab.calibrate(cell, clamps, data, params=bounds, loss=apical, compare=compare, starts=starts,
                                steps=args.apical_stage, optimizer="lm", options=options, run=run)  # fmt: skip
        starts = {name: fit.history[name].isel(step=-1).values.reshape(-1).tolist() for name in fitted}
        print(f"apical stage: {time.perf_counter() - t:.1f} s, losses "
              + " ".join(f"{x:.4g}" for x in fit.losses.values.reshape(-1)))  # fmt: skip
        if args.terms:
            report_terms("after the apical stage", cell, clamps, data, clean_spikes, starts, observe, info, options)
    if args.spikes_first and args.spike_weight > 0:
        # then the traces, held in the data's spike configuration: a spike that moves by 1 ms costs
        # --spike-weight mV² over the data's number of spikes
        kept = difflab.LossSum((difflab.MSE(), times), weights=(1.0, args.spike_weight))
        fit = difflab.calibrate(cell, clamps, data, params=bounds, loss=kept, compare=compare, starts=starts,
                                steps=args.steps, optimizer="lm", options=options, run=run)  # fmt: skip
        starts = {name: fit.history[name].isel(step=-1).values.reshape(-1).tolist() for name in fitted}
        print(f"trace and spike-time stage: {time.perf_counter() - t:.1f} s, losses "
              + " ".join(f"{x:.4g}" for x in fit.losses.values.reshape(-1)))  # fmt: skip
        print(
            "  of which MSE (mV²) "
            + " ".join(f"{x:.4g}" for x in fit.term_losses.sel(term="MSE").values)
            + ", spike times (ms²) "
            + " ".join(f"{x:.3g}" for x in fit.term_losses.sel(term="SpikeTimes").values)
        )
        if args.terms:
            report_terms("after the trace and spike-time stage", cell, clamps, data, clean_spikes, starts, observe,
                         info, options)  # fmt: skip
        steps_left = args.polish
    else:
        steps_left = args.steps
    fit = difflab.calibrate(cell, clamps, data, params=bounds, loss=loss, compare=compare, starts=starts,
                            steps=steps_left, optimizer="lm", options=options, run=run)  # fmt: skip
    wall = time.perf_counter() - t

    se = {name: float(fit.stderr[name]) / truth[name] for name in fitted}
    identified = [name for name in fitted if se[name] < 0.05]
    print(
        f"wall {wall:.1f} s ({wall / 60:.1f} min), {fit.steps} steps, best loss {float(fit.losses.min()):.4f} "
        + ("(squared z-scores)" if args.loss == "features" else f"mV² (noise variance {args.noise**2:g})")
    )
    print("best fit: " + ", ".join(f"{n} {float(fit.best[n]):.5g} (truth {truth[n]:.5g}, SE {100 * se[n]:.2f} %)"
                                   for n in fitted))  # fmt: skip
    final = {name: fit.history[name].isel(step=-1).values.reshape(-1) if fit.steps else np.asarray(starts[name])
             for name in fitted}  # fmt: skip
    losses = fit.losses.values.reshape(-1)
    # the first step at which each start's loss is within 1 % of the best final loss
    history = fit.history["loss"].values.reshape(fit.history["loss"].shape[0], args.starts)
    reached = [int(np.argmax(history[:, k] <= 1.01 * losses.min())) if np.any(history[:, k] <= 1.01 * losses.min())
               else -1 for k in range(args.starts)]  # fmt: skip
    good = 0
    for k in range(args.starts):
        errors = {n: final[n][k] / truth[n] - 1.0 for n in fitted}
        ok = all(abs(errors[n]) <= 0.02 for n in identified)
        good += ok
        print(f"  start {k}: from " + " ".join(f"{draws[k, j]:.2f}x" for j in range(len(fitted)))
              + f" -> loss {losses[k]:.4f} (within 1 % of the best from step {reached[k]}),"
              + " errors " + " ".join(f"{100 * errors[n]:+.2f}%" for n in fitted)
              + ("  within 2 %" if ok else ""))  # fmt: skip
    print(f"{good} of {args.starts} starts within 2 % of the truth on the {len(identified)} identified parameters "
          f"({', '.join(identified)}); wall {wall:.1f} s")  # fmt: skip


if __name__ == "__main__":
    main()
