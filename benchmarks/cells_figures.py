"""Figures of docs/cells.md: real morphologies coloured by membrane potential, traces along a dendrite, the
L5 pyramidal cell's back-propagating action potential against NEURON's, and a network of multi-compartment cells
against NEURON's.

python benchmarks/cells_figures.py      # writes docs/img/cells_*.png (about two minutes on one CPU core)
"""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import matplotlib
import numpy as np

import difflab
from difflab.neuron import Cell, IClamp, LeakChannel, PotassiumChannel, Region, SodiumChannel, l5pc, read_swc
from difflab.neuron._validation_cell_network import cell_network_from

matplotlib.use("Agg")
import matplotlib.pyplot as plt

OUT = Path(__file__).resolve().parents[1] / "docs" / "img"


def morphology_by_voltage():
    """The hemibrain DA1 lPN (1289 sections) at three moments of a spike spreading from the root section."""
    morph = read_swc(difflab.datasets.path("neuron/da1_lpn_722817260.swc"))
    hh = {"na": SodiumChannel(120.0, 50.0), "k": PotassiumChannel(36.0, -77.0), "leak": LeakChannel(0.3, -54.3)}
    cell = Cell(morph, {"dend": Region(hh, Ra=100.0)})
    ts = jnp.array([0.0, 5.4, 6.6, 7.8])
    V = np.asarray(difflab.simulate(cell, IClamp({"dend[0](0.5)": difflab.Step(0.3, 5.0, 45.0)}), ts)["V"])
    fig, axes = plt.subplots(1, 3, figsize=(12, 4.4), layout="constrained")
    for ax, k in zip(axes, (1, 2, 3), strict=True):
        difflab.plot.morphology(cell, V[k], clim=(-80.0, 40.0), colorbar=False, ax=ax)
        ax.set_title(f"t = {float(ts[k]):.1f} ms")
    for ax in axes[1:]:
        ax.set_ylabel("")
    fig.colorbar(axes[0].collections[0], ax=axes, label="V (mV)", shrink=0.8)
    fig.savefig(OUT / "cells_da1_voltage.png", dpi=110)


def traces_along_dendrite():
    """The ball-and-stick cell: V at the soma and along the dendrite; the spike back-propagates with a delay."""
    cell = Cell.ball_and_stick()
    stim = IClamp({"soma(0.5)": difflab.Step(0.25, 5.0, 45.0), "dend(0.8)": difflab.Step(0.1, 20.0, 30.0)})
    places = ["soma(0.5)", "dend(0.1)", "dend(0.3)", "dend(0.5)", "dend(0.7)", "dend(0.9)", "dend(1)"]
    observe, info = cell.recorder(places)
    ts = jnp.linspace(0.0, 60.0, 2401)
    traj = difflab.simulate(cell, stim, ts, observe=observe, observe_info=info)
    ref = difflab.datasets.load("neuron/ball_and_stick")
    fig, (top, zoom) = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained", width_ratios=(2, 1))
    colours = plt.cm.plasma(np.linspace(0, 0.85, len(places)))
    for place, colour in zip(places, colours, strict=True):
        for ax in (top, zoom):
            ax.plot(ts, traj[place], color=colour, lw=1.2, label=place)
    for k in range(ref.sizes["location"]):
        zoom.plot(ref["time"], ref["V"][:, k], "k:", lw=1.0, label="NEURON" if k == 0 else None)
    zoom.set_xlim(5.5, 10.5)
    top.set_xlabel("time (ms)")
    zoom.set_xlabel("time (ms)")
    top.set_ylabel("V (mV)")
    top.legend(ncol=2, frameon=False, fontsize=8)
    zoom.legend(frameon=False, fontsize=8, loc="upper right")
    zoom.set_title("first spike; dotted: NEURON at 5 of the places")
    fig.savefig(OUT / "cells_ball_and_stick_traces.png", dpi=110)


def l5pc_bap():
    """The L5PC's bAP protocol (1.9 nA over [295, 300) ms at the soma): V at the somatic peak, the amplitude (peak
    after the onset minus V just before it) on the cell and against path distance, with NEURON's amplitude in
    every segment (datasets/neuron/l5pc_bap.nc, CVODE at 1e-9)."""
    cell = l5pc()
    onset = 295.0
    ts = jnp.concatenate([jnp.array([0.0, 290.0]), jnp.arange(294.0, 330.0 + 1e-9, 0.025)])
    clamp = IClamp({"soma[0](0.5)": difflab.Step(1.9, onset, 300.0)})
    traj = difflab.simulate(cell, clamp, ts, dt0=0.0125)
    V = np.asarray(traj["V"])
    peak = float(ts[int(np.argmax(V[:, 0]))])  # soma[0] has one compartment, the first
    after, before = np.asarray(ts) >= onset, np.flatnonzero(np.asarray(ts) < onset)[-1]
    amplitude = V[after].max(axis=0) - V[before]
    ref = difflab.datasets.load("neuron/l5pc_bap")  # segments in the morphology's compartment order
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(16, 6.4), layout="constrained", width_ratios=(1, 1, 1.3))
    difflab.plot.morphology(cell, traj, time=peak, clim=(-80.0, 40.0), ax=left)
    left.set_title(f"V at the somatic peak, {peak - onset:.2f} ms after the onset")
    difflab.plot.morphology(cell, amplitude, name="bAP amplitude", units="mV", cmap="magma", ax=middle)
    middle.set_title("bAP amplitude")
    difflab.plot.bap(cell, traj, onset=onset, reference=(ref["seg_distance"].values, ref["amplitude"].values), ax=right)
    right.set_title("bAP amplitude; circles: NEURON (CVODE 1e-9)")
    fig.savefig(OUT / "cells_l5pc_bap.png", dpi=110)
    error = np.abs(amplitude - ref["amplitude"].values)
    print(
        f"somatic peak {peak:.3f} ms; amplitude {amplitude.min():.2f} to {amplitude.max():.2f} mV, against NEURON "
        f"max |difference| {error.max():.3f} mV (median {np.median(error):.3f})"
    )


def cell_network():
    """The four-cell reference network: somatic and dendritic potentials against NEURON's, at the default step."""
    ref = difflab.datasets.load("neuron/cell_network")
    net = cell_network_from(ref)
    shown = ["cell0.soma(0.5)", "cell2.soma(0.5)", "cell2.dend(0.5)", "cell3.dend(0.3)"]
    observe, info = net.recorder(shown)
    ts = ref["time"].values
    clamp = IClamp({"cell0.soma(0.5)": difflab.Step(0.32, 5.0, 195.0)})
    traj = difflab.simulate(net, clamp, ts, observe=observe, observe_info=info)
    locations = [str(x) for x in ref["location"].values]
    fig, axes = plt.subplots(len(shown), 1, figsize=(9, 7.5), sharex=True, layout="constrained")
    window = (ts >= 60.0) & (ts <= 120.0)
    for ax, name in zip(axes, shown, strict=True):
        want = ref["V"].values[:, locations.index(name)]
        ax.plot(ts[window], want[window], color="0.6", lw=3.5, label="NEURON 9 (CVODE 1e-9)")
        ax.plot(ts[window], np.asarray(traj[name])[window], color="C3", lw=1.2, label="difflab, dt 0.025 ms")
        ax.set_ylabel(f"{name}\nV (mV)")
    axes[0].legend(loc="center right", fontsize=8)
    axes[-1].set_xlabel("time (ms)")
    fig.savefig(OUT / "cells_network.png", dpi=110)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    cell_network()
    l5pc_bap()
    traces_along_dendrite()
    morphology_by_voltage()
    print("wrote", *sorted(p.name for p in OUT.glob("cells_*.png")))
