"""One chunk of a [`sweep`][difflab.sweep]: its members run as one ensemble, its observables as a Dataset.

The local engine (`_sweep`) and the cluster engine (`_cluster`) both run chunks through `run_chunk` and stamp them
with `finish_chunk`, so a chunk is the same bit for bit wherever it ran.
"""

from __future__ import annotations

from pathlib import Path

import equinox as eqx
import jax
import numpy as np
import xarray as xr

from ..data.internal import dataset_checksum
from ._ensemble import make_batch, run_ensemble

__all__ = ["chunk_path", "finish_chunk", "run_chunk"]


def chunk_path(folder: Path, i: int) -> Path:
    """The file of chunk `i`."""
    return folder / f"chunk_{i:05d}.nc"


def finish_chunk(ds: xr.Dataset, attrs: dict[str, str], i: int) -> xr.Dataset:
    """Stamp chunk `i` with the study's attributes and the checksum of its arrays."""
    ds.attrs.update(attrs, chunk=i)
    ds.attrs["checksum"] = dataset_checksum(ds)
    return ds


def run_chunk(model, protocol, ts, values, idx, size, obs, ensemble_kwargs) -> xr.Dataset:
    """Observables of the points `values` (global indices `idx`) as a Dataset along `sample`.

    Every chunk runs `size` members, the last one padded with repeats of its last point, so that
    all chunks share one shape and one compilation (on a cluster: one per worker process); the
    padding is dropped after the observables.
    """
    padded = np.concatenate([np.arange(len(idx)), np.full(size - len(idx), len(idx) - 1)])
    batch = make_batch(model, **{k: v[padded] for k, v in values.items()})
    full = run_ensemble(batch, protocol, ts, **ensemble_kwargs)
    results = _observe(full, tuple((name, fn) for name, (fn, _) in obs.items()))
    results = {name: np.asarray(value)[: len(idx)] for name, value in results.items()}
    ok, steps = (np.asarray(x)[: len(idx)] for x in (full.succeeded, full.stats["num_steps"]))
    data_vars = {}
    for name, value in results.items():
        arr = np.asarray(value)
        dims = ("sample", *(f"{name}_dim{k}" for k in range(arr.ndim - 1)))
        data_vars[name] = xr.Variable(dims, arr, {"units": obs[name][1]} if obs[name][1] else {})
    data_vars["solver_ok"] = xr.Variable(("sample",), ok.astype(np.int8))
    data_vars["num_steps"] = xr.Variable(("sample",), steps)
    units = type(model).parameter_units
    coords = {"sample": idx}
    for name, v in values.items():
        coords[name] = ("sample", np.asarray(v), {"units": units.get(name, "")})
    return xr.Dataset(data_vars, coords=coords)


@eqx.filter_jit
def _observe(traj, fns):
    return {name: jax.vmap(lambda one, fn=fn, name=name: _numeric(name, fn(one)))(traj) for name, fn in fns}


def _numeric(name: str, value):
    """An observable's value, refused by the observable's name unless it is a number or an array of numbers."""
    for leaf in jax.tree.leaves(value):
        if not (isinstance(leaf, jax.Array | np.ndarray | np.generic | int | float) and not isinstance(leaf, bool)):
            raise TypeError(
                f"observable {name!r} must return a number or an array of numbers; got {type(leaf).__name__} {leaf!r}"
            )
    return value
