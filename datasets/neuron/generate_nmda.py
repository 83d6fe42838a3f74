"""Reference of two hh point cells coupled by one NMDA synapse, from NEURON 9 (`neuron==9.0.2`, separate venv).

    PEER_PYTHON datasets/neuron/generate_nmda.py

Compiles `mod/nmda_exp2.mod` (Exp2Syn kinetics times the Jahr–Stevens magnesium block) with `nrnivmodl` in a
temporary folder and writes `network_nmda.nc`. Settings and provenance: README.md here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import neuron
from generate_cells import _dataset as dataset
from generate_cells import _geometry, _point_cells, run  # the same cells, CVODE settings and dataset layout
from neuron import h

HERE = Path(__file__).resolve().parent
NMDA = {
    "weight": 0.002,  # uS: the unblocked peak
    "delay": 1.5,  # ms
    "tau1": 2.0,  # ms
    "tau2": 20.0,  # ms
    "e": 0.0,  # mV
    "mg": 1.0,  # mM
    "stimulus": (0, 5.0, 40.0, 0.01),  # cell, delay, dur (ms), nA: 10 uA/cm2 on cell 0
    "tstop": 60.0,
}


def compile_mechanism(files=("nmda_exp2.mod",)) -> None:
    """Compile ``files`` of `mod/` together with the venv's `nrnivmodl` in a temporary folder and load them."""
    build = Path(tempfile.mkdtemp())
    for file in files:
        shutil.copy(HERE / "mod" / file, build)
    nrnivmodl = Path(sys.executable).parent / "nrnivmodl"  # the venv's own, beside its python
    subprocess.run([str(nrnivmodl)], cwd=build, check=True, capture_output=True)
    neuron.load_mechanisms(str(build))


def network_nmda():
    p = NMDA
    cells = _point_cells(2)
    syn = h.NMDAExp2(cells[1](0.5))
    syn.tau1, syn.tau2, syn.e, syn.mg = p["tau1"], p["tau2"], p["e"], p["mg"]
    nc = h.NetCon(cells[0](0.5)._ref_v, syn, sec=cells[0])
    nc.threshold, nc.delay, nc.weight[0] = 0.0, p["delay"], p["weight"]
    sections = {f"cell{i}": sec for i, sec in enumerate(cells)}
    cell, delay, dur, amp = p["stimulus"]
    record = ["cell0(0.5)", "cell1(0.5)"]
    times, V, spikes = run(sections, [(f"cell{cell}", 0.5, delay, dur, amp)], record, p["tstop"], record)
    ds = dataset(times, V, record, spikes, _geometry(sections))
    for key in ("weight", "delay", "tau1", "tau2", "e", "mg"):
        ds.attrs[f"nmda_{key}"] = p[key]
    ds.attrs["cell"] = "2 hh point cells, L = diam = sqrt(100/pi) um (area 100 um2), hh defaults, celsius 6.3"
    ds.attrs["stimuli"] = "IClamp cell0 0.01 nA on [5, 45) ms (10 uA/cm2)"
    ds.attrs["synapses"] = (
        "NMDAExp2 (mod/nmda_exp2.mod) on cell1 from cell0 through a NetCon (threshold 0 mV): Exp2Syn kinetics "
        "times 1 / (1 + exp(-0.062 v) mg / 3.57); weight uS, delay/tau1/tau2 ms, e mV, mg mM in the nmda_* attrs"
    )
    return ds


if __name__ == "__main__":
    compile_mechanism()
    network_nmda().to_netcdf(HERE / "network_nmda.nc")
    print("wrote network_nmda.nc")
