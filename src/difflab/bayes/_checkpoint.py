"""Posterior checkpoints: the chains' adapted samplers and their draws so far, in one netCDF file written atomically.

A checkpoint holds every chain's NUTS state (position, log density and its gradient), its adapted step size and
inverse mass matrix, the draws made (positions in the sampler's coordinates, divergences, leapfrog steps) and a
fingerprint of each part of the problem. Resuming checks the fingerprints first, so a checkpoint of another
posterior is refused with a message naming the parts that differ. float64 round-trips exactly through netCDF, so a
resumed run continues exactly where it stopped.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from ..data.internal import dataset_checksum, listed, read_checkpoint, write_netcdf

FORMAT = "difflab-posterior-checkpoint-1"


def save(path: str | os.PathLike, *, states, parameters, drawn: dict[str, np.ndarray], parts: dict[str, str]) -> None:
    """Write the chains' `states` and `parameters` after the draws `drawn` (replaces the previous checkpoint).

    `drawn`: `z (chain, draw, d)`, `divergent (chain, draw)` and `steps (chain, draw)`; `parts`: the problem's
    fingerprints by part (see `posterior`).
    """
    data_vars = {}
    for i, leaf in enumerate(jax.tree.leaves((states, parameters))):
        arr = np.asarray(leaf)
        dims = ("chain", *(f"sampler__{i:03d}_dim{k}" for k in range(arr.ndim - 1)))
        data_vars[f"sampler__{i:03d}"] = xr.Variable(dims, arr)
    data_vars["z"] = xr.Variable(("chain", "draw", "coordinate"), drawn["z"])
    data_vars["divergent"] = xr.Variable(("chain", "draw"), drawn["divergent"].astype(np.int8))
    data_vars["steps"] = xr.Variable(("chain", "draw"), drawn["steps"])
    ds = xr.Dataset(data_vars, attrs={"format": FORMAT, "draws_done": drawn["z"].shape[1], **parts})
    ds.attrs["checksum"] = dataset_checksum(ds)
    write_netcdf(ds, path, overwrite=True)


def load(path: str | os.PathLike, *, parts: dict[str, str], states_like, parameters_like):
    """Read a checkpoint written by `save` for the posterior whose fingerprints are `parts`.

    Returns:
        `(states, parameters, drawn)` as `save` took them.

    Raises:
        ValueError: the file is not a posterior checkpoint, is corrupt, or was written for another posterior (the
            message names the parts that differ).
    """
    ds = read_checkpoint(path, FORMAT, "posterior", "run")
    differing = [name.removeprefix("fingerprint_") for name, value in parts.items() if str(ds.attrs.get(name)) != value]
    if differing:
        raise ValueError(
            f"checkpoint {str(path)!r} was written for a different posterior: it differs from this one in its "
            f"{listed(differing)}; start a new checkpoint file or resume with the original setup"
        )
    leaves, treedef = jax.tree.flatten((states_like, parameters_like))
    stored = sorted(str(v) for v in ds.data_vars if str(v).startswith("sampler__"))
    if len(stored) != len(leaves):
        raise ValueError(
            f"checkpoint {str(path)!r} holds {len(stored)} sampler arrays; this posterior has {len(leaves)}"
        )
    states, parameters = jax.tree.unflatten(treedef, [_like(ds[n].values, leaf) for n, leaf in zip(stored, leaves)])
    drawn = {
        "z": ds["z"].values,
        "divergent": ds["divergent"].values.astype(bool),
        "steps": ds["steps"].values,
    }
    return states, parameters, drawn


def _like(values: np.ndarray, like) -> jax.Array:
    """The stored `values` as an array of `like`'s shape and dtype (`like`: an array or a `jax.ShapeDtypeStruct`)."""
    if values.shape != tuple(like.shape):
        raise ValueError(f"checkpoint array has shape {values.shape}; this posterior expects {tuple(like.shape)}")
    return jnp.asarray(values.astype(like.dtype))
