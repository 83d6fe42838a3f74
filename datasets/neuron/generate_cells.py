"""Reference traces of multi-compartment cells from NEURON 9 (run in a separate environment with `neuron==9.0.2`).

    python datasets/neuron/generate_cells.py [ball_and_stick] [swc] [da1_lpn] [network] [network_exp2]

Writes `ball_and_stick.nc`, `*_import3d.nc`, `da1_lpn.nc`, `network.nc`, `network_exp2.nc`. Settings and
provenance: README.md here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import neuron
import numpy as np
import xarray as xr
from neuron import h

HERE = Path(__file__).resolve().parent
TOL = 1e-9  # CVODE atol = rtol
DT_OUT = 0.025  # ms between saved samples
h.load_file("stdrun.hoc")
h.usetable_hh = 0  # the exact rate formulas of hh.mod, not its 1-mV lookup table

# ball and stick: soma with hh, a 500 µm dendrite with weaker hh
BALL_AND_STICK = {
    "soma": dict(L=20.0, diam=20.0, nseg=1, gnabar=0.12, gkbar=0.036, gl=0.0003),
    "dend": dict(L=500.0, diam=2.0, nseg=21, gnabar=0.03, gkbar=0.01, gl=0.0001),
    "Ra": 100.0,
    "cm": 1.0,
    "stimuli": [("soma", 0.5, 5.0, 40.0, 0.25), ("dend", 0.8, 20.0, 10.0, 0.1)],  # section, x, delay, dur, nA
    "record": ["soma(0.5)", "dend(0.1)", "dend(0.5)", "dend(0.9)", "dend(1)"],
    "tstop": 60.0,
}


def run(sections, stimuli, record, tstop, spike_sites, tol=TOL):
    """Run with CVODE (atol = rtol = ``tol``) to ``tstop``; V at every location every DT_OUT ms and spike times
    at ``spike_sites``."""
    clamps = []
    for name, x, delay, dur, amp in stimuli:
        clamp = h.IClamp(sections[name](x))
        clamp.delay, clamp.dur, clamp.amp = delay, dur, amp
        clamps.append(clamp)
    counters = {}
    for site in spike_sites:
        name, x = _parse(site)
        nc = h.NetCon(sections[name](x)._ref_v, None, sec=sections[name])
        nc.threshold = 0.0
        vec = h.Vector()
        nc.record(vec)
        counters[site] = (nc, vec)
    cvode = h.CVode()
    cvode.active(1)
    cvode.atol(tol)
    cvode.rtol(tol)
    # threshold crossings interpolated inside the integrator's step: NEURON's default (condition_order 1) dates a
    # crossing at the end of the step that finds it, up to 0.018 ms late here, and a NetCon then delivers its
    # events late by as much
    cvode.condition_order(2)
    h.celsius = 6.3
    h.finitialize(-65.0)
    times = np.round(np.arange(0.0, tstop + DT_OUT / 2, DT_OUT), 10)
    V = np.zeros((times.size, len(record)))
    segs = [sections[_parse(r)[0]](_parse(r)[1]) for r in record]
    for k, t in enumerate(times):
        if t > 0:
            cvode.solve(t)
        V[k] = [s.v for s in segs]
    spikes = {site: np.array(vec) for site, (_, vec) in counters.items()}
    return times, V, spikes


def _parse(loc):
    name, x = loc.rstrip(")").split("(")
    return name, float(x)


def ball_and_stick():
    p = BALL_AND_STICK
    soma, dend = h.Section(name="soma"), h.Section(name="dend")
    dend.connect(soma(1.0))
    for sec, key in ((soma, "soma"), (dend, "dend")):
        q = p[key]
        sec.L, sec.diam, sec.nseg, sec.Ra, sec.cm = q["L"], q["diam"], q["nseg"], p["Ra"], p["cm"]
        sec.insert("hh")
        for seg in sec:
            seg.hh.gnabar, seg.hh.gkbar, seg.hh.gl = q["gnabar"], q["gkbar"], q["gl"]
    sections = {"soma": soma, "dend": dend}
    times, V, spikes = run(sections, p["stimuli"], p["record"], p["tstop"], ["soma(0.5)", "dend(0.9)"])
    geometry = _geometry(sections)
    ds = _dataset(times, V, p["record"], spikes, geometry)
    ds.attrs["cell"] = (
        "ball and stick: soma L = diam = 20 um, nseg 1, hh (gnabar 0.12, gkbar 0.036, gl 0.0003 S/cm2); dend L 500 um, "
        "diam 2 um, nseg 21, hh (gnabar 0.03, gkbar 0.01, gl 0.0001 S/cm2) attached at soma(1); Ra 100 ohm cm, "
        "cm 1 uF/cm2; ena 50, ek -77, el -54.3 mV; celsius 6.3"
    )
    ds.attrs["stimuli"] = "IClamp soma(0.5) 0.25 nA on [5, 45) ms; IClamp dend(0.8) 0.1 nA on [20, 30) ms"
    return ds


def _geometry(sections):
    """NEURON's own areas (um2) and axial resistances to the parent node (MOhm), segment by segment."""
    names, area, ri = [], [], []
    for name, sec in sections.items():
        for seg in sec:
            names.append(f"{name}({seg.x:.6g})")
            area.append(seg.area())
            ri.append(seg.ri())
    return names, np.array(area), np.array(ri)


def _dataset(times, V, record, spikes, geometry):
    names, area, ri = geometry
    n_max = max([len(s) for s in spikes.values()] + [1])
    spike_table = np.full((len(spikes), n_max), np.nan)
    for i, s in enumerate(spikes.values()):
        spike_table[i, : len(s)] = s
    ds = xr.Dataset(
        {
            "V": (("time", "location"), V, {"units": "mV", "long_name": "membrane potential"}),
            "spike_times": (
                ("spike_site", "spike"),
                spike_table,
                {"units": "ms", "long_name": "upward 0 mV crossings (NetCon, CVODE-interpolated)"},
            ),
            "area": ("segment", area, {"units": "um^2", "long_name": "membrane area of each segment (seg.area())"}),
            "ri": ("segment", ri, {"units": "MOhm", "long_name": "axial resistance to the parent node (seg.ri())"}),
        },
        coords={
            "time": ("time", times, {"units": "ms"}),
            "location": ("location", list(record)),
            "spike_site": ("spike_site", list(spikes)),
            "segment": ("segment", names),
        },
    )
    ds.attrs.update(
        simulator="NEURON",
        simulator_version=neuron.__version__,
        integration=(
            f"global CVODE, atol = rtol = {TOL:g}, condition_order 2 (threshold crossings interpolated); "
            f"saved every {DT_OUT} ms with CVode.solve(t)"
        ),
        initialisation="finitialize(-65): V = -65 mV everywhere, gates at steady state",
        rates="hh.mod with usetable_hh = 0",
    )
    return ds


SWC_FILES = ["soma_one_point.swc", "soma_three_point.swc", "da1_lpn_722817260.swc"]


def import3d(file):
    """Sections as NEURON's Import3d builds them from an SWC file."""
    h.load_file("import3d.hoc")
    reader = h.Import3d_SWC_read()
    reader.input(str(HERE / file))
    h.Import3d_GUI(reader, False).instantiate(None)
    return {sec.name(): sec for sec in h.allsec()}


def swc_geometry(file):
    """Per section: parent, attachment x, number of 3-D points, L; per segment: area and ri (nseg 1)."""
    for sec in list(h.allsec()):
        h.delete_section(sec=sec)
    sections = import3d(file)
    rows = []
    for name, sec in sections.items():
        parent = sec.parentseg()
        rows.append((name, parent.sec.name() if parent else "", parent.x if parent else -1.0, sec.n3d(), sec.L))
    names, parents, xs, n3d, L = map(list, zip(*rows, strict=True))
    seg_names, area, ri = _geometry(sections)
    return sections, xr.Dataset(
        {
            "parent": ("section", parents, {"long_name": "parent section ('' for the root)"}),
            "parent_x": ("section", np.array(xs), {"long_name": "attachment point on the parent"}),
            "n3d": ("section", np.array(n3d), {"long_name": "number of 3-D points"}),
            "L": ("section", np.array(L), {"units": "um", "long_name": "section length"}),
            "area": ("segment", area, {"units": "um^2", "long_name": "membrane area of each segment (seg.area())"}),
            "ri": ("segment", ri, {"units": "MOhm", "long_name": "axial resistance to the parent node (seg.ri())"}),
        },
        coords={"section": names, "segment": seg_names},
        attrs={"simulator": "NEURON", "simulator_version": neuron.__version__, "source": file,
               "import": "Import3d_SWC_read + Import3d_GUI(reader, False).instantiate(None), nseg 1"},
    )  # fmt: skip


DA1_LPN = {
    "file": "da1_lpn_722817260.swc",
    "stimuli": [("dend[0]", 0.5, 5.0, 40.0, 0.3)],
    "record": ["dend[0](0.5)", "dend[100](0.5)", "dend[500](0.5)", "dend[1000](0.5)", "dend[1288](1)"],
    "tstop": 60.0,
}


def da1_lpn():
    """The hemibrain DA1 lPN skeleton with hh everywhere (nseg 1 per section), a clamp at the root section."""
    p = DA1_LPN
    sections, _ = swc_geometry(p["file"])
    for sec in sections.values():
        sec.Ra, sec.cm = 100.0, 1.0
        sec.insert("hh")
    times, V, spikes = run(sections, p["stimuli"], p["record"], p["tstop"], ["dend[0](0.5)", "dend[1000](0.5)"])
    ds = _dataset(times, V, p["record"], spikes, _geometry(sections))
    ds.attrs["cell"] = (
        f"{p['file']} read by Import3d (nseg 1 per section, 1289 sections); hh everywhere at its defaults (gnabar "
        "0.12, gkbar 0.036, gl 0.0003 S/cm2, ena 50, ek -77, el -54.3 mV); Ra 100 ohm cm, cm 1 uF/cm2; celsius 6.3"
    )
    ds.attrs["stimuli"] = "IClamp dend[0](0.5) 0.3 nA on [5, 45) ms"
    return ds


NETWORK = {
    "n_cells": 5,
    "pre": [0, 0, 1, 2, 3, 1, 4],
    "post": [1, 2, 3, 3, 4, 4, 0],
    "weight": [0.0006, 0.0004, 0.0005, 0.0005, 0.0008, 0.0003, 0.0004],  # uS
    "delay": [1.5, 2.5, 1.0, 2.0, 3.0, 1.25, 2.0],  # ms
    "tau": [2.0, 3.0, 2.0, 1.5, 2.5, 2.0, 4.0],  # ms
    "e": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -80.0],  # mV (the last one inhibitory)
    "stimuli": [(0, 5.0, 90.0, 0.01), (2, 30.0, 40.0, 0.004)],  # cell, delay, dur, nA (0.01 nA = 10 uA/cm2)
    "tstop": 100.0,
}


def _point_cells(n_cells):
    """``n_cells`` hh point cells of area 100 um2 (L = diam = sqrt(100/pi) um)."""
    side = float(np.sqrt(100.0 / np.pi))
    cells = []
    for i in range(n_cells):
        sec = h.Section(name=f"cell{i}")
        sec.L = sec.diam = side
        sec.nseg, sec.cm = 1, 1.0
        sec.insert("hh")
        cells.append(sec)
    return cells


def _run_network(p, make_synapse):
    """The point cells of `p`, synapse `k` made by `make_synapse(k, segment)` on its target cell and driven
    through a NetCon (threshold 0 mV, `p`'s delay and weight) from its source cell; run and return the dataset."""
    cells = _point_cells(p["n_cells"])
    keep = []  # NEURON objects live only while referenced
    for k in range(len(p["pre"])):
        syn = make_synapse(k, cells[p["post"][k]](0.5))
        syn.e = p["e"][k]
        nc = h.NetCon(cells[p["pre"][k]](0.5)._ref_v, syn, sec=cells[p["pre"][k]])
        nc.threshold, nc.delay, nc.weight[0] = 0.0, p["delay"][k], p["weight"][k]
        keep.append((syn, nc))
    sections = {f"cell{i}": sec for i, sec in enumerate(cells)}
    stimuli = [(f"cell{i}", 0.5, d, dur, a) for i, d, dur, a in p["stimuli"]]
    record = [f"cell{i}(0.5)" for i in range(p["n_cells"])]
    times, V, spikes = run(sections, stimuli, record, p["tstop"], record)
    return _dataset(times, V, record, spikes, _geometry(sections))


def network():
    """Five hh point cells (area 100 um2) coupled by ExpSyn through NetCons with delays."""
    p = NETWORK

    def exp_syn(k, seg):
        syn = h.ExpSyn(seg)
        syn.tau = p["tau"][k]
        return syn

    ds = _run_network(p, exp_syn)
    for key in ("pre", "post", "weight", "delay", "tau", "e"):
        ds[f"syn_{key}"] = ("synapse", np.array(p[key]))
    ds["syn_weight"].attrs["units"], ds["syn_delay"].attrs["units"] = "uS", "ms"
    ds["syn_tau"].attrs["units"], ds["syn_e"].attrs["units"] = "ms", "mV"
    ds.attrs["cell"] = "5 hh point cells, L = diam = sqrt(100/pi) um (area 100 um2), hh defaults, celsius 6.3"
    ds.attrs["stimuli"] = "IClamp cell0 0.01 nA on [5, 95) ms, cell2 0.004 nA on [30, 70) ms (10 and 4 uA/cm2)"
    ds.attrs["synapses"] = "ExpSyn per connection, NetCon threshold 0 mV from the presynaptic soma, delays and weights"
    return ds


NETWORK_EXP2 = {
    "n_cells": 5,
    "pre": [0, 0, 1, 2, 3, 1, 4, 2],
    "post": [1, 2, 3, 3, 4, 4, 0, 4],
    "mechanism": ["Exp2Syn"] * 7 + ["ExpSyn"],  # the last one mixes in an ExpSyn
    "weight": [0.0005, 0.0003, 0.0004, 0.0004, 0.0006, 0.0003, 0.0006, 0.0002],  # uS (Exp2Syn: the peak)
    "delay": [1.5, 2.5, 1.0, 2.0, 3.0, 1.25, 2.0, 1.75],  # ms
    "tau1": [0.5, 0.2, 0.5, 0.2, 0.5, 0.2, 1.0, np.nan],  # ms (Exp2Syn rise; none for the ExpSyn)
    "tau2": [2.0, 3.0, 2.0, 3.0, 2.0, 3.0, 6.0, 2.0],  # ms (Exp2Syn decay; the ExpSyn's tau)
    "e": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -80.0, 0.0],  # mV (4 -> 0 inhibitory)
    "stimuli": [(0, 5.0, 90.0, 0.01), (2, 30.0, 40.0, 0.012)],  # cell, delay, dur, nA (cell 2 leaves lockstep)
    "tstop": 100.0,
}


def network_exp2():
    """The five point cells of `network` coupled by Exp2Syn (three rise/decay pairs, one inhibitory) and one
    ExpSyn, through NetCons with delays."""
    p = NETWORK_EXP2

    def synapse(k, seg):
        if p["mechanism"][k] == "Exp2Syn":
            syn = h.Exp2Syn(seg)
            syn.tau1, syn.tau2 = p["tau1"][k], p["tau2"][k]
        else:
            syn = h.ExpSyn(seg)
            syn.tau = p["tau2"][k]
        return syn

    ds = _run_network(p, synapse)
    units = {"weight": "uS", "delay": "ms", "tau1": "ms", "tau2": "ms", "e": "mV"}
    for key in ("pre", "post", "mechanism", "weight", "delay", "tau1", "tau2", "e"):
        ds[f"syn_{key}"] = ("synapse", np.array(p[key]), {"units": units[key]} if key in units else {})
    ds["syn_weight"].attrs["long_name"] = "NetCon weight (Exp2Syn: peak conductance; ExpSyn: jump)"
    ds["syn_tau1"].attrs["long_name"] = "Exp2Syn rise time constant (NaN for ExpSyn)"
    ds["syn_tau2"].attrs["long_name"] = "Exp2Syn decay time constant (ExpSyn: tau)"
    ds.attrs["cell"] = "5 hh point cells, L = diam = sqrt(100/pi) um (area 100 um2), hh defaults, celsius 6.3"
    ds.attrs["stimuli"] = "IClamp cell0 0.01 nA on [5, 95) ms, cell2 0.012 nA on [30, 70) ms (10 and 12 uA/cm2)"
    ds.attrs["synapses"] = (
        "Exp2Syn (7) and ExpSyn (1) per connection, NetCon threshold 0 mV from the presynaptic soma, delays and "
        "weights; every tau1/tau2 < 0.9999, so Exp2Syn uses them unchanged"
    )
    return ds


def main(which):
    if "ball_and_stick" in which:
        ball_and_stick().to_netcdf(HERE / "ball_and_stick.nc")
        print("wrote ball_and_stick.nc")
    if "swc" in which:
        for file in SWC_FILES:
            _, ds = swc_geometry(file)
            ds.to_netcdf(HERE / file.replace(".swc", "_import3d.nc"))
            print("wrote", file.replace(".swc", "_import3d.nc"))
    if "network" in which:
        network().to_netcdf(HERE / "network.nc")
        print("wrote network.nc")
    if "network_exp2" in which:
        network_exp2().to_netcdf(HERE / "network_exp2.nc")
        print("wrote network_exp2.nc")
    if "da1_lpn" in which:
        da1_lpn().to_netcdf(HERE / "da1_lpn.nc")
        print("wrote da1_lpn.nc")


if __name__ == "__main__":
    main(sys.argv[1:] or ["ball_and_stick", "swc", "da1_lpn", "network", "network_exp2"])
