"""`GateOptimization`: what `optimize_gate` returns, and its amplitudes as a labelled xarray Dataset."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from ..core.internal import package_version
from ._piecewise_controls import PiecewiseControls


@dataclass(frozen=True)
class GateOptimization:
    """The optimised piecewise-constant controls of a gate and how well they do.

    Attributes:
        amplitudes: $u_{kj}$, shape (n_controls, slices), rad/ns (the best step's).
        duration: gate time $T$ (ns).
        control_names: one name per control.
        fidelity: average gate fidelity of the returned controls at zero detuning.
        leakage: population leaving the subspace at zero detuning (0 without a subspace).
        detunings: the ensemble's detunings (rad/ns); `[0.]` without an ensemble.
        ensemble_fidelity: the fidelity at each detuning.
        history: the infidelity $1 - F$ (averaged over the ensemble) before each step, one entry per step.
        loss: the objective of the returned controls (infidelity + leakage penalty).
        open_system: whether the figures are those of the Lindblad channel (`optimize_gate` with `jump_ops`).
        seed: the seed of the random start returned (None: the given `initial`).
    """

    amplitudes: np.ndarray
    duration: float
    control_names: tuple[str, ...]
    fidelity: float
    leakage: float
    detunings: np.ndarray
    ensemble_fidelity: np.ndarray
    history: np.ndarray = field(repr=False)
    loss: float
    open_system: bool = False
    seed: int | None = None

    @property
    def controls(self) -> PiecewiseControls:
        """The amplitudes as a `PiecewiseControls` schedule (for `piecewise_propagator` or `.drives(...)`)."""
        return PiecewiseControls(self.amplitudes, self.duration)

    def to_xarray(self) -> xr.Dataset:
        """Dataset: `amplitude` (control, time) in rad/ns on slice starts, `infidelity` per step; figures in attrs."""
        slices = self.amplitudes.shape[1]
        edges = np.linspace(0.0, self.duration, slices + 1)
        coords = {
            "control": ("control", list(self.control_names), {"long_name": "control operator"}),
            "time": ("time", edges[:-1], {"units": "ns", "long_name": "start of the slice"}),
            "time_end": ("time", edges[1:], {"units": "ns", "long_name": "end of the slice"}),
            "step": ("step", np.arange(self.history.size), {"long_name": "optimiser step"}),
        }
        data = {
            "amplitude": (
                ("control", "time"),
                self.amplitudes,
                {"units": "rad/ns", "long_name": "piecewise-constant control amplitude u_k(t)"},
            ),
            "infidelity": (("step",), self.history, {"units": "1", "long_name": "1 - average gate fidelity"}),
        }
        attrs = {
            "fidelity": self.fidelity,
            "leakage": self.leakage,
            "system": "open: Lindblad channel" if self.open_system else "closed: unitary",
            "start": "given" if self.seed is None else f"random, seed {self.seed}",
            "duration_ns": self.duration,
            "hbar": "1 (angular frequencies in rad/ns)",
            "difflab_version": package_version("difflab"),
            "jax_version": package_version("jax"),
        }
        return xr.Dataset(data, coords=coords, attrs=attrs)
