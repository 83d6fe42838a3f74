"""Reference of a small network of multi-compartment cells from NEURON 9 (`neuron==9.0.2`, separate venv).

    PEER_PYTHON datasets/neuron/generate_cell_network.py

Four ball-and-stick cells of two types, six synapses on dendrites (`Exp2Syn`, `ExpSyn` and the NMDA synapse of
`mod/nmda_exp2.mod`) driven through `NetCon`s from the presynaptic somata, one gap junction between two dendrites
(`mod/gap.mod`), an `IClamp` on cell 0. Compiles both .mod files with `nrnivmodl` in a temporary folder and writes
`cell_network.nc`. Settings and provenance: README.md here.
"""

from __future__ import annotations

import platform
from pathlib import Path

import neuron
import numpy as np
from generate_cells import DT_OUT, _geometry, run  # the same CVODE settings, sampling and dataset layout
from generate_cells import _dataset as dataset
from generate_nmda import compile_mechanism
from neuron import h

HERE = Path(__file__).resolve().parent
TOL, TOL_CHECK = 1e-9, 1e-8  # CVODE atol = rtol: the reference, and the looser run it is checked against

# two cell types: the ball and stick of generate_cells.BALL_AND_STICK and one with a shorter, thinner dendrite
SOMA = dict(L=20.0, diam=20.0, nseg=1, gnabar=0.12, gkbar=0.036, gl=0.0003)  # um, S/cm2
CELL_TYPES = {
    "ball_and_stick": {"soma": SOMA, "dend": dict(L=500.0, diam=2.0, nseg=21, gnabar=0.03, gkbar=0.01, gl=0.0001)},
    "short_dend": {"soma": SOMA, "dend": dict(L=300.0, diam=1.5, nseg=11, gnabar=0.02, gkbar=0.01, gl=0.0001)},
}
RA, CM, ENA, EK, EL = 100.0, 1.0, 50.0, -77.0, -54.3  # ohm cm, uF/cm2, mV

SYN_KEYS = ("pre", "post", "location", "mechanism", "weight", "delay", "tau1", "tau2", "e", "mg")
NAN = float("nan")
NETWORK = {
    "cells": ["ball_and_stick", "ball_and_stick", "ball_and_stick", "short_dend"],
    # Weights: the excitatory 0 -> 1, 1 -> 2 and 1 -> 3 synapses each fire their cell on every presynaptic spike
    # (alone they need about 0.003 uS), 2 -> 3 adds to 1 -> 3; every cell fires 14 spikes, and the counts stay so
    # under +-10 % changes of any weight or of g and +-3 % of the clamp. The NMDA synapse adds to cell 2's drive
    # and moves its spikes; the inhibitory one is weak (the clamp keeps cell 0 near hh's bistable range, where a
    # strong IPSP stops its firing for good).
    # pre, post, location on post, mechanism, weight (uS: Exp2Syn/NMDAExp2 peak, ExpSyn jump), delay (ms),
    # tau1 (ms; NaN for ExpSyn), tau2 (ms; ExpSyn's tau), e (mV), mg (mM; NaN where none)
    "synapses": [
        (0, 1, "dend(0.7)", "Exp2Syn", 0.008, 1.5, 0.5, 3.0, 0.0, NAN),
        (1, 2, "dend(0.3)", "Exp2Syn", 0.006, 2.0, 0.2, 5.0, 0.0, NAN),
        (0, 2, "dend(0.5)", "NMDAExp2", 0.003, 1.0, 2.0, 20.0, 0.0, 1.0),
        (2, 0, "dend(0.2)", "Exp2Syn", 0.001, 3.0, 1.0, 6.0, -80.0, NAN),  # inhibitory
        (1, 3, "dend(0.9)", "ExpSyn", 0.01, 1.0, NAN, 2.0, 0.0, NAN),
        (2, 3, "dend(0.5)", "Exp2Syn", 0.004, 2.5, 0.5, 3.0, 0.0, NAN),
    ],
    "gap": (1, "dend(0.9)", 3, "dend(0.3)", 0.0005),  # cell a, location a, cell b, location b, g (uS)
    "stimuli": [("cell0.soma", 0.5, 5.0, 190.0, 0.32)],  # section, x, delay (ms), dur (ms), amplitude (nA)
    "tstop": 200.0,
}


def build(p):
    """The cells, synapses and gap junction of `p`: (sections by "cell<i>.<section>", NEURON objects to keep,
    the synapse NetCons, the two gap junction halves)."""
    sections = {}
    for i, kind in enumerate(p["cells"]):
        soma, dend = h.Section(name=f"cell{i}_soma"), h.Section(name=f"cell{i}_dend")
        dend.connect(soma(1.0))
        for sec, key in ((soma, "soma"), (dend, "dend")):
            q = CELL_TYPES[kind][key]
            sec.L, sec.diam, sec.nseg, sec.Ra, sec.cm = q["L"], q["diam"], q["nseg"], RA, CM
            sec.insert("hh")
            sec.ena, sec.ek = ENA, EK
            for seg in sec:
                seg.hh.gnabar, seg.hh.gkbar, seg.hh.gl, seg.hh.el = q["gnabar"], q["gkbar"], q["gl"], EL
            sections[f"cell{i}.{key}"] = sec

    def segment(cell, location):
        name, x = location.rstrip(")").split("(")
        return sections[f"cell{cell}.{name}"](float(x))

    keep, netcons = [], []
    for pre, post, location, mechanism, weight, delay, tau1, tau2, e, mg in p["synapses"]:
        syn = getattr(h, mechanism)(segment(post, location))
        if mechanism == "ExpSyn":
            syn.tau = tau2
        else:
            syn.tau1, syn.tau2 = tau1, tau2
        if mechanism == "NMDAExp2":
            syn.mg = mg
        syn.e = e
        nc = h.NetCon(sections[f"cell{pre}.soma"](0.5)._ref_v, syn, sec=sections[f"cell{pre}.soma"])
        nc.threshold, nc.delay, nc.weight[0] = 0.0, delay, weight
        keep.append(syn)
        netcons.append(nc)
    cell_a, loc_a, cell_b, loc_b, g = p["gap"]
    seg_a, seg_b = segment(cell_a, loc_a), segment(cell_b, loc_b)
    gaps = (h.GapJunction(seg_a), h.GapJunction(seg_b))
    h.setpointer(seg_b._ref_v, "vgap", gaps[0])
    h.setpointer(seg_a._ref_v, "vgap", gaps[1])
    for half in gaps:
        half.g = g
    return sections, keep, netcons, gaps


def sites(p):
    """Recording sites: every soma(0.5), then every synapse's and both gap junction sites (each once)."""
    out = [f"cell{i}.soma(0.5)" for i in range(len(p["cells"]))]
    cell_a, loc_a, cell_b, loc_b, _ = p["gap"]
    more = [f"cell{s[1]}.{s[2]}" for s in p["synapses"]] + [f"cell{cell_a}.{loc_a}", f"cell{cell_b}.{loc_b}"]
    return out + [s for k, s in enumerate(more) if s not in more[:k] and s not in out]


def _max_spike_difference(a, b):
    """Largest |a - b| over every site's spike times (inf where the counts differ)."""
    worst = 0.0
    for site in a:
        if len(a[site]) != len(b[site]):
            return float("inf")
        if len(a[site]):
            worst = max(worst, float(np.max(np.abs(np.asarray(a[site]) - np.asarray(b[site])))))
    return worst


def _effect(times, V, V_without, columns, somata):
    """What a synapse or junction does at `columns`: the largest |V - V_without| over the run (spike shifts
    included), and before the first time any soma differs by more than 1 mV (its direct, subthreshold part)."""
    diff = np.abs(V - V_without)
    apart = np.any(diff[:, somata] > 1.0, axis=1)
    first = int(np.argmax(apart)) if apart.any() else times.size
    return float(diff[:, columns].max()), float(diff[:first, columns].max()), float(times[min(first, times.size - 1)])


def _gap_check(p, sections, gaps, simulate, spikes, V):
    """The same network with the junction as a `LinearMechanism` instead of `mod/gap.mod`: its conductance enters
    the current balance matrix, and NEURON then integrates with IDA. Returns (largest spike-time difference, ms;
    largest |dV|, mV). Last: the mechanism changes the solver for every later run."""
    for half in gaps:
        half.g = 0.0
    cell_a, loc_a, cell_b, loc_b, g = p["gap"]
    nodes = []
    for cell, location in ((cell_a, loc_a), (cell_b, loc_b)):
        name, x = location.rstrip(")").split("(")
        nodes.append((sections[f"cell{cell}.{name}"], float(x)))
    # interior nodes balance current densities (mA/cm2): g (uS) over the node's area (um2) is 100 g / area S/cm2
    c, G = h.Matrix(2, 2, 2), h.Matrix(2, 2, 2)
    for row, (sec, x) in enumerate(nodes):
        density = 100.0 * g / sec(x).area()
        G.setval(row, row, density)
        G.setval(row, 1 - row, -density)
    y, b, where = h.Vector(2), h.Vector(2), h.SectionList()
    for sec, _ in nodes:
        where.append(sec=sec)
    mechanism = h.LinearMechanism(c, G, y, b, where, h.Vector([x for _, x in nodes]))
    _, V_linear, spikes_linear = simulate()
    del mechanism
    return _max_spike_difference(spikes, spikes_linear), float(np.max(np.abs(V - V_linear)))


def cell_network():
    p = NETWORK
    sections, _synapses, netcons, gaps = build(p)  # _synapses: NEURON objects live only while referenced
    record, somata = sites(p), [f"cell{i}.soma(0.5)" for i in range(len(p["cells"]))]
    # NetCon thresholds and spike times at the interpolated crossing, not at the end of the CVODE step that
    # detects it (condition_order 1, NEURON's default): here synaptic events follow spikes, and step-end dating
    # moved the whole network's spikes by ~0.08 ms at atol = rtol = 1e-9
    h.CVode().condition_order(2)

    def simulate(tol=TOL):
        return run(sections, p["stimuli"], record, p["tstop"], somata, tol=tol)

    times, V, spikes = simulate()
    _, _, spikes_check = simulate(TOL_CHECK)
    check = _max_spike_difference(spikes, spikes_check)

    # what the NMDA synapse and the gap junction contribute: the same run without each
    nmda = next(k for k, s in enumerate(p["synapses"]) if s[3] == "NMDAExp2")
    netcons[nmda].weight[0] = 0.0
    _, V_no_nmda, spikes_no_nmda = simulate()
    netcons[nmda].weight[0] = p["synapses"][nmda][4]
    for half in gaps:
        half.g = 0.0
    _, V_no_gap, _ = simulate()
    for half in gaps:
        half.g = p["gap"][4]
    soma_columns = list(range(len(somata)))
    nmda_post = p["synapses"][nmda][1]
    nmda_site = f"cell{nmda_post}.{p['synapses'][nmda][2]}"
    nmda_all, nmda_direct, nmda_t = _effect(times, V, V_no_nmda, [record.index(nmda_site)], soma_columns)
    post_soma = somata[nmda_post]
    nmda_shift = _max_spike_difference({post_soma: spikes[post_soma]}, {post_soma: spikes_no_nmda[post_soma]})
    cell_b = p["gap"][2]
    b_sites = [k for k, r in enumerate(record) if r.startswith(f"cell{cell_b}.dend")]
    gap_all, gap_direct, gap_t = _effect(times, V, V_no_gap, b_sites, soma_columns)

    gap_check_ms, gap_check_mV = _gap_check(p, sections, gaps, simulate, spikes, V)

    ds = dataset(times, V, record, spikes, _geometry(sections))
    ds["V"].encoding.update(zlib=True, complevel=6, shuffle=True)  # lossless; float64 kept
    _synapse_arrays(ds, p)
    _cell_arrays(ds, p)
    ds.attrs.update(
        simulator_version=neuron.__version__,
        python_version=platform.python_version(),
        tolerance=f"CVODE atol = rtol = {TOL:g}",
        integration=(
            f"global CVODE, atol = rtol = {TOL:g}, condition_order 2 (threshold crossings interpolated within the "
            f"step); saved every {DT_OUT} ms with CVode.solve(t)"
        ),
        cell=(
            f"{len(p['cells'])} cells (cell_type, geometry and hh densities in the per-cell arrays): soma and dend "
            f"(attached at soma(1)); Ra {RA:g} ohm cm, cm {CM:g} uF/cm2, hh everywhere with ena {ENA:g}, "
            f"ek {EK:g}, el {EL:g} mV; celsius 6.3"
        ),
        stimuli="; ".join(f"IClamp {s}({x:g}) {a:g} nA on [{d:g}, {d + dur:g}) ms" for s, x, d, dur, a in p["stimuli"]),
        tstop_ms=p["tstop"],
        synapses=(
            "one point process per synapse at syn_location on cell syn_post, driven by a NetCon from cell syn_pre's "
            "soma(0.5) v (threshold 0 mV) with syn_weight and syn_delay; Exp2Syn (every tau1/tau2 < 0.9999, used "
            "unchanged), ExpSyn, NMDAExp2 (mod/nmda_exp2.mod: Exp2Syn kinetics times "
            "1 / (1 + exp(-0.062 v) mg / 3.57))"
        ),
        gap_junction=(
            "mod/gap.mod, one GapJunction point process per side, each with a POINTER to the other side's v: "
            "i = g (v - v_other) nA out of each side (equal and opposite); CVODE integrates both sides as one system"
        ),
        location_naming=(
            "cell<i>.<section>(x): V of the segment that contains x (NEURON's seg.v), where the synapse or gap "
            "junction at that x sits"
        ),
        spike_check=(
            f"spike times at CVODE atol = rtol = {TOL_CHECK:g} differ from these by at most {check:.2e} ms "
            "(same counts)"
            if np.isfinite(check)
            else f"spike counts differ at atol = rtol = {TOL_CHECK:g}"
        ),
        spike_check_ms=check,
        nmda_effect=(
            f"V at {nmda_site} without the NMDA synapse differs by up to {nmda_all:.3g} mV over the run (cell "
            f"{nmda_post}'s spikes move by up to {nmda_shift:.3g} ms), by {nmda_direct:.3g} mV before any soma's V "
            f"differs by more than 1 mV ({nmda_t:g} ms)"
        ),
        nmda_effect_mV=nmda_all,
        gap_effect=(
            f"V at cell{cell_b}'s dendritic sites with g = 0 differs by up to {gap_all:.3g} mV over the run and by "
            f"{gap_direct:.3g} mV before any soma's V differs by more than 1 mV ({gap_t:g} ms)"
        ),
        gap_effect_mV=gap_all,
        gap_check=(
            "the junction as a LinearMechanism (g / area in the current balance matrix; NEURON then integrates "
            f"with IDA, atol = rtol = {TOL:g}) instead: spike times differ by at most {gap_check_ms:.2e} ms, V by "
            f"{gap_check_mV:.2e} mV"
        ),
        gap_check_ms=gap_check_ms,
    )
    return ds


def _synapse_arrays(ds, p):
    units = {"weight": "uS", "delay": "ms", "tau1": "ms", "tau2": "ms", "e": "mV", "mg": "mM"}
    long_names = {
        "pre": "presynaptic cell (NetCon source: its soma(0.5) v, threshold 0 mV)",
        "post": "postsynaptic cell",
        "location": "section(x) of the synapse on the postsynaptic cell",
        "mechanism": "point process (Exp2Syn, ExpSyn, NMDAExp2 of mod/nmda_exp2.mod)",
        "weight": "NetCon weight (Exp2Syn, NMDAExp2: peak conductance, unblocked for NMDA; ExpSyn: jump)",
        "delay": "NetCon delay",
        "tau1": "rise time constant (NaN for ExpSyn)",
        "tau2": "decay time constant (ExpSyn: tau)",
        "e": "reversal potential",
        "mg": "extracellular magnesium of the NMDA block (NaN where none)",
    }
    columns = list(zip(*p["synapses"], strict=True))
    for key, column in zip(SYN_KEYS, columns, strict=True):
        attrs = {"long_name": long_names[key]} | ({"units": units[key]} if key in units else {})
        ds[f"syn_{key}"] = ("synapse", np.array(column), attrs)
    cell_a, loc_a, cell_b, loc_b, g = p["gap"]
    ds["gap_cell_a"] = ("gap", np.array([cell_a]), {"long_name": "cell of the junction's first side"})
    ds["gap_location_a"] = ("gap", np.array([loc_a]), {"long_name": "section(x) of the first side"})
    ds["gap_cell_b"] = ("gap", np.array([cell_b]), {"long_name": "cell of the junction's second side"})
    ds["gap_location_b"] = ("gap", np.array([loc_b]), {"long_name": "section(x) of the second side"})
    ds["gap_g"] = ("gap", np.array([g]), {"units": "uS", "long_name": "conductance: i = g (v - v_other) each side"})


def _cell_arrays(ds, p):
    ds["cell_type"] = ("cell", np.array(p["cells"]), {"long_name": "cell type (soma and dend as below)"})
    for key in ("soma", "dend"):
        rows = [CELL_TYPES[kind][key] for kind in p["cells"]]
        for field, units in (("L", "um"), ("diam", "um"), ("nseg", "1"), ("gnabar", "S/cm2"), ("gkbar", "S/cm2"),
                             ("gl", "S/cm2")):  # fmt: skip
            ds[f"{key}_{field}"] = ("cell", np.array([r[field] for r in rows]), {"units": units})


if __name__ == "__main__":
    compile_mechanism(("nmda_exp2.mod", "gap.mod"))
    ds = cell_network()
    ds.to_netcdf(HERE / "cell_network.nc")
    counts = np.sum(np.isfinite(ds["spike_times"].values), axis=1)
    print("wrote cell_network.nc; spikes per cell", counts.tolist(), ";", ds.attrs["spike_check"])
    print(ds.attrs["nmda_effect"], ";", ds.attrs["gap_effect"], ";", ds.attrs["gap_check"])
