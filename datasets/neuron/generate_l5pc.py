"""Reference responses of the full L5 pyramidal cell from NEURON 9 (run with `neuron==9.0.2`, `bluepyopt==1.14.26`).

    python datasets/neuron/generate_l5pc.py <BluePyOpt examples/l5pc folder> [--commit HASH] [--out FILE]

The cell is Hay et al. (2011) as BluePyOpt's L5PC example defines it, built here in plain NEURON from
`l5pc_parameters.json` (released parameter values) and `C060114A7.asc`: `Import3d_Neurolucida3`, nseg =
1 + 2 int(L/40 um), the axon replaced by two 30 um stubs, mechanisms per region, apical `gIhbar` scaled by
(-0.8696 + 2.087 exp(0.0031 d)) with d the path distance (um) from soma[0](0.5). The twelve .mod files of the
example's `mechanisms/` folder are compiled unchanged with `nrnivmodl` in a temporary folder.

Before simulating, the script builds the same cell through BluePyOpt's own example code (`l5pc_model.create()`,
release parameters) and checks that every segment's parameters and the apical recording sites agree.

Protocols (the example's `config/protocols.json`): Step1/2/3, a holding current of -0.126 nA over [0, 3000) ms
and a step of 0.458/0.562/0.95 nA over [700, 2700) ms at soma[0](0.5), 3000 ms; bAP, 1.9 nA over [295, 300) ms,
600 ms, recorded at the apical sites 660 and 800 um from the soma. Global CVODE, atol = rtol = 1e-9; spike
times converged against 1e-8. Also NEURON's wall time per protocol (fixed step 0.025 ms, CVODE at NEURON's
default tolerances as BluePyOpt runs it, CVODE 1e-9). Settings and provenance: README.md here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import neuron
import numpy as np
import xarray as xr
from bluepyopt import ephys
from neuron import h

HERE = Path(__file__).resolve().parent
PARAMS = json.loads((HERE / "l5pc_parameters.json").read_text())
MORPHOLOGY = HERE / "C060114A7.asc"
TOL, TOL_CHECK = 1e-9, 1e-8  # CVODE atol = rtol: the reference, and the looser run it is checked against
SPIKE_THRESHOLD = -20.0  # mV, NetCon at soma[0](0.5): eFEL's default threshold, which BluePyOpt's features use
DT = 0.025  # ms: sample grid (and NEURON's default fixed step); every sample time is a multiple of DT
COARSE = 4  # outside the fine windows keep every COARSE-th sample (0.1 ms)
HOLD = (0.0, 3000.0, -0.126)  # (delay ms, duration ms, amplitude nA)
STEP_WINDOWS = ((690.0, 1100.0), (2690.0, 2800.0))  # ms: step onset with the first spikes, step offset
PROTOCOLS = {
    "Step1": {"stimuli": [HOLD, (700.0, 2000.0, 0.458)], "tstop": 3000.0, "fine": STEP_WINDOWS},
    "Step2": {"stimuli": [HOLD, (700.0, 2000.0, 0.562)], "tstop": 3000.0, "fine": STEP_WINDOWS},
    "Step3": {"stimuli": [HOLD, (700.0, 2000.0, 0.95)], "tstop": 3000.0, "fine": STEP_WINDOWS},
    "bAP": {"stimuli": [(295.0, 5.0, 1.9)], "tstop": 600.0, "fine": ((0.0, 600.0),)},
}
SITES = {"dend1": 660.0, "dend2": 800.0}  # um from soma[0](0.5) in the apical tree
ENCODING = {"zlib": True, "complevel": 9, "shuffle": True}
# the traces are stored in single precision (V to 4e-6 mV, cai to 1e-7 relative: far below the solver's own
# error near a spike), which keeps the file under 3 MB
TRACES = ("V_step", "cai_step", "V_bap", "cai_bap")


def compile_mechanisms(src: Path, work: Path) -> dict[str, str]:
    """Copy the .mod files unchanged and compile them; return the sha256 of each."""
    hashes = {}
    for mod in sorted(src.glob("*.mod")):
        hashes[mod.name] = hashlib.sha256(mod.read_bytes()).hexdigest()
        shutil.copy(mod, work / mod.name)
    nrnivmodl = shutil.which("nrnivmodl") or str(Path(sys.executable).parent / "nrnivmodl")  # venv not activated
    subprocess.run([nrnivmodl, "."], cwd=work, check=True, capture_output=True)
    return hashes


def _short(sec):
    return sec.name().split(".")[-1]  # a section of a cell template is "<cell>.soma[0]"


def _region(sec):
    return {"soma": "somatic", "axon": "axonal", "apic": "apical", "dend": "basal"}[_short(sec).split("[")[0]]


def build_cell():
    """The L5PC in plain NEURON from l5pc_parameters.json; returns the sections in BluePyOpt's order."""
    reader = h.Import3d_Neurolucida3()
    reader.quiet = 1
    reader.input(str(MORPHOLOGY))
    h.Import3d_GUI(reader, 0).instantiate(None)
    for sec in h.allsec():
        sec.nseg = 1 + 2 * int(sec.L / 40.0)
    _replace_axon()
    sections = [s for prefix in ("soma", "dend", "apic", "axon") for s in h.allsec() if _short(s).startswith(prefix)]
    soma = sections[0]
    regions = PARAMS["regions"]
    for sec in sections:  # 'all' first: the regions' section values (cm) override it
        for region in ("all", _region(sec)):
            for mech in regions[region]["mechanisms"]:
                sec.insert(mech)
        for region in ("all", _region(sec)):
            for name, p in regions[region]["section"].items():
                setattr(sec, name, p["value"])
        for name, p in regions[_region(sec)]["range"].items():
            for seg in sec:
                scale = 1.0
                if p["distribution"] == "exp":  # apical Ih: BluePyOpt's NrnSegmentSomaDistanceScaler
                    scale = -0.8696 + 2.087 * np.exp(0.0031 * h.distance(soma(0.5), seg))
                setattr(seg, name, scale * p["value"])
    h.celsius = PARAMS["globals"]["celsius"]
    return sections


def _replace_axon():
    """BluePyOpt's replace_axon: two 30 um stubs with the diameters of axon[0] and of the first axonal section
    whose centre lies beyond 60 um from soma[0](0.5)."""
    soma = h.soma[0]
    axon = [s for s in h.allsec() if _short(s).startswith("axon")]
    diams = [axon[0].diam, axon[0].diam]
    for sec in axon:
        if h.distance(soma(0.5), sec(0.5)) > 60.0:
            diams[1] = sec.diam
            break
    for sec in axon:
        h.delete_section(sec=sec)
    h("create axon[2]")
    for sec, diam in zip(h.axon, diams, strict=True):
        sec.L, sec.nseg, sec.diam = 30.0, 1, diam
    h.axon[0].connect(soma(1.0), 0.0)
    h.axon[1].connect(h.axon[0](1.0), 0.0)


def find_site(sections, distance):
    """BluePyOpt's NrnSomaDistanceCompLocation: the last apical section spanning `distance` from soma[0](0.5);
    x = (distance - d(0)) / (d(1) - d(0)); the recording is the segment containing x (at its centre)."""
    soma, found = sections[0], None
    for sec in (s for s in sections if _region(s) == "apical"):
        d0, d1 = h.distance(soma(0.5), sec(0.0)), h.distance(soma(0.5), sec(1.0))
        lo, hi = min(d0, d1), max(d0, d1)
        if lo <= distance <= hi and sec((distance - lo) / (hi - lo)).diam > 0:
            found = (sec, (distance - lo) / (hi - lo))
    sec, x = found
    centre = (min(int(x * sec.nseg), sec.nseg - 1) + 0.5) / sec.nseg
    distance = h.distance(soma(0.5), sec(centre))
    assert distance == h.distance(soma(0.5), sec(x))  # NEURON measures to the node of the segment holding x
    return {"section": _short(sec), "x": x, "seg_x": centre, "seg_distance": distance, "seg": sec(centre)}


def verify_bluepyopt(example: Path, sections, sites):
    """Build the cell with BluePyOpt's example code and compare every segment's parameters and the sites."""
    sys.path.insert(0, str(example))  # the example's own modules, importable only from its folder
    import l5pc_analysis
    import l5pc_evaluator
    import l5pc_model

    sim = ephys.simulators.NrnSimulator()
    model = l5pc_model.create()
    model.freeze(l5pc_analysis.release_params)
    model.instantiate(sim=sim)
    icell = model.icell
    theirs = {_short(s): s for s in icell.all}
    ranges = sorted({n for r in PARAMS["regions"].values() for n in r["range"]})
    names = ["cm", "Ra", "g_pas", "e_pas", "ena", "ek", *ranges]
    worst = 0.0
    for sec in sections:
        other = theirs[_short(sec)]
        assert other.nseg == sec.nseg and abs(other.L - sec.L) < 1e-9, _short(sec)
        for a, b in zip(sec, other, strict=True):
            for n in names:
                if hasattr(a, n) or hasattr(b, n):
                    va, vb = getattr(a, n), getattr(b, n)
                    worst = max(worst, abs(va - vb) / max(abs(vb), 1e-30))
    protocols = l5pc_evaluator.define_protocols()
    for rec in protocols["bAP"].recordings[1:]:
        seg = rec.location.instantiate(sim=sim, icell=icell)
        mine = sites[rec.location.name]
        assert (_short(seg.sec), seg.x) == (mine["section"], mine["x"]), (rec.location.name, seg)
    model.destroy(sim=sim)
    return worst, len(theirs)


def run(soma, protocol, sites, *, tol=None, dt=None, sample=True):
    """One protocol from finitialize(v_init); global CVODE at atol = rtol = `tol`, or fixed step `dt`
    (secondorder 0). Returns (spike times, samples or None, (wall, CPU) seconds of the integration)."""
    clamps = []  # the clamps and the NetCon live until the run ends
    for delay, dur, amp in protocol["stimuli"]:
        clamp = h.IClamp(soma(0.5))
        clamp.delay, clamp.dur, clamp.amp = delay, dur, amp
        clamps.append(clamp)
    spikes = h.Vector()
    netcon = h.NetCon(soma(0.5)._ref_v, None, sec=soma)
    netcon.threshold = SPIKE_THRESHOLD
    netcon.record(spikes)
    cvode = h.CVode()
    cvode.active(0 if tol is None else 1)
    if tol is None:
        h.secondorder, h.dt = 0, dt
    elif tol > 0:
        cvode.atol(tol)
        cvode.rtol(tol)
    else:  # NEURON's defaults, as BluePyOpt runs it
        cvode.atol(1e-3)
        cvode.rtol(0.0)
    # the reference runs date a threshold crossing inside the integrator's step; NEURON's default (condition_order 1,
    # kept for the run at NEURON's defaults) dates it at the end of that step, late by up to the step
    cvode.condition_order(2 if tol else 1)
    times = sample_times(protocol) if sample else None
    segs = [soma(0.5)] + [sites[name]["seg"] for name in SITES]
    h.finitialize(PARAMS["globals"]["v_init"])
    start, start_cpu = time.perf_counter(), time.process_time()
    if times is None:
        h.continuerun(protocol["tstop"])
        out = None
    else:
        out = np.empty((times.size, len(segs) + 1))
        for i, t in enumerate(times):
            if t > h.t:
                cvode.solve(float(t))
            out[i, :-1] = [seg.v for seg in segs]
            out[i, -1] = soma(0.5).cai
    seconds = (time.perf_counter() - start, time.process_time() - start_cpu)
    return np.array(spikes), out, seconds


def check_protocols(example: Path):
    """PROTOCOLS and SITES restate the example's config/protocols.json; fail if they do not."""
    config = json.loads((example / "config" / "protocols.json").read_text())
    for name, protocol in PROTOCOLS.items():
        stimuli = config[name]["stimuli"]
        theirs = sorted((s["delay"], s["duration"], s["amp"]) for s in stimuli)
        assert theirs == sorted(protocol["stimuli"]), (name, theirs)
        assert all(s["totduration"] == protocol["tstop"] for s in stimuli), name
    sites = {r["name"]: r["somadistance"] for r in config["bAP"]["extra_recordings"]}
    assert sites == SITES, sites


def sample_times(protocol):
    """Multiples of DT: every one inside the fine windows, every COARSE-th elsewhere."""
    k = np.arange(round(protocol["tstop"] / DT) + 1)
    t = k * DT
    fine = np.zeros(k.size, bool)
    for a, b in protocol["fine"]:
        fine |= (t >= a) & (t <= b)
    return t[fine | (k % COARSE == 0)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("example", type=Path, help="BluePyOpt's examples/l5pc folder (mechanisms/, config/, ...)")
    parser.add_argument("--commit", default=PARAMS["source"]["commit"], help="BluePyOpt commit of that folder")
    parser.add_argument("--out", type=Path, default=HERE / "l5pc.nc")
    args = parser.parse_args()
    check_protocols(args.example.resolve())
    with tempfile.TemporaryDirectory() as tmp:
        hashes = compile_mechanisms(args.example.resolve() / "mechanisms", Path(tmp))
        h.load_file("stdrun.hoc")
        h.load_file("import3d.hoc")
        h.nrn_load_dll(str(Path(tmp) / platform.machine() / "libnrnmech.so"))
        sections = build_cell()
        sites = {name: find_site(sections, d) for name, d in SITES.items()}
        worst, n_theirs = verify_bluepyopt(args.example.resolve(), sections, sites)
        print(f"BluePyOpt's own build: {n_theirs} sections, largest relative parameter difference {worst:.2e}")
        assert worst < 1e-12 and len(list(h.allsec())) == len(sections)
        results = simulate(sections[0], sites)
        ds = dataset(sections, sites, results)
        ds.attrs.update(provenance(neuron.__version__, args.commit, hashes))
    encoding = {name: ENCODING for name, var in ds.data_vars.items() if var.dtype.kind == "f"}
    encoding |= {name: ENCODING | {"dtype": "float32"} for name in TRACES}
    tmp_out = args.out.with_suffix(".tmp.nc")
    ds.to_netcdf(tmp_out, encoding=encoding)
    os.replace(tmp_out, args.out)
    print(f"wrote {args.out.name}: {args.out.stat().st_size / 1e6:.2f} MB")


def simulate(soma, sites):
    """Per protocol: the sampled run (CVODE 1e-9), the timed runs without samples (whose CVODE 1e-9 spike times
    are the reference: a `CVode.solve(t)` that ends between a threshold crossing and the next internal step can
    date the crossing at the sample time, off by up to 4e-3 ms here) and the 1e-8 check."""
    results = {}
    for name, protocol in PROTOCOLS.items():
        sampled, samples, _ = run(soma, protocol, sites, tol=TOL)
        check, _, _ = run(soma, protocol, sites, tol=TOL_CHECK, sample=False)
        timed = {
            "fixed_dt_0.025": run(soma, protocol, sites, dt=DT, sample=False),
            "cvode_default": run(soma, protocol, sites, tol=0.0, sample=False),
            f"cvode_{TOL:g}": run(soma, protocol, sites, tol=TOL, sample=False),
        }
        spikes = timed[f"cvode_{TOL:g}"][0]
        diff = {k: _max_diff(spikes, other) for k, other in (("1e-8", check), ("sampled", sampled))}
        walls = ", ".join(f"{k} {v[2][0]:.1f} s ({v[0].size} spikes)" for k, v in timed.items())
        print(f"{name}: {spikes.size} spikes, first {spikes[:3]}, max |difference| {diff} ms; {walls}", flush=True)
        results[name] = {"spikes": spikes, "samples": samples, "check": check, "timed": timed, "diff": diff}
    return results


def _max_diff(a, b):
    return float(np.max(np.abs(a - b), initial=0.0)) if a.size == b.size else np.inf


def dataset(sections, sites, results):
    steps = [n for n in PROTOCOLS if n.startswith("Step")]
    names = list(PROTOCOLS)
    loc = ["soma", *SITES]
    methods = list(results[names[0]]["timed"])
    n_spikes = max(r["timed"][m][0].size for r in results.values() for m in methods)
    padded = np.full((len(names), n_spikes), np.nan)
    checked = np.full_like(padded, np.nan)
    by_method = np.full((len(names), len(methods), n_spikes), np.nan)
    for i, n in enumerate(names):
        padded[i, : results[n]["spikes"].size] = results[n]["spikes"]
        checked[i, : results[n]["check"].size] = results[n]["check"]
        for j, m in enumerate(methods):
            by_method[i, j, : results[n]["timed"][m][0].size] = results[n]["timed"][m][0]
    stim = np.full((len(names), 2, 3), np.nan)
    for i, n in enumerate(names):
        stim[i, : len(PROTOCOLS[n]["stimuli"])] = PROTOCOLS[n]["stimuli"]
    seconds = np.array([[results[n]["timed"][m][2] for m in methods] for n in names])
    count = [[results[n]["timed"][m][0].size for m in methods] for n in names]
    step = np.stack([results[n]["samples"] for n in steps])
    bap = results["bAP"]["samples"]
    segs = [(s, seg) for s in sections for seg in s]
    soma = sections[0]
    v = {"units": "mV"}
    data = {
        "V_step": (("step_protocol", "time_step", "location"), step[..., :-1], v | {"long_name": "membrane potential"}),
        "cai_step": (("step_protocol", "time_step"), step[..., -1], {"units": "mM", "long_name": "soma[0](0.5) cai"}),
        "V_bap": (("time_bap", "location"), bap[:, :-1], v | {"long_name": "membrane potential"}),
        "cai_bap": ("time_bap", bap[:, -1], {"units": "mM", "long_name": "soma[0](0.5) cai"}),
        "spike_times": (("protocol", "spike"), padded, {"units": "ms", "long_name": f"upward {SPIKE_THRESHOLD:g} mV "
                        "crossings at soma[0](0.5) (NetCon, CVODE-interpolated); NaN pads"}),
        "spike_times_check": (("protocol", "spike"), checked, {"units": "ms", "long_name": "spike_times with CVODE "
                              f"atol = rtol = {TOL_CHECK:g} (convergence check)"}),
        "spike_count": ("protocol", [results[n]["spikes"].size for n in names], {"long_name": "number of spikes"}),
        "stim_delay": (("protocol", "stimulus"), stim[..., 0], {"units": "ms", "long_name": "IClamp delay"}),
        "stim_dur": (("protocol", "stimulus"), stim[..., 1], {"units": "ms", "long_name": "IClamp duration"}),
        "stim_amp": (("protocol", "stimulus"), stim[..., 2], {"units": "nA", "long_name": "IClamp amplitude at "
                     "soma[0](0.5); NaN: no second clamp"}),
        "tstop": ("protocol", [PROTOCOLS[n]["tstop"] for n in names], {"units": "ms"}),
        "wall_time": (("protocol", "method"), seconds[..., 0], {"units": "s", "long_name": "NEURON's wall time of "
                      "the integration (finitialize excluded), one cell, soma NetCon only"}),
        "cpu_time": (("protocol", "method"), seconds[..., 1], {"units": "s", "long_name": "process CPU time of the "
                     "same runs (less sensitive than wall_time to other work on the machine)"}),
        "method_spike_count": (("protocol", "method"), np.array(count), {"long_name": "spikes of the timed runs"}),
        "method_spike_times": (("protocol", "method", "spike"), by_method, {"units": "ms", "long_name": "spike "
                               "times of the timed runs (same detection as spike_times); NaN pads"}),
        "nseg": ("section", [s.nseg for s in sections], {"long_name": "number of segments"}),
        "L": ("section", [s.L for s in sections], {"units": "um", "long_name": "section length"}),
        "region": ("section", [_region(s) for s in sections], {"long_name": "BluePyOpt section list"}),
        "seg_distance": ("segment", [h.distance(soma(0.5), seg) for _, seg in segs],
                         {"units": "um", "long_name": "path distance from soma[0](0.5) to the segment's centre"}),
        "gIhbar": ("segment", [seg.gIhbar_Ih if hasattr(seg, "gIhbar_Ih") else np.nan for _, seg in segs],
                   {"units": "S/cm2", "long_name": "Ih density (NaN: no Ih)"}),
        "site_section": ("site", [sites[n]["section"] for n in SITES]),
        "site_target_distance": ("site", list(SITES.values()), {"units": "um", "long_name": "requested distance "
                                 "from soma[0](0.5)"}),
        "site_x": ("site", [sites[n]["x"] for n in SITES], {"long_name": "x of the requested distance (BluePyOpt's "
                   "NrnSomaDistanceCompLocation)"}),
        "site_seg_x": ("site", [sites[n]["seg_x"] for n in SITES], {"long_name": "centre of the segment holding "
                       "site_x: where V is recorded"}),
        "site_distance": ("site", [sites[n]["seg_distance"] for n in SITES], {"units": "um", "long_name": "path "
                          "distance from soma[0](0.5) to the recorded segment's centre"}),
    }  # fmt: skip
    coords = {
        "step_protocol": steps, "protocol": names, "location": ["soma[0](0.5)", *(
            f"{sites[n]['section']}({sites[n]['seg_x']:.6g})" for n in SITES)], "site": list(SITES),
        "time_step": sample_times(PROTOCOLS[steps[0]]),
        "time_bap": sample_times(PROTOCOLS["bAP"]), "method": methods, "section": [_short(s) for s in sections],
        "segment": [f"{_short(s)}({seg.x:.6g})" for s, seg in segs], "location_name": ("location", loc),
    }  # fmt: skip
    ds = xr.Dataset(data, coords=coords)
    ds.attrs["spike_time_differences"] = "; ".join(
        f"{n}: max |spike_times - spike_times_check| {results[n]['diff']['1e-8']:.2e} ms, sampled run's "
        f"{results[n]['diff']['sampled']:.2e} ms"
        for n in names
    )
    for t in ("time_step", "time_bap"):
        ds[t].attrs = {"units": "ms", "long_name": f"sample times: multiples of {DT} ms, all of them in the fine "
                       f"windows, every {COARSE}th elsewhere"}  # fmt: skip
    return ds


def provenance(version, commit, hashes):
    return {
        "simulator": "NEURON", "simulator_version": version, "model": PARAMS["model"],
        "bluepyopt_commit": commit, "parameters": "l5pc_parameters.json (released values)",
        "morphology": "C060114A7.asc via Import3d_Neurolucida3; nseg 1 + 2 int(L/40); axon replaced by two 30 um "
                      "stubs (BluePyOpt's replace_axon)",
        "integrator": f"global CVODE, atol = rtol = {TOL:g}, condition_order 2 (threshold crossings interpolated); "
                      f"samples via CVode.solve(t); spike times checked against atol = rtol = {TOL_CHECK:g} "
                      "(spike_times_check)",
        "initialisation": f"finitialize({PARAMS['globals']['v_init']:g}), celsius {PARAMS['globals']['celsius']:g}",
        "spike_detection": f"NetCon at soma[0](0.5), threshold {SPIKE_THRESHOLD:g} mV (eFEL's default)",
        "timing": f"wall_time: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, one run at a "
                  "time; fixed_dt_0.025: cvode off, secondorder 0; cvode_default: atol 1e-3, rtol 0 (NEURON's "
                  "defaults, as BluePyOpt runs it)",
        "mod_sha256": "; ".join(f"{k} {v}" for k, v in hashes.items()),
        "generator": "datasets/neuron/generate_l5pc.py",
    }  # fmt: skip


if __name__ == "__main__":
    main()
