"""Point currents at the ends of sections, NEURON 9 (run in a separate environment with `neuron==9.0.2`).

    python datasets/neuron/generate_end_clamp.py

Writes `end_clamp.nc`: a soma with `hh` (L = diam = 20 um), a thin passive dendrite `dend` (200 x 1 um, nseg 5)
at soma(1) and a passive `dend2` (100 x 2 um, nseg 3) at soma(0); IClamps at the zero-area nodes dend(1)
(0.3 nA on [5, 25) ms) and soma(0) (0.05 nA on [15, 35) ms); V at both ends and nearby every 0.025 ms to 40 ms.
Settings as generate_cells.py (CVODE atol = rtol = 1e-9, celsius 6.3, usetable_hh = 0); provenance: README.md.
"""

from __future__ import annotations

from pathlib import Path

import neuron
import xarray as xr
from generate_cells import run
from neuron import h

HERE = Path(__file__).resolve().parent
STIMULI = [("dend", 1.0, 5.0, 20.0, 0.3), ("soma", 0.0, 15.0, 20.0, 0.05)]  # section, x, delay, dur, nA
RECORD = ["dend(1)", "dend(0.9)", "soma(0)", "soma(0.5)", "dend2(0.1)", "dend2(1)"]


def end_clamp():
    soma, dend, dend2 = h.Section(name="soma"), h.Section(name="dend"), h.Section(name="dend2")
    dend.connect(soma(1.0))
    dend2.connect(soma(0.0))
    for sec, (L, diam, nseg) in ((soma, (20.0, 20.0, 1)), (dend, (200.0, 1.0, 5)), (dend2, (100.0, 2.0, 3))):
        sec.L, sec.diam, sec.nseg, sec.Ra, sec.cm = L, diam, nseg, 100.0, 1.0
    soma.insert("hh")
    for sec in (dend, dend2):
        sec.insert("pas")
        for seg in sec:
            seg.pas.g, seg.pas.e = 1e-4, -65.0
    sections = {"soma": soma, "dend": dend, "dend2": dend2}
    times, V, _ = run(sections, STIMULI, RECORD, 40.0, [])
    ds = xr.Dataset(
        {"V": (("time", "location"), V, {"units": "mV", "long_name": "membrane potential"})},
        coords={"time": ("time", times, {"units": "ms"}), "location": RECORD},
    )
    ds.attrs.update(
        simulator="NEURON",
        simulator_version=neuron.__version__,
        integration="global CVODE, atol = rtol = 1e-9; saved every 0.025 ms with CVode.solve(t)",
        cell="soma L = diam = 20 um, nseg 1, hh defaults; dend 200 x 1 um at soma(1), nseg 5; dend2 100 x 2 um at "
        "soma(0), nseg 3; dendrites pas g 1e-4 S/cm2, e -65 mV; Ra 100 ohm cm, cm 1 uF/cm2; celsius 6.3",
        stimuli="IClamp dend(1) 0.3 nA on [5, 25) ms; IClamp soma(0) 0.05 nA on [15, 35) ms",
    )
    return ds


if __name__ == "__main__":
    end_clamp().to_netcdf(HERE / "end_clamp.nc")
    print("wrote end_clamp.nc")
    print(xr.open_dataset(HERE / "end_clamp.nc")["V"].max("time").values)
