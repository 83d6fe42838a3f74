"""The result of `sesolve` / `mesolve`: a differentiable pytree, and its labelled `xarray.Dataset`.

`QuantumResult` holds the solve as arrays (a batched `difflab.Trajectory` over all members) plus the static labels,
so it passes through `jax.jit`, `jax.grad` and `jax.vmap` like a `Trajectory`. `to_xarray()` gives the Dataset with
dimensions [batch dimension], [`initial_state`], `time`, `observable` (and `level` or `row`/`col` for states);
attributes carry the units (ħ = 1, time unit, angular frequencies in rad per time unit) and the provenance of
`difflab.simulate` (solver, tolerances, dtype, versions).
"""

from __future__ import annotations

import warnings

import equinox as eqx
import jax.numpy as jnp
import numpy as np
import xarray as xr
from jaxtyping import Array

from ..core.internal import Trajectory
from ._complex import from_parts


class QuantumResult(eqx.Module):
    """Expectation values (and optionally states) of a quantum solve, with a leading batch layout.

    Attributes:
        trajectory: the solve of every member, `difflab.Trajectory` with a flat leading member axis.
        lead: the batch shape of the members: `(batch,)`, `(initial_state,)`, both, or `()` (static).
        names: names of the observables (static).
    """

    trajectory: Trajectory
    lead: tuple[int, ...] = eqx.field(static=True)
    names: tuple[str, ...] = eqx.field(static=True)
    all_hermitian: bool = eqx.field(static=True)
    batch_dim: str = eqx.field(static=True)
    batch_coords: tuple[tuple[str, tuple], ...] = eqx.field(static=True)
    open_system: bool = eqx.field(static=True)
    time_units: str = eqx.field(static=True)
    n_batch: int | None = eqx.field(static=True)

    @property
    def ts(self) -> Array:
        """Save times, shape `(time,)` (`time_units`)."""
        ts = self.trajectory.ts
        return ts.reshape(-1, ts.shape[-1])[0]

    @property
    def expects(self) -> Array:
        r"""$\langle E_m\rangle(t)$, complex, shape `(*lead, time, observable)` (no observable: `observable` 0)."""
        ys = self.trajectory.ys
        if "expect_re" not in ys:
            ts = self.trajectory.ts
            return jnp.zeros((*self.lead, ts.shape[-1], 0), complex)
        return self._shaped(from_parts(ys["expect_re"], ys["expect_im"]))

    @property
    def states(self) -> Array | None:
        """The saved states (complex), `(*lead, time, n)` or `(*lead, time, n, n)`; `None` unless `save_states`."""
        ys = self.trajectory.ys
        key = "rho" if self.open_system else "psi"
        if key not in ys:
            return None
        return self._shaped(from_parts(jnp.take(ys[key], 0, axis=2), jnp.take(ys[key], 1, axis=2)))

    @property
    def num_steps(self) -> Array:
        """Solver steps per member, shape `lead`."""
        return jnp.reshape(self.trajectory.stats["num_steps"], self.lead)

    @property
    def succeeded(self) -> Array:
        """Per member (shape `lead`): the solve reached the end and every saved value is finite."""
        return jnp.reshape(self.trajectory.succeeded, self.lead)

    def _shaped(self, x):
        return x.reshape(*self.lead, *x.shape[1:])

    def to_xarray(self) -> xr.Dataset:
        """The labelled Dataset (eagerly, outside jit).

        It holds `expect`, `expect_imag` for non-Hermitian observables, states as `psi_re`/`psi_im` or
        `rho_re`/`rho_im` when saved, `num_steps`, units and provenance.
        """
        return to_dataset(self)

    # ------------------------------------------------ the former return type, kept with a warning
    def __getitem__(self, name: str):
        return self._dataset(f"[{name!r}]")[name]

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in dir(xr.Dataset) or name in ("expect", "expect_imag", "psi_re", "psi_im", "rho_re", "rho_im"):
            return getattr(self._dataset(f".{name}"), name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _dataset(self, access: str) -> xr.Dataset:
        warnings.warn(
            f"sesolve/mesolve return a QuantumResult now; result{access} reads the xarray.Dataset they used to "
            f"return: call result.to_xarray(){access} (or use result.expects, .states, .ts for arrays)",
            DeprecationWarning,
            stacklevel=3,
        )
        return self.to_xarray()


def to_dataset(result: QuantumResult) -> xr.Dataset:
    """The Dataset of a `QuantumResult` (see `QuantumResult.to_xarray`)."""
    traj, lead, n_batch = result.trajectory, result.lead, result.n_batch
    dims = ((result.batch_dim,) if n_batch else ()) + (("initial_state",) if len(lead) > (1 if n_batch else 0) else ())
    ys = {k: np.asarray(v).reshape((*lead, *np.shape(v)[1:])) for k, v in traj.ys.items()}
    data = {}
    if result.names:
        attrs = {"units": "1", "long_name": "expectation value (units of the operator; ħ = 1)"}
        data["expect"] = xr.Variable((*dims, "time", "observable"), ys["expect_re"], attrs)
        if not result.all_hermitian:
            data["expect_imag"] = xr.Variable((*dims, "time", "observable"), ys["expect_im"], attrs)
    state_dims = ("row", "col") if result.open_system else ("level",)
    for key in ("rho", "psi"):
        if key in ys:
            for part, index in (("re", 0), ("im", 1)):
                values = np.take(ys[key], index, axis=len(dims) + 1)
                long_name = f"{'real' if part == 're' else 'imaginary'} part of the state"
                data[f"{key}_{part}"] = xr.Variable(
                    (*dims, "time", *state_dims), values, {"units": "1", "long_name": long_name}
                )
    steps = np.asarray(traj.stats["num_steps"]).reshape(lead)
    data["num_steps"] = xr.Variable(dims, steps, {"long_name": "solver steps per member"})
    coords: dict[str, tuple] = {"time": ("time", np.asarray(result.ts), {"units": result.time_units})}
    if "initial_state" in dims:
        coords["initial_state"] = ("initial_state", np.arange(lead[len(dims) - 1]))
    if result.names:
        coords["observable"] = ("observable", np.asarray(result.names))
    for key, values in result.batch_coords:
        coords[key] = (result.batch_dim, np.asarray(values))
    attrs = dict(traj.provenance)
    attrs.update(
        {
            "equation": "Lindblad master equation" if result.open_system else "Schrodinger equation",
            "hbar": "1",
            "time_units": result.time_units,
            "frequency_units": f"rad/{result.time_units} (angular frequencies)",
        }
    )
    return xr.Dataset(data, coords=coords, attrs=attrs)
