"""Battery cases, classes 5, 13: multi-compartment cells, morphologies and NWB recordings."""

from __future__ import annotations

from battery.framework import case


@case("cell.gbar-negative", "5", r"dend.gbar_na must be >= 0 mS/cm\^2; got -20")
def _(ctx):
    from difflab.neuron import Cell

    return Cell.ball_and_stick(nseg=3).replace(**{"dend.gbar_na": -20.0})


@case("cell.cm-zero", "5", r"soma.cm must be > 0 uF/cm\^2; got 0")
def _(ctx):
    from difflab.neuron import Cell

    return Cell.ball_and_stick(nseg=3).replace(**{"soma.cm": 0.0})


@case("cell.Ra-negative-member", "5", r"dend.Ra must be > 0 ohm cm; got -1.0 \(member 1")
def _(ctx):
    import difflab
    from difflab.neuron import Cell

    return difflab.make_batch(Cell.ball_and_stick(nseg=3), **{"dend.Ra": [100.0, -1.0]})


@case(
    "cell.Ra-negative-traced-member", "5",
    check=lambda ok: (ok == [True, False], f"succeeded per member: {ok}"),
)  # fmt: skip
def _(ctx):
    import jax
    import jax.numpy as jnp
    import numpy as np

    import difflab
    from difflab.neuron import Cell

    cell, ts = Cell.ball_and_stick(nseg=3), jnp.arange(0.0, 0.5, 0.025)
    run = jax.vmap(lambda r: difflab.simulate(cell.replace(**{"dend.Ra": r}), None, ts, throw=False).succeeded)
    return np.asarray(run(jnp.array([100.0, -1.0]))).tolist()


def _nwb(path, stim_start=0.0, numbers=(0,)):
    """A small current-clamp NWB file: one 10 ms sweep per entry of `numbers` (sweep_number), 10 kHz."""
    import datetime

    import numpy as np
    import pynwb
    from pynwb.icephys import CurrentClampSeries, CurrentClampStimulusSeries

    nwb = pynwb.NWBFile("battery", "battery", datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    electrode = nwb.create_icephys_electrode(name="e0", description="cell", device=nwb.create_device("amp"))
    for k, number in enumerate(numbers):
        n = np.uint32(number)
        nwb.add_acquisition(CurrentClampSeries(name=f"response_{k}", data=np.full(100, -0.065), starting_time=0.0,
                                               rate=1e4, electrode=electrode, gain=1.0, sweep_number=n))  # fmt: skip
        nwb.add_stimulus(CurrentClampStimulusSeries(name=f"stimulus_{k}", data=np.zeros(100), rate=1e4,
                                                    starting_time=stim_start, electrode=electrode, gain=1.0,
                                                    sweep_number=n))  # fmt: skip
    with pynwb.NWBHDF5IO(str(path), "w") as io:
        io.write(nwb)
    return path


@case("nwb.stimulus-starts-later", "11", r"sweep 0: the stimulus starts at 0.01 s and the response at 0 s")
def _(ctx):
    import difflab

    return difflab.io.read_nwb(_nwb(ctx.tmp / "late.nwb", stim_start=0.01), area_um2=100.0)


@case("nwb.repeated-sweep-number", "11", r"'response_0' and 'response_1' both have sweep_number 3")
def _(ctx):
    import difflab

    return difflab.io.read_nwb(_nwb(ctx.tmp / "twice.nwb", numbers=(3, 3)), area_um2=100.0)


@case("nwb.sweeps-empty", "19", r"sweeps must name at least one sweep number")
def _(ctx):
    import difflab

    return difflab.io.read_nwb(_nwb(ctx.tmp / "ok.nwb"), area_um2=100.0, sweeps=[])


@case("swc.x-nan", "13", r"line 1: point 1 needs a finite x \(µm\); got nan")
def _(ctx):
    from difflab.neuron import read_swc

    path = ctx.tmp / "nan.swc"
    path.write_text("1 1 nan 0 0 5 -1\n2 3 10 0 0 1 1\n")
    return read_swc(path)


@case("features.nan-in-trace", "6", r"V \(a missing sample has no features.*must be finite; found 1 NaN")
def _(ctx):
    import numpy as np

    from difflab.neuron import spike_features

    ts = np.arange(0.0, 50.0, 0.025)
    V = np.full_like(ts, -65.0)
    V[100] = np.nan
    return spike_features(ts, V, (10.0, 40.0))


@case("features.times-not-increasing", "19", r"ts must increase strictly")
def _(ctx):
    import numpy as np

    from difflab.neuron import spike_features

    ts = np.arange(0.0, 50.0, 0.025)[::-1]
    return spike_features(ts, np.full_like(ts, -65.0), (10.0, 40.0))


@case("features.unknown-feature", "15", r"scales: unknown feature 'AP_halfwidth'; known: .*AP_duration_half_width")
def _(ctx):
    from difflab.neuron import SpikeFeatures

    return SpikeFeatures(scales={"AP_halfwidth": 0.1}, stimulus=(10.0, 40.0))


@case("features.scale-zero", "19", r"scales\['AP_amplitude'\] must be a finite number > 0")
def _(ctx):
    from difflab.neuron import SpikeFeatures

    return SpikeFeatures(scales={"AP_amplitude": 0.0}, stimulus=(10.0, 40.0))


@case("features.stimulus-reversed", "19", r"stimulus must be \(stim_start, stim_end\) in ms with stim_end > stim_start")
def _(ctx):
    from difflab.neuron import SpikeFeatures

    return SpikeFeatures(scales={"mean_frequency": 1.0}, stimulus=(40.0, 10.0))


@case("features.fit-gappy-recording", "11", check=lambda gap: (gap < 1e-6, f"largest relative error {gap:.2e}"))
def _(ctx):
    import warnings

    import numpy as np

    import difflab
    from difflab.neuron import HodgkinHuxley, SpikeFeatures

    ts = np.arange(0.0, 60.0 + 1e-9, 0.025)
    protocol = difflab.Step(10.0, 10.0, 50.0)
    V = np.array(difflab.simulate(HodgkinHuxley.squid_axon(), protocol, ts)["V"])
    V[40:200] = np.nan  # a gap in the recording, before the step: the features hold the last sample
    loss = SpikeFeatures(scales={"AP_amplitude": 1.0, "mean_frequency": 1.0}, stimulus=(10.0, 50.0), max_spikes=8)
    params = {"gNa": difflab.Bounded(80.0, 180.0)}
    with warnings.catch_warnings():  # noise-free data: the discretisation outweighs the standard errors
        warnings.simplefilter("ignore", difflab.CalibrationWarning)
        fit = difflab.calibrate(HodgkinHuxley.squid_axon().replace(gNa=130.0), protocol, {"time": ts, "V": V},
                                params=params, loss=loss, steps=20, run=difflab.RunOptions(refine=False))  # fmt: skip
    return abs(float(fit.best["gNa"]) / 120.0 - 1)


@case("features.stimulus-after-recording", "19", r"stimulus \(700.0, 2700.0\) \(ms\) does not overlap the samples")
def _(ctx):
    import numpy as np

    import difflab
    from difflab.neuron import HodgkinHuxley, SpikeFeatures

    ts = np.arange(0.0, 20.0 + 1e-9, 0.025)
    V = np.asarray(difflab.simulate(HodgkinHuxley.squid_axon(), difflab.Step(10.0, 2.0, 18.0), ts)["V"])
    loss = SpikeFeatures(scales={"AP_amplitude": 1.0}, stimulus=(700.0, 2700.0))  # Step1's window on 20 ms of data
    return difflab.calibrate(HodgkinHuxley.squid_axon(), difflab.Step(10.0, 2.0, 18.0), {"time": ts, "V": V},
                             params={"gNa": difflab.Bounded(80.0, 180.0)}, loss=loss, steps=1)  # fmt: skip
