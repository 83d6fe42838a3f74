"""The L5PC's back-propagating AP in every segment, from NEURON 9 (run with `neuron==9.0.2`).

    python datasets/neuron/generate_l5pc_bap.py <BluePyOpt examples/l5pc folder> [--out FILE]

The cell and the protocol are those of `l5pc.nc` (`generate_l5pc.py` builds the cell; BluePyOpt's bAP protocol:
1.9 nA at soma[0](0.5) over [295, 300) ms). Global CVODE at atol = rtol = 1e-9, sampled with `CVode.solve(t)`
at 0 and 290 ms and every 0.025 ms over [294, 330] ms. For every segment: the potential at the last sample before
the onset (294.975 ms), the largest sample after it and its time, and the amplitude (their difference, the bAP
amplitude as BluePyOpt's features measure it). The same run at 1e-8 gives `amplitude_check`.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import neuron
import numpy as np
import xarray as xr
from neuron import h

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate_l5pc import PARAMS, _short, build_cell, compile_mechanisms  # noqa: E402

ONSET, DURATION, AMPLITUDE, TSTOP = 295.0, 5.0, 1.9, 330.0  # ms, ms, nA, ms
TOL, TOL_CHECK = 1e-9, 1e-8
TIMES = np.concatenate([[0.0, 290.0], np.arange(round(294.0 / 0.025), round(TSTOP / 0.025) + 1) * 0.025])


def run(sections, tol: float) -> np.ndarray:
    """V (mV) of every segment at TIMES, shape (time, segment), under the bAP pulse from finitialize(v_init)."""
    soma = sections[0]
    clamp = h.IClamp(soma(0.5))
    clamp.delay, clamp.dur, clamp.amp = ONSET, DURATION, AMPLITUDE
    cvode = h.CVode()
    cvode.active(1)
    cvode.atol(tol)
    cvode.rtol(tol)
    segs = [seg for sec in sections for seg in sec]
    h.finitialize(PARAMS["globals"]["v_init"])
    out = np.empty((TIMES.size, len(segs)))
    for i, t in enumerate(TIMES):
        if t > h.t:
            cvode.solve(float(t))
        out[i] = [seg.v for seg in segs]
    return out


def features(V: np.ndarray) -> dict[str, np.ndarray]:
    before, after = np.flatnonzero(TIMES < ONSET)[-1], TIMES >= ONSET
    peak = V[after].max(axis=0)
    return {"rest": V[before], "peak": peak, "t_peak": TIMES[after][V[after].argmax(axis=0)],
            "amplitude": peak - V[before]}  # fmt: skip


def dataset(sections, main: dict, check: dict, seconds: float, hashes: dict[str, str]) -> xr.Dataset:
    segs = [(sec, seg) for sec in sections for seg in sec]
    soma = sections[0]
    mv = {"units": "mV"}
    data = {
        "V_rest": ("segment", main["rest"], mv | {"long_name": f"V at {TIMES[TIMES < ONSET][-1]:g} ms, the last "
                   "sample before the onset"}),
        "V_peak": ("segment", main["peak"], mv | {"long_name": "largest sample at or after the onset"}),
        "t_peak": ("segment", main["t_peak"], {"units": "ms", "long_name": "time of V_peak"}),
        "amplitude": ("segment", main["amplitude"], mv | {"long_name": "bAP amplitude: V_peak - V_rest"}),
        "amplitude_check": ("segment", check["amplitude"], mv | {"long_name": f"amplitude with CVODE atol = rtol "
                            f"= {TOL_CHECK:g} (convergence check)"}),
        "seg_distance": ("segment", [h.distance(soma(0.5), seg) for _, seg in segs],
                         {"units": "um", "long_name": "path distance from soma[0](0.5) to the segment's centre"}),
    }  # fmt: skip
    ds = xr.Dataset(data, coords={"segment": [f"{_short(s)}({seg.x:.6g})" for s, seg in segs]})
    ds.attrs = {
        "simulator": "NEURON", "simulator_version": neuron.__version__, "model": PARAMS["model"],
        "cell": "as l5pc.nc (generate_l5pc.build_cell: l5pc_parameters.json, C060114A7.asc, BluePyOpt's nseg rule "
                "and axon replacement)",
        "protocol": f"bAP: IClamp soma[0](0.5) {AMPLITUDE:g} nA over [{ONSET:g}, {ONSET + DURATION:g}) ms, "
                    f"finitialize({PARAMS['globals']['v_init']:g}), celsius {PARAMS['globals']['celsius']:g}",
        "integrator": f"global CVODE, atol = rtol = {TOL:g}; samples via CVode.solve(t) at 0, 290 ms and every "
                      f"0.025 ms over [294, {TSTOP:g}] ms",
        "convergence": f"max |amplitude - amplitude_check| "
                       f"{np.max(np.abs(main['amplitude'] - check['amplitude'])):.2e} mV",
        "wall_time": f"{seconds:.1f} s for the 1e-9 run ({platform.machine()}, {os.cpu_count()} cores)",
        "mod_sha256": "; ".join(f"{k} {v}" for k, v in hashes.items()),
        "generator": "datasets/neuron/generate_l5pc_bap.py",
    }  # fmt: skip
    return ds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("example", type=Path, help="BluePyOpt's examples/l5pc folder (mechanisms/)")
    parser.add_argument("--out", type=Path, default=HERE / "l5pc_bap.nc")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        hashes = compile_mechanisms(args.example.resolve() / "mechanisms", Path(tmp))
        h.load_file("stdrun.hoc")
        h.load_file("import3d.hoc")
        h.nrn_load_dll(str(Path(tmp) / platform.machine() / "libnrnmech.so"))
        sections = build_cell()
        start = time.perf_counter()
        main_run = features(run(sections, TOL))
        seconds = time.perf_counter() - start
        check = features(run(sections, TOL_CHECK))
        ds = dataset(sections, main_run, check, seconds, hashes)
    tmp_out = args.out.with_suffix(".tmp.nc")
    ds.to_netcdf(tmp_out, encoding={n: {"zlib": True, "complevel": 9} for n in ds.data_vars})
    os.replace(tmp_out, args.out)
    print(f"wrote {args.out.name}: {ds.sizes['segment']} segments; {ds.attrs['convergence']}")


if __name__ == "__main__":
    main()
