"""The result of [`difflab.simulate`][]: a pytree of arrays plus the metadata to label them."""

from __future__ import annotations

from typing import Any

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr
from jaxtyping import Array

from ._model import StateInfo


class Trajectory(eqx.Module):
    """Saved times and states of one simulation (or a batch of them).

    Attributes:
        ts: save times, shape `(time,)` or `(member, time)` for a batch.
        ys: dict from state (or observable) name to an array of shape `(time, ...)` or
            `(member, time, ...)`.
        result: diffrax result code per run (`diffrax.RESULTS`).
        stats: solver statistics (`num_steps`, `num_accepted_steps`, ...).
        variables: name, units and long name of each entry of `ys` (static).
        provenance: solver, tolerances and versions, as `(key, value)` pairs (static).
    """

    ts: Array
    ys: dict[str, Array]
    result: object
    stats: dict[str, Array]
    variables: tuple[StateInfo, ...] = eqx.field(static=True)
    provenance: tuple[tuple[str, str], ...] = eqx.field(static=True)

    @property
    def is_batched(self) -> bool:
        """True when the arrays carry a leading `member` axis."""
        return np.ndim(self.ts) == 2

    @property
    def succeeded(self) -> Array:
        """Boolean (per member when batched): the solver reached the final time and every saved value is finite.

        A solve can run to the end on NaN (a NaN parameter or state propagates through fixed steps
        without any error), so finiteness is part of success.
        """
        ok = jnp.asarray(self.result == diffrax.RESULTS.successful)
        first = 1 if self.is_batched else 0
        for y in jax.tree.leaves(self.ys):
            ok = ok & jnp.all(jnp.isfinite(y), axis=tuple(range(first, jnp.ndim(y))))
        return ok

    def __getitem__(self, name: str) -> Array:
        if name not in self.ys:
            saved = ", ".join(map(str, self.ys))
            raise KeyError(f"{name!r} is not a saved variable of this trajectory; saved: {saved}")
        return self.ys[name]

    def to_xarray(self, member_coords: dict[str, np.ndarray] | None = None) -> xr.Dataset:
        """Convert to an `xarray.Dataset` (eagerly, outside jit).

        Dimensions are `time` (and `member` when batched); extra state axes are named
        `<name>_dim<k>`. Each variable carries `units` and `long_name`; the global
        attributes carry the provenance. `member_coords` adds coordinates along
        `member` (e.g. the parameter values of each member).
        """
        ts = np.asarray(self.ts)
        lead = ("member", "time") if self.is_batched else ("time",)
        time = ts[0] if self.is_batched else ts
        if self.is_batched and not np.allclose(ts, ts[:1], equal_nan=True):
            raise ValueError("members have different save times; convert them one by one")
        info = {v.name: v for v in self.variables}
        data_vars = {}
        # JAX sorts dict keys; list the variables in the model's declared order instead.
        order = [v.name for v in self.variables if v.name in self.ys]
        order += sorted(set(self.ys) - set(order))
        for name in order:
            arr = np.asarray(self.ys[name])
            extra = tuple(f"{name}_dim{k}" for k in range(arr.ndim - len(lead)))
            meta = info.get(name, StateInfo(name, "1", name))
            data_vars[name] = xr.Variable(lead + extra, arr, {"units": meta.units, "long_name": meta.long_name})
        coords: dict[str, Any] = {"time": ("time", time, {"units": info.get("time", _TIME).units})}
        for key, values in (member_coords or {}).items():
            coords[key] = ("member", np.asarray(values))
        ds = xr.Dataset(data_vars, coords=coords, attrs=dict(self.provenance))
        ds["solver_result"] = xr.Variable(
            lead[:-1],
            np.asarray(self.result._value),  # type: ignore[attr-defined]  # diffrax's enumeration item, {"long_name": "diffrax result code (0 = ok)"}
        )
        return ds


_TIME = StateInfo("time", "1", "time")
