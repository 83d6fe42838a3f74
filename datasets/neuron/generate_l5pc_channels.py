"""Reference curves and currents of the L5PC channel mechanisms from NEURON 9 (run with `neuron==9.0.2`).

    python datasets/neuron/generate_l5pc_channels.py <mechanisms folder> [--commit HASH] [--out FILE]

`<mechanisms folder>` holds the twelve .mod files of BluePyOpt's L5PC example (`examples/l5pc/mechanisms/`, Hay et
al. 2011, ModelDB 139653). They are copied to a temporary folder, each gets one added line
`RANGE <its xInf/xTau variables>` (so that NEURON exposes the values its `rates` procedure computes; the equations
are untouched), and `nrnivmodl` compiles them there. Writes `l5pc_channels.nc` next to this script: steady states
and time constants of every gate, single-compartment voltage clamps of every channel and a current clamp of a
soma-like cell. Settings and provenance: README.md here.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import xarray as xr

HERE = Path(__file__).resolve().parent
CELSIUS = 34.0
TOL = 1e-10  # CVODE atol = rtol
AREA_DIAM = 10 / np.sqrt(np.pi)  # µm: L = diam gives a 100 µm² cylinder (NEURON omits the end caps)
MECHANISMS = ("NaTs2_t", "NaTa_t", "Nap_Et2", "K_Tst", "K_Pst", "SKv3_1", "SK_E2", "Ca_HVA", "Ca_LVAst", "Ih", "Im")
CONCENTRATION = "CaDynamics_E2"
# gates of each channel and its current variable (read as mA/cm²)
GATES = {name: ("m", "h") for name in ("NaTs2_t", "NaTa_t", "Nap_Et2", "K_Tst", "K_Pst", "Ca_HVA", "Ca_LVAst")}
GATES |= {"SKv3_1": ("m",), "Ih": ("m",), "Im": ("m",), "SK_E2": ("z",)}
CURRENT = {"NaTs2_t": "ina", "NaTa_t": "ina", "Nap_Et2": "ina", "Ca_HVA": "ica", "Ca_LVAst": "ica", "Ih": "ihcn"}
# voltage-clamp densities (S/cm²): large enough for currents of a few mA/cm²
VC_GBAR = {"NaTs2_t": 0.1, "NaTa_t": 0.1, "Nap_Et2": 0.01, "K_Tst": 0.05, "K_Pst": 0.05, "SKv3_1": 0.1}
VC_GBAR |= {"SK_E2": 0.01, "Ca_HVA": 0.001, "Ca_LVAst": 0.001, "Ih": 0.001, "Im": 0.01}
VC_STEPS = ((-70.0, 10.0), (-20.0, 40.0), (-70.0, 20.0), (20.0, 40.0), (-110.0, 60.0), (-70.0, 30.0))  # mV, ms
VC_DT = 0.05  # ms between samples, sampled halfway between steps' edges
ENA, EK = 50.0, -85.0  # mV, BluePyOpt's L5PC
# soma-like cell (BluePyOpt's released somatic densities, S/cm²) under a current step
SOMA = {
    "NaTs2_t": {"gNaTs2_tbar": 0.983955},
    "SKv3_1": {"gSKv3_1bar": 0.303472},
    "SK_E2": {"gSK_E2bar": 0.008407},
    "Ca_HVA": {"gCa_HVAbar": 0.000994},
    "Ca_LVAst": {"gCa_LVAstbar": 0.000333},
    "Ih": {"gIhbar": 8e-5},
    "CaDynamics_E2": {"gamma": 0.000609, "decay": 210.485284},
    "pas": {"g_pas": 3e-5, "e_pas": -75.0},
}
CC = dict(delay=20.0, dur=200.0, amp=0.01, tstop=300.0, dt=0.025)  # ms, nA (0.01 nA on 100 µm² = 10 µA/cm²)
V_INIT = -65.0


def compile_mechanisms(src: Path, work: Path) -> dict[str, str]:
    """Copy, expose the rate variables as RANGE, compile; return the sha256 of each original file."""
    hashes = {}
    for name in (*MECHANISMS, CONCENTRATION):
        text = (src / f"{name}.mod").read_text()
        hashes[f"{name}.mod"] = hashlib.sha256(text.encode()).hexdigest()
        assigned = re.search(r"ASSIGNED\s*{(.*?)}", text, re.S)
        names = sorted(set(re.findall(r"^\s*(\w+(?:Inf|Tau))\b", assigned.group(1), re.M))) if assigned else []
        if names:
            text = re.sub(r"(NEURON\s*{)", r"\1\n\tRANGE " + ", ".join(names), text, count=1)
        (work / f"{name}.mod").write_text(text)
    subprocess.run(["nrnivmodl", "."], cwd=work, check=True, capture_output=True)
    return hashes


def soma(h, mechanisms):
    sec = h.Section(name="soma")
    sec.L = sec.diam = AREA_DIAM
    sec.nseg, sec.cm = 1, 1.0
    for name, params in mechanisms.items():
        sec.insert(name)
        for key, value in params.items():
            setattr(sec(0.5), f"{key}_{name}" if not key.endswith("_pas") else key, value)
    for ion, value in (("ena", ENA), ("ek", EK)):
        if hasattr(sec(0.5), ion):
            setattr(sec(0.5), ion, value)
    return sec


def rate_curves(h, V):
    """x∞ and τx (ms) of every gate on `V`, read after `finitialize` (INITIAL calls `rates()`)."""
    out = {}
    sec = soma(h, {name: {} for name in MECHANISMS})
    for name in MECHANISMS:
        if name == "SK_E2":
            continue
        mech = getattr(sec(0.5), name)
        for gate in GATES[name]:
            inf, tau = np.empty_like(V), np.empty_like(V)
            for k, v in enumerate(V):
                h.finitialize(float(v))
                inf[k], tau[k] = getattr(mech, f"{gate}Inf"), getattr(mech, f"{gate}Tau")
            out[f"{name}_{gate}_inf"] = (("voltage",), inf)
            out[f"{name}_{gate}_tau"] = (("voltage",), tau)
    h.delete_section(sec=sec)
    return out


def sk_curve(h, cai):
    """SK_E2's z∞ on the calcium grid (`cai` set on the segment: no mechanism writes it here)."""
    sec = soma(h, {"SK_E2": {}})
    inf = np.empty_like(cai)
    for k, c in enumerate(cai):
        sec(0.5).cai = float(c)
        h.finitialize(V_INIT)
        inf[k] = sec(0.5).SK_E2.zInf
    h.delete_section(sec=sec)
    return {"SK_E2_z_inf": (("cai",), inf), "SK_E2_z_tau": ((), h.zTau_SK_E2)}


def voltage_clamps(h):
    """Each channel alone (Ca channels and SK_E2 with CaDynamics_E2; SK_E2 with Ca_HVA for calcium) under VC_STEPS."""
    tstop = sum(d for _, d in VC_STEPS)
    times = np.round(np.arange(VC_DT / 2, tstop, VC_DT), 10)
    out, worst = {}, 0.0
    for name in MECHANISMS:
        mechs = {name: {f"g{name}bar": VC_GBAR[name]}}
        if name in ("Ca_HVA", "Ca_LVAst", "SK_E2"):
            mechs[CONCENTRATION] = {}
        if name == "SK_E2":
            mechs["Ca_HVA"] = {"gCa_HVAbar": VC_GBAR["Ca_HVA"]}
        sec = soma(h, mechs)
        clamp = h.SEClamp(sec(0.5))
        clamp.rs = 1e-9  # MΩ: the membrane follows the command within 1e-8 mV
        # SEClamp has three levels: the first two steps, then the others played into amp3 at their times
        edges = np.cumsum([0.0] + [d for _, d in VC_STEPS])
        (clamp.amp1, clamp.dur1), (clamp.amp2, clamp.dur2) = VC_STEPS[:2]
        clamp.amp3, clamp.dur3 = VC_STEPS[2][0], tstop - edges[2]
        tvec = h.Vector([edges[2], edges[3], edges[4], edges[5], tstop])
        avec = h.Vector([VC_STEPS[2][0], VC_STEPS[3][0], VC_STEPS[4][0], VC_STEPS[5][0], VC_STEPS[5][0]])
        avec.play(clamp._ref_amp3, tvec, 0)  # step-wise, events at the edges
        seg = sec(0.5)
        current = CURRENT.get(name, "ik")
        I, ca, V = (np.empty_like(times) for _ in range(3))
        cvode = _cvode(h)
        h.finitialize(VC_STEPS[0][0])
        for k, t in enumerate(times):
            cvode.solve(float(t))
            I[k], V[k] = getattr(seg, f"{current}_{name}"), seg.v
            ca[k] = seg.cai if CONCENTRATION in mechs else np.nan
        command = np.array([VC_STEPS[np.searchsorted(edges, t) - 1][0] for t in times])
        worst = max(worst, float(np.max(np.abs(V - command))))
        out[f"vc_{name}_current"] = (("vc_time",), I)
        if CONCENTRATION in mechs:
            out[f"vc_{name}_cai"] = (("vc_time",), ca)
        del clamp, avec, tvec
        h.delete_section(sec=sec)
    out["vc_command"] = (("vc_time",), command)
    return times, out, worst


def current_clamp(h):
    sec = soma(h, SOMA)
    stim = h.IClamp(sec(0.5))
    stim.delay, stim.dur, stim.amp = CC["delay"], CC["dur"], CC["amp"]
    nc = h.NetCon(sec(0.5)._ref_v, None, sec=sec)
    nc.threshold = 0.0
    spikes = h.Vector()
    nc.record(spikes)
    times = np.round(np.arange(0.0, CC["tstop"] + CC["dt"] / 2, CC["dt"]), 10)
    V, ca, eca = (np.empty_like(times) for _ in range(3))
    cvode = _cvode(h)
    h.finitialize(V_INIT)
    for k, t in enumerate(times):
        if t > 0:
            cvode.solve(float(t))
        V[k], ca[k], eca[k] = sec(0.5).v, sec(0.5).cai, sec(0.5).eca
    out = {"cc_V": (("cc_time",), V), "cc_cai": (("cc_time",), ca), "cc_eca": (("cc_time",), eca)}
    out["cc_spike_times"] = (("cc_spike",), np.array(spikes))
    return times, out


def _cvode(h):
    cvode = h.CVode()
    cvode.active(1)
    cvode.atol(TOL)
    cvode.rtol(TOL)
    # threshold crossings interpolated inside the integrator's step (the current clamp's spike times): NEURON's
    # default (condition_order 1) dates a crossing at the end of the step in which it happened
    cvode.condition_order(2)
    return cvode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mechanisms", type=Path, help="folder with BluePyOpt's examples/l5pc/mechanisms/*.mod")
    parser.add_argument("--commit", default="146bb019a866007d76eafcaca89d8b45e20be0f6", help="BluePyOpt commit")
    parser.add_argument("--out", type=Path, default=HERE / "l5pc_channels.nc")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        hashes = compile_mechanisms(args.mechanisms.resolve(), Path(tmp))
        import neuron
        from neuron import h

        h.nrn_load_dll(str(Path(tmp) / "x86_64" / "libnrnmech.so"))
        h.load_file("stdrun.hoc")
        h.celsius = CELSIUS
        V = np.round(np.arange(-100.0, 50.0 + 0.25, 0.5), 10)
        cai = np.logspace(-6.0, -1.0, 101)
        data = rate_curves(h, V) | sk_curve(h, cai)
        vc_times, vc, worst = voltage_clamps(h)
        cc_times, cc = current_clamp(h)
    coords = {"voltage": V, "cai": cai, "vc_time": vc_times, "cc_time": cc_times}
    ds = xr.Dataset(data | vc | cc, coords=coords)
    _units(ds)
    ds.attrs = {
        "simulator": f"NEURON {neuron.__version__}",
        "celsius": CELSIUS,
        "integrator": f"global CVODE, atol = rtol = {TOL:g}, condition_order 2 (threshold crossings interpolated); "
        "samples via CVode.solve(t)",
        "source": "BluePyOpt examples/l5pc/mechanisms (Hay et al. 2011, ModelDB 139653), commit " + args.commit,
        "mod_sha256": "; ".join(f"{k} {v}" for k, v in hashes.items()),
        "mod_patch": "one added line per file: RANGE of its ASSIGNED xInf/xTau variables (equations unchanged)",
        "cell": f"one segment, L = diam = {AREA_DIAM:.6f} um (area 100 um2), cm 1 uF/cm2, ena {ENA}, ek {EK} mV",
        "vc": f"SEClamp rs 1e-9 MOhm, steps (mV, ms) {VC_STEPS}; gbar (S/cm2) {VC_GBAR}",
        "vc_max_V_error": f"max |V - command| {worst:.3g} mV",
        "vc_cells": "Ca_HVA, Ca_LVAst: with CaDynamics_E2 (defaults); SK_E2: with Ca_HVA and CaDynamics_E2",
        "cc": f"IClamp {CC}; mechanisms {SOMA}; v_init {V_INIT} mV; spikes: upward 0 mV crossings",
        "ions": "cai0 5e-5 mM, cao 2 mM; eca from Nernst where CaDynamics_E2 writes cai",
    }
    ds.to_netcdf(args.out, engine="netcdf4")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB), max |V - command| {worst:.3g} mV")


def _units(ds: xr.Dataset) -> None:
    for name, var in ds.variables.items():
        if name.endswith("_tau") or "time" in name:
            var.attrs["units"] = "ms"
        elif name.endswith("_current"):
            var.attrs["units"] = "mA/cm2"
        elif "cai" in name:
            var.attrs["units"] = "mM"
        elif name in ("voltage", "cc_V", "cc_eca", "vc_command"):
            var.attrs["units"] = "mV"
        elif name.endswith("_inf"):
            var.attrs["units"] = "1"


if __name__ == "__main__":
    main()
