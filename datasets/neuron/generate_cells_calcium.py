"""A small multi-compartment cell with calcium dynamics from NEURON 9 (run with `neuron==9.0.2`).

    python datasets/neuron/generate_cells_calcium.py <mechanisms folder> [--commit HASH] [--out FILE]

`<mechanisms folder>` holds the .mod files of BluePyOpt's L5PC example (`examples/l5pc/mechanisms/`, Hay et al.
2011, ModelDB 139653); they are compiled as `generate_l5pc_channels.py` compiles them (its `compile_mechanisms`).
Writes `calcium_cell.nc` next to this script: a soma, an apical trunk with two branches and a basal dendrite, with
Hay's channels and a CaDynamics_E2 pool of different gamma and decay in the soma and the apical tree; the basal
dendrite carries Ca_HVA without a pool (cai stays at cai0 there, eca at its default). An IClamp at the soma; V and
cai at seven sites, eca at two, spike times at two. Settings and provenance: README.md here.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import xarray as xr

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate_l5pc_channels import compile_mechanisms  # noqa: E402

CELSIUS, V_INIT = 34.0, -65.0
TOL = 1e-9  # CVODE atol = rtol
DT_OUT = 0.025  # ms between saved samples
ENA, EK = 50.0, -85.0  # mV, Hay's
# sections: name -> (parent, parent_x, L µm, diam µm, nseg)
SECTIONS = {
    "soma": (None, 0.0, 20.0, 20.0, 1),
    "apic[0]": ("soma", 1.0, 300.0, 3.0, 7),
    "apic[1]": ("apic[0]", 1.0, 150.0, 1.5, 5),
    "apic[2]": ("apic[0]", 1.0, 120.0, 1.0, 3),
    "dend[0]": ("soma", 0.0, 200.0, 1.0, 5),
}
# densities (S/cm²) and mechanism parameters per region: Hay et al. 2011's somatic and apical values
# (L5PCbiophys3.hoc), the apical calcium channels at their hot-zone levels throughout, Ih exponential (IH_EXP)
REGIONS = {
    "soma": {
        "NaTs2_t": {"gNaTs2_tbar": 0.983955}, "SKv3_1": {"gSKv3_1bar": 0.303472}, "SK_E2": {"gSK_E2bar": 0.008407},
        "Ca_HVA": {"gCa_HVAbar": 0.000994}, "Ca_LVAst": {"gCa_LVAstbar": 0.000333}, "Ih": {"gIhbar": 8e-5},
        "CaDynamics_E2": {"gamma": 0.000609, "decay": 210.485284}, "pas": {"g_pas": 3e-5, "e_pas": -75.0},
    },
    "apic": {
        "NaTs2_t": {"gNaTs2_tbar": 0.026145}, "SKv3_1": {"gSKv3_1bar": 0.004226}, "SK_E2": {"gSK_E2bar": 0.0012},
        "Ca_HVA": {"gCa_HVAbar": 0.000555}, "Ca_LVAst": {"gCa_LVAstbar": 0.0187}, "Ih": {},
        "CaDynamics_E2": {"gamma": 0.000509, "decay": 122.0}, "pas": {"g_pas": 3e-5, "e_pas": -75.0},
    },
    "dend": {"Ih": {"gIhbar": 8e-5}, "Ca_HVA": {"gCa_HVAbar": 0.0002}, "pas": {"g_pas": 3e-5, "e_pas": -75.0}},
}  # fmt: skip
CM = {"soma": 1.0, "apic": 2.0, "dend": 2.0}  # µF/cm²
RA = 100.0  # Ω·cm
IH_EXP = (8e-5, -0.8696, 2.087, 0.0031)  # apical gIhbar = value (a + b exp(rate d)), d from soma(0.5) (µm)
STIMULUS = dict(delay=10.0, dur=50.0, amp=0.6)  # ms, nA at soma(0.5)
TSTOP = 80.0
RECORD = ["soma(0.5)", "apic[0](0.5)", "apic[0](0.9)", "apic[1](0.5)", "apic[2](0.9)", "dend[0](0.1)", "dend[0](0.9)"]
ECA_SITES = ["soma(0.5)", "dend[0](0.5)"]
SPIKE_SITES = ["soma(0.5)", "apic[0](0.9)"]


def build(h):
    secs = {}
    for name, (parent, px, L, diam, nseg) in SECTIONS.items():
        sec = secs[name] = h.Section(name=name)
        sec.L, sec.diam, sec.nseg, sec.Ra, sec.cm = L, diam, nseg, RA, CM[name.split("[")[0]]
        if parent is not None:
            sec.connect(secs[parent](px), 0.0)
    h.distance(0, secs["soma"](0.5))
    for name, sec in secs.items():
        region = name.split("[")[0]
        for mech, params in REGIONS[region].items():
            sec.insert(mech)
            for seg in sec:
                for key, value in params.items():
                    setattr(seg, key if key.endswith("_pas") else f"{key}_{mech}", value)
                if region == "apic" and mech == "Ih":
                    value, a, b, rate = IH_EXP
                    seg.gIhbar_Ih = value * (a + b * np.exp(rate * h.distance(seg)))
        for seg in sec:
            if hasattr(seg, "ena"):
                seg.ena = ENA
            if hasattr(seg, "ek"):
                seg.ek = EK
    return secs


def _site(secs, where):
    name, x = where[:-1].split("(")
    return secs[name](float(x))


def run(h, secs):
    stim = h.IClamp(_site(secs, "soma(0.5)"))
    stim.delay, stim.dur, stim.amp = STIMULUS["delay"], STIMULUS["dur"], STIMULUS["amp"]
    counters = []
    for where in SPIKE_SITES:
        seg = _site(secs, where)
        nc = h.NetCon(seg._ref_v, None, sec=seg.sec)
        nc.threshold = 0.0
        vec = h.Vector()
        nc.record(vec)
        counters.append((nc, vec))
    cvode = h.CVode()
    cvode.active(1)
    cvode.atol(TOL)
    cvode.rtol(TOL)
    # threshold crossings interpolated inside the integrator's step: NEURON's default (condition_order 1) dates a
    # crossing at the end of the step in which it happened
    cvode.condition_order(2)
    h.celsius = CELSIUS
    h.finitialize(V_INIT)
    times = np.round(np.arange(0.0, TSTOP + DT_OUT / 2, DT_OUT), 10)
    V, ca = (np.empty((times.size, len(RECORD))) for _ in range(2))
    eca = np.empty((times.size, len(ECA_SITES)))
    segs, eca_segs = [_site(secs, w) for w in RECORD], [_site(secs, w) for w in ECA_SITES]
    for k, t in enumerate(times):
        if t > 0:
            cvode.solve(float(t))
        V[k] = [s.v for s in segs]
        ca[k] = [s.cai for s in segs]
        eca[k] = [s.eca for s in eca_segs]
    spikes = [np.array(vec) for _, vec in counters]
    n = max(len(s) for s in spikes)
    spike_times = np.full((n, len(SPIKE_SITES)), np.nan)
    for j, s in enumerate(spikes):
        spike_times[: len(s), j] = s
    return times, V, ca, eca, spike_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mechanisms", type=Path, help="folder with BluePyOpt's examples/l5pc/mechanisms/*.mod")
    parser.add_argument("--commit", default="146bb019a866007d76eafcaca89d8b45e20be0f6", help="BluePyOpt commit")
    parser.add_argument("--out", type=Path, default=HERE / "calcium_cell.nc")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        hashes = compile_mechanisms(args.mechanisms.resolve(), Path(tmp))
        import neuron
        from neuron import h

        h.nrn_load_dll(str(Path(tmp) / "x86_64" / "libnrnmech.so"))
        h.load_file("stdrun.hoc")
        secs = build(h)
        globals_ = {"cai0_ca_ion": h.cai0_ca_ion, "cao0_ca_ion": h.cao0_ca_ion, "eca0 (dend)": secs["dend[0]"](0.5).eca}
        times, V, ca, eca, spikes = run(h, secs)
    ds = xr.Dataset(
        {
            "V": (("time", "location"), V, {"units": "mV", "long_name": "membrane potential"}),
            "cai": (("time", "location"), ca, {"units": "mM", "long_name": "intracellular calcium"}),
            "eca": (("time", "eca_location"), eca, {"units": "mV", "long_name": "calcium reversal potential"}),
            "spike_times": (("spike", "spike_location"), spikes, {"units": "ms", "long_name": "upward 0 mV crossings"}),
        },
        coords={
            "time": ("time", times, {"units": "ms"}),
            "location": RECORD,
            "eca_location": ECA_SITES,
            "spike_location": SPIKE_SITES,
        },
    )
    ds.attrs = {
        "simulator": f"NEURON {neuron.__version__}",
        "celsius": CELSIUS,
        "v_init": V_INIT,
        "integrator": f"global CVODE, atol = rtol = {TOL:g}, condition_order 2 (threshold crossings interpolated); "
        "samples via CVode.solve(t)",
        "source": "BluePyOpt examples/l5pc/mechanisms (Hay et al. 2011, ModelDB 139653), commit " + args.commit,
        "mod_sha256": "; ".join(f"{k} {v}" for k, v in hashes.items()),
        "sections": f"name: (parent, parent_x, L um, diam um, nseg) {SECTIONS}",
        "mechanisms": f"per region (S/cm2, mV, ms) {REGIONS}; cm (uF/cm2) {CM}; Ra {RA} ohm cm; ena {ENA}, ek {EK}",
        "apical_Ih": f"gIhbar = value (a + b exp(rate d)), (value, a, b, rate) = {IH_EXP}, d = distance from soma(0.5)",
        "stimulus": f"IClamp soma(0.5) {STIMULUS} (ms, nA); tstop {TSTOP} ms",
        "ions": "; ".join(f"{k} {v!r}" for k, v in globals_.items()) + " (NEURON's, with the mechanisms inserted)",
    }
    ds.to_netcdf(args.out, engine="netcdf4")
    n = np.isfinite(spikes).sum(axis=0)
    print(f"wrote {args.out}: spikes {dict(zip(SPIKE_SITES, n.tolist(), strict=True))}, peak cai {ca.max(axis=0)}")


if __name__ == "__main__":
    main()
