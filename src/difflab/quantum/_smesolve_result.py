r"""`SMEResult`: what `smesolve` returns, and its labelled xarray Dataset."""

from __future__ import annotations

import equinox as eqx
import numpy as np
import xarray as xr
from jaxtyping import Array, Complex, Float

from ._unravelling import trajectory_attrs


class SMEResult(eqx.Module):
    r"""Trajectory averages of a diffusive (homodyne or heterodyne) unravelling, their errors and records (a pytree).

    Attributes:
        ts: save times (time,), `time_units`.
        expects: mean $\langle E_m\rangle(t)$ over trajectories, complex (time, observable).
        expects_stderr: standard error of that mean, $s/\sqrt{N}$: real part for the real part, imaginary for the
            imaginary.
        trajectory_expects: every trajectory's values, complex (trajectory, time, observable).
        currents: the measurement currents $J_r = (Y_r(t_{i+1}) - Y_r(t_i))/(t_{i+1} - t_i)$ averaged over each bin
            between consecutive save times, real (trajectory, bin, record), in $1/\sqrt{\text{time\_units}}$: one
            record per homodyne channel, two (in phase, quadrature) per heterodyne one.
        final_state: $\rho(t_\text{end})$ averaged over trajectories (n, n): the master equation's state, up to the
            sampling error and the step's bias.
        etas: the efficiency of each record's channel (record,).
        measured: each record's index into `jump_ops` (static; a heterodyne channel's twice).
        names: the names of the observables, from `exp_ops` (static).
        time_units: "ns" or "us" (static).
        quadratures: each record's detection (static): `"homodyne"`, or `"I"` / `"Q"` for the in-phase and
            quadrature records of a heterodyne channel.
    """

    ts: Float[Array, " time"]
    expects: Complex[Array, "time observable"]
    expects_stderr: Complex[Array, "time observable"]
    trajectory_expects: Complex[Array, "trajectory time observable"]
    currents: Float[Array, "trajectory bin measured"]
    final_state: Complex[Array, "n n"]
    etas: Float[Array, " measured"]
    measured: tuple[int, ...] = eqx.field(static=True)
    names: tuple[str, ...] = eqx.field(static=True)
    time_units: str = eqx.field(static=True)
    quadratures: tuple[str, ...] = eqx.field(static=True, default=())

    def to_xarray(self) -> xr.Dataset:
        """Dataset: `expect`, `expect_stderr` (time, observable), `current` (trajectory, bin, measured); attrs."""
        mean, err = np.asarray(self.expects), np.asarray(self.expects_stderr)
        ts = np.asarray(self.ts)
        unit = {"units": "1"}
        current_units = f"1/sqrt({self.time_units})"
        data = {
            "expect": (("time", "observable"), mean.real, {**unit, "long_name": "trajectory mean"}),
            "expect_stderr": (("time", "observable"), err.real, {**unit, "long_name": "standard error of the mean"}),
            "current": (
                ("trajectory", "bin", "measured"),
                np.asarray(self.currents),
                {"units": current_units, "long_name": "measurement current averaged over the bin"},
            ),
        }
        if np.any(mean.imag != 0):
            data["expect_imag"] = (("time", "observable"), mean.imag, unit)
            data["expect_imag_stderr"] = (("time", "observable"), err.imag, unit)
        coords = {
            "time": ("time", ts, {"units": self.time_units}),
            "observable": list(self.names),
            "bin_start": ("bin", ts[:-1], {"units": self.time_units}),
            "bin_end": ("bin", ts[1:], {"units": self.time_units}),
            "measured": ("measured", list(self.measured), {"long_name": "index into jump_ops"}),
            "eta": ("measured", np.asarray(self.etas), {"units": "1", "long_name": "detection efficiency"}),
            "quadrature": ("measured", list(self.quadratures or ("homodyne",) * len(self.measured))),
        }
        kinds = {"homodyne" if q == "homodyne" else "heterodyne" for q in self.quadratures or ("homodyne",)}
        detection = " and ".join(k for k in ("homodyne", "heterodyne") if k in kinds)
        attrs = trajectory_attrs(f"stochastic master equation, {detection} (diffusive) unravelling, Ito",
                                 np.shape(self.currents)[0], self.time_units)  # fmt: skip
        return xr.Dataset(data, coords=coords, attrs=attrs)
