"""One chunk of a [`sweep`][difflab.sweep]: its members run as one ensemble, its observables as a Dataset.

The local engine (`_sweep`) and the cluster engine (`_cluster`) both run chunks through `run_chunk` and stamp them
with `finish_chunk`, so a chunk is the same bit for bit wherever it ran.
"""

from __future__ import annotations

from pathlib import Path

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from ..core.internal import StaticArray
from ..data.internal import dataset_checksum
from ._ensemble import make_batch, run_ensemble, shared_fixed_step

__all__ = ["chunk_path", "derivative_name", "finish_chunk", "run_chunk"]


def chunk_path(folder: Path, i: int) -> Path:
    """The file of chunk `i`."""
    return folder / f"chunk_{i:05d}.nc"


def finish_chunk(ds: xr.Dataset, attrs: dict[str, str], i: int) -> xr.Dataset:
    """Stamp chunk `i` with the study's attributes and the checksum of its arrays."""
    ds.attrs.update(attrs, chunk=i)
    ds.attrs["checksum"] = dataset_checksum(ds)
    return ds


def run_chunk(model, protocol, ts, values, idx, size, obs, ensemble_kwargs, derivatives=False) -> xr.Dataset:
    """Observables of the points `values` (global indices `idx`) as a Dataset along `sample`.

    Every chunk runs `size` members, the last one padded with repeats of its last point, so that
    all chunks share one shape and one compilation (on a cluster: one per worker process); the
    padding is dropped after the observables. With `derivatives`, each observable's partial
    derivatives with respect to the design's parameters come too (`derivative_chunk`).
    """
    padded = np.concatenate([np.arange(len(idx)), np.full(size - len(idx), len(idx) - 1)])
    chosen = {k: np.asarray(v)[padded] for k, v in values.items()}
    fns = tuple((name, fn) for name, (fn, _) in obs.items())
    if derivatives:
        status, results, partials = _with_partials(model, protocol, ts, chosen, fns, ensemble_kwargs)
    else:
        full = run_ensemble(make_batch(model, **chosen), protocol, ts, **ensemble_kwargs)
        status, results, partials = (full.succeeded, full.stats["num_steps"]), _observe(full, fns), {}
    results = {name: np.asarray(value)[: len(idx)] for name, value in results.items()}
    ok, steps = (np.asarray(x)[: len(idx)] for x in status[:2])
    data_vars = {}
    for name, value in results.items():
        arr = np.asarray(value)
        dims = ("sample", *(f"{name}_dim{k}" for k in range(arr.ndim - 1)))
        data_vars[name] = xr.Variable(dims, arr, {"units": obs[name][1]} if obs[name][1] else {})
        if name in partials:
            d = np.moveaxis(np.asarray(partials[name]), 0, 1)[: len(idx)]  # (parameter, sample) -> (sample, ...)
            data_vars[derivative_name(name)] = xr.Variable(
                ("sample", "parameter", *dims[1:]), d, {"long_name": f"d {name} / d parameter"}
            )
    data_vars["solver_ok"] = xr.Variable(("sample",), ok.astype(np.int8))
    data_vars["num_steps"] = xr.Variable(("sample",), steps)
    units = type(model).parameter_units
    coords: dict = {"sample": idx}
    if derivatives:
        coords["parameter"] = list(values)
    for name, v in values.items():
        coords[name] = ("sample", np.asarray(v), {"units": units.get(name, "")})
    return xr.Dataset(data_vars, coords=coords)


def derivative_name(observable: str) -> str:
    """The data variable holding the partial derivatives of `observable` (dims `sample`, `parameter`, ...)."""
    return f"d_{observable}"


def _with_partials(model, protocol, ts, values, fns, ensemble_kwargs):
    """The ensemble's status, its observables and their partial derivatives in one forward-mode pass.

    Members are independent, so one tangent per parameter (ones for every member) gives every
    member's partial derivative at once: the tangents of the `d` parameters ride along the solve
    together (`jax.vmap` over `jax.jvp`, as `jax.jacfwd` does), and the primal is computed once.
    The solve is differentiated with `diffrax.ForwardMode` unless another adjoint was chosen.
    Returns `((succeeded, num_steps, provenance), observables, partials)`.
    """
    kwargs = {"adjoint": diffrax.ForwardMode(), **ensemble_kwargs}
    # the members' fixed step from the concrete values (which also checks them, eagerly, by name): traced, it
    # would rule out the fixed-step scan
    step = shared_fixed_step(make_batch(model, **values), protocol, **ensemble_kwargs)
    if step is not None:
        kwargs["dt0"] = step
    primals = {k: jnp.asarray(v, dtype=float) for k, v in values.items()}
    times = ts if isinstance(ts, jax.core.Tracer) else StaticArray(ts)
    return _partials_program(model, protocol, times, primals, tuple(values), fns, kwargs)


@eqx.filter_jit
def _partials_program(model, protocol, ts, primals, names, fns, kwargs):
    """`_with_partials`'s solve, observables and tangents as one compiled program.

    Compiled whole, XLA computes the tangents of the saved states the observables read and no others (a firing
    rate reads `V`, not the gates), where an observable applied after the solve needed the tangents of the whole
    trajectory: 0.33 → 0.23 s for the 256-point HH DGSM design (4 parameters) of benchmarks/README.md.
    """
    ts = ts.array if isinstance(ts, StaticArray) else ts
    n = len(next(iter(primals.values())))
    # tangent i along parameter names[i], the caller's order (a dict through jit comes back in sorted key order)
    basis = {k: jnp.stack([jnp.full(n, float(j == k)) for j in names]) for k in names}

    provenance = []

    def observed(v):
        full = run_ensemble(make_batch(model, **v), protocol, ts, **kwargs)
        provenance.append(full.provenance)  # static: how the solve ran (its loop, solver and step)
        return _observe(full, fns), (full.succeeded, full.stats["num_steps"])

    def along(tangent):
        return jax.jvp(observed, (primals,), (tangent,), has_aux=True)

    results, partials, status = jax.vmap(along, out_axes=(None, 0, None))(basis)
    return (*status, provenance[0]), results, partials


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
