"""eFEL's spike features of the NEURON traces shipped here: the reference of `difflab.neuron.spike_features`.

    PEER_PYTHON datasets/neuron/generate_efel.py      # an environment with efel==5.7.34 (never imported by difflab)

Each case is a NEURON trace of this folder or of `datasets/hh`, taken on a uniform grid whose times are all
sample times of the file (no resampling), and given to eFEL with `interp_step` equal to that grid's step, so that
eFEL's own linear interpolation returns the samples (to within 1e-5 mV: eFEL adds up its grid, so its times
drift by ~1e-9 ms; the deviation is recorded per case). eFEL's other settings are its defaults (Threshold -20 mV,
DerivativeThreshold 10 mV/ms, DerivativeWindow 3, DownDerivativeThreshold -12 mV/ms, voltage_base_start_perc 0.9,
sahp_start 5 ms, ignore_first_ISI). Writes `efel_features.json`: per case the source, the grid, the stimulus
window and eFEL's values of the features below (index features as sample indices of the grid).
"""

from __future__ import annotations

import json
from pathlib import Path

import efel
import numpy as np
import xarray as xr

HERE = Path(__file__).resolve().parent
FEATURES = [
    "peak_indices", "peak_time", "peak_voltage", "AP_begin_indices", "AP_amplitude", "AP_end_indices",
    "AP_rise_indices", "AP_fall_indices", "AP_duration_half_width", "min_AHP_indices", "min_AHP_values",
    "AHP_depth", "AHP_depth_abs", "voltage_base", "all_ISI_values", "ISI_CV", "mean_frequency", "Spikecount",
    "AP_height", "AP_width", "AHP_depth_abs_slow", "AHP_slow_time", "time_to_first_spike", "doublet_ISI",
    "adaptation_index2", "maximum_voltage_from_voltagebase",
]  # fmt: skip
# name: (file, variable, selection, grid step ms, stimulus window ms)
CASES = {
    "l5pc_step1_soma": ("neuron/l5pc.nc", "V_step", {"step_protocol": 0, "location": 0}, 0.1, (700.0, 2700.0)),
    "l5pc_step2_soma": ("neuron/l5pc.nc", "V_step", {"step_protocol": 1, "location": 0}, 0.1, (700.0, 2700.0)),
    "l5pc_step3_soma": ("neuron/l5pc.nc", "V_step", {"step_protocol": 2, "location": 0}, 0.1, (700.0, 2700.0)),
    "l5pc_step3_apical": ("neuron/l5pc.nc", "V_step", {"step_protocol": 2, "location": 1}, 0.1, (700.0, 2700.0)),
    "hh_step_10uA": ("hh/hh_step_10uA.nc", "V", {"amplitude": 0}, 0.025, (10.0, 110.0)),
    "hh_ou_hold": ("hh/hh_ou_hold.nc", "V", {}, 0.025, (10.0, 1000.0)),
}


def grid(ts: np.ndarray, step: float) -> np.ndarray:
    """Indices of the samples at the multiples of `step` (all of them must be samples)."""
    want = np.arange(round(ts[0] / step), round(ts[-1] / step) + 1) * step
    idx = np.searchsorted(ts, want - 1e-9)
    if not np.allclose(ts[idx], want, atol=1e-9, rtol=0):
        raise SystemExit(f"the grid of step {step} ms is not a subset of the samples")
    return idx


def main() -> None:
    root = HERE.parent
    out = {"efel_version": efel.__version__, "settings": "eFEL defaults (efel.reset())", "cases": {}}
    for name, (file, var, sel, step, (start, end)) in CASES.items():
        ds = xr.open_dataset(root / file)
        v = ds[var].isel(sel)
        tname = v.dims[0]
        ts, vs = ds[tname].values.astype(float), v.values.astype(float)
        idx = grid(ts, step)
        efel.reset()
        efel.set_setting("interp_step", step)
        trace = {"T": ts[idx], "V": vs[idx], "stim_start": [start], "stim_end": [end]}
        values = efel.get_feature_values([trace], [*FEATURES, "time", "voltage"], raise_warnings=False)[0]
        # eFEL builds its grid by adding the step (its times drift by ~1e-9 ms over 30 000 samples), so its
        # interpolation returns the samples to within a micro-volt, not exactly: recorded per case
        deviation = float(np.max(np.abs(values["voltage"] - vs[idx]))) if values["voltage"].shape == idx.shape else 1.0
        if deviation > 1e-5:
            raise SystemExit(f"{name}: eFEL's interpolation did not return the samples ({deviation} mV)")
        feats = {k: (None if values[k] is None else np.asarray(values[k]).tolist()) for k in FEATURES}
        out["cases"][name] = {
            "file": file, "variable": var, "selection": sel, "time": tname, "grid_step": step,
            "stimulus": [start, end], "n_samples": int(idx.size), "interpolation_deviation_mV": deviation,
            "features": feats,
        }  # fmt: skip
        print(name, idx.size, "samples,", len(feats["peak_indices"] or []), "spikes")
    (HERE / "efel_features.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
