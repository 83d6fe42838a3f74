"""Calibration checkpoints: the exact optimiser state in one netCDF file, written atomically.

A checkpoint holds the unconstrained parameters of every member, every array of the
optimiser state (float64 round-trips exactly through netCDF), the loss history and a
fingerprint of the model, fitted parameters, optimiser and data. Resuming checks the
fingerprint first, so a checkpoint of another model or other data is refused with a message.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from ..data.internal import dataset_checksum, listed, read_checkpoint, write_netcdf

FORMAT = "difflab-calibration-checkpoint-1"


def save(path: str | os.PathLike, *, theta, carry, history, step: int, meta: dict[str, str]) -> None:
    """Write the state after `step` completed steps (replaces the previous checkpoint)."""
    data_vars = {}
    for name, value in theta.items():
        data_vars[f"theta__{name}"] = _variable(f"theta__{name}", np.asarray(value))
    for i, leaf in enumerate(jax.tree.leaves(carry)):
        arr = np.asarray(leaf)
        data_vars[f"state__{i:03d}"] = _variable(f"state__{i:03d}", arr.astype(np.int8) if arr.dtype == bool else arr)
    for name, rows in history.items():
        arr = np.asarray(rows) if len(rows) else np.zeros((0,))
        dims = ("hstep", *(f"h{name}_dim{k}" for k in range(arr.ndim - 1)))
        data_vars[f"history__{name}"] = xr.Variable(dims, arr)
    attrs = {"format": FORMAT, "step": int(step), **meta}
    ds = xr.Dataset(data_vars, attrs=attrs)
    ds.attrs["checksum"] = dataset_checksum(ds)
    write_netcdf(ds, path, overwrite=True)


def _differing_parts(there, here) -> str:
    """The names of the problem's parts whose fingerprints differ (``"protocol and loss"``), or ``""``."""
    if not there or not here:  # a checkpoint written before the parts were stored
        return ""

    def parts(text):
        return dict(item.rsplit("=", 1) for item in str(text).split("; ") if "=" in item)

    old, new = parts(there), parts(here)
    names = [name for name in new if name in old and old[name] != new[name]]  # a part added later is not named
    return listed(names)


def load(path: str | os.PathLike, *, meta: dict[str, str], theta_like, carry_like):
    """Read a checkpoint written by `save` and check that it belongs to this fit.

    Returns:
        `(theta, carry, history, step)`.

    Raises:
        ValueError: the file is not a calibration checkpoint, or was written for another
            model, other fitted parameters, another optimiser or other data.
    """
    ds = read_checkpoint(path, FORMAT, "calibration", "fit", unsummed_ok=True)  # older files carry no checksum
    for key, expected in meta.items():
        got = str(ds.attrs.get(key))
        if key == "problem_parts" or got == str(expected):
            continue  # the parts only explain a different problem_fingerprint
        what = _differing_parts(ds.attrs.get("problem_parts"), meta.get("problem_parts"))
        if key == "problem_fingerprint" and what:
            raise ValueError(
                f"checkpoint {str(path)!r} was written for a different fit: it differs from this one in its {what}; "
                "start a new checkpoint file or resume with the original setup"
            )
        raise ValueError(
            f"checkpoint {str(path)!r} was written for a different fit: {key} is {got!r} there, "
            f"{str(expected)!r} here; start a new checkpoint file or resume with the original setup"
        )
    theta = {name: _like(ds[f"theta__{name}"].values, value) for name, value in theta_like.items()}
    leaves, treedef = jax.tree.flatten(carry_like)
    stored = sorted(str(v) for v in ds.data_vars if str(v).startswith("state__"))
    if len(stored) != len(leaves):
        raise ValueError(f"checkpoint {str(path)!r} holds {len(stored)} optimiser arrays; this fit has {len(leaves)}")
    carry = jax.tree.unflatten(treedef, [_like(ds[n].values, leaf) for n, leaf in zip(stored, leaves)])
    history = {str(v)[len("history__") :]: list(ds[v].values) for v in ds.data_vars if str(v).startswith("history__")}
    return theta, carry, history, int(ds.attrs["step"])


def _variable(name: str, arr: np.ndarray) -> xr.Variable:
    return xr.Variable(("member", *(f"{name}_dim{k}" for k in range(arr.ndim - 1))), arr)


def _like(values: np.ndarray, like) -> jax.Array:
    """The stored `values` as an array of `like`'s shape, dtype and weak type.

    The weak type matters: the optimiser keeps some counters and step sizes as weakly typed arrays (Python
    scalars in its code), and a strongly typed array in their place would compile the fit's step again.
    """
    like = jnp.asarray(like)
    if values.shape != like.shape:
        raise ValueError(f"checkpoint array has shape {values.shape}; this fit expects {like.shape}")
    return like.at[...].set(jnp.asarray(values.astype(like.dtype)))  # `.at[].set` keeps `like`'s weak type
