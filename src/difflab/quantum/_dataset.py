"""Labelled output of `sesolve` / `mesolve`: expectation values, states and solver statistics as an xarray Dataset.

Dimensions: [batch dimension], [`initial_state`], `time`, `observable` (and `level` or `row`/`col` for states).
Attributes carry the units (ħ = 1, time unit, angular frequencies in rad per time unit) and the provenance of
`difflab.simulate` (solver, tolerances, dtype, versions).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

__all__ = ["to_dataset"]


def to_dataset(
    traj, lead, names, all_hermitian, batch_dim, batch_coords, open_system, time_units, n_batch
) -> xr.Dataset:
    dims = ((batch_dim,) if n_batch else ()) + (("initial_state",) if len(lead) > (1 if n_batch else 0) else ())
    ys = {k: np.asarray(v).reshape((*lead, *np.shape(v)[1:])) for k, v in traj.ys.items()}
    data = {}
    if names:
        attrs = {"units": "1", "long_name": "expectation value (units of the operator; ħ = 1)"}
        data["expect"] = xr.Variable((*dims, "time", "observable"), ys["expect_re"], attrs)
        if not all_hermitian:
            data["expect_imag"] = xr.Variable((*dims, "time", "observable"), ys["expect_im"], attrs)
    state_dims = ("row", "col") if open_system else ("level",)
    for key in ("rho", "psi"):
        if key in ys:
            for part, index in (("re", 0), ("im", 1)):
                values = np.take(ys[key], index, axis=len(dims) + 1)
                long_name = f"{'real' if part == 're' else 'imaginary'} part of the state"
                attrs = {"units": "1", "long_name": long_name}
                data[f"{key}_{part}"] = xr.Variable((*dims, "time", *state_dims), values, attrs)
    steps = np.asarray(traj.stats["num_steps"]).reshape(lead)
    data["num_steps"] = xr.Variable(dims, steps, {"long_name": "solver steps per member"})
    coords = {
        "time": ("time", np.asarray(traj.ts).reshape(-1, np.shape(traj.ts)[-1])[0], {"units": time_units}),
    }
    if "initial_state" in dims:
        coords["initial_state"] = ("initial_state", np.arange(ys[next(iter(ys))].shape[len(dims) - 1]))
    if names:
        coords["observable"] = ("observable", np.asarray(names))
    for key, values in (batch_coords or {}).items():
        coords[key] = (batch_dim, np.asarray(values))
    attrs = dict(traj.provenance)
    attrs.update(
        {
            "equation": "Lindblad master equation" if open_system else "Schrodinger equation",
            "hbar": "1",
            "time_units": time_units,
            "frequency_units": f"rad/{time_units} (angular frequencies)",
        }
    )
    return xr.Dataset(data, coords=coords, attrs=attrs)
