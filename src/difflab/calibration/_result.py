"""The result of `calibrate`: best model, estimates with standard errors, losses and history."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from ..core.internal import AbstractModel, vmap_members
from ._diagnostics import diagnostics, member_statistics, user_fixed_resolution, warn
from ._losses import MSE, LossSum


@dataclasses.dataclass(frozen=True)
class Calibration:
    """Outcome of [`difflab.calibrate`][].

    Attributes:
        model: the best model (lowest final loss over starts). With several recordings, one
            model whose array leaves carry a leading axis, one entry per recording.
        estimates: best parameter values and their standard errors `<name>_stderr`
            (Gauss–Newton approximation, least-squares losses only; NaN otherwise), per
            recording when there are several; `units` attributes where the model declares them.
        losses: final loss of every start (dims `start` and the recording dimension).
        history: loss and parameter values at every step (dims `step`, `start`, ...).
        covariance: parameter covariance at the optimum (`parameter` × `parameter_2`),
            or `None` for losses that are not least squares.
        solver_ok: whether the final simulation of each start succeeded.
        steps: optimiser steps taken (including those before a resume).
        checkpoint: the checkpoint file, if one was written.
        strategy: the global strategy that ran (`"linear"`, `"multistart"` or a
            `GrowingWindows(...)` description).
        diagnostics: least-squares fits: `noise_sigma` (the data's noise level from its
            second differences), `residual_sigma`, `misfit_ratio` (their squared ratio, about 1
            when the noise dominates), and `resolution_shift` / `shift_over_stderr` (how far the
            optimum moves when the model is solved more finely). `None` for other losses.
        term_losses: a [`LossSum`][difflab.LossSum] fit: each term's own loss $L_j$ (unweighted, in the term's
            units) at every start's final parameters, dims as `losses` and `term` (labelled by
            `LossSum.term_names`, with the weights in the attribute `weights`): how much of each start's loss
            is which term. `None` for other losses.
    """

    model: AbstractModel
    estimates: xr.Dataset
    losses: xr.DataArray
    history: xr.Dataset
    covariance: xr.DataArray | None
    solver_ok: xr.DataArray
    steps: int
    checkpoint: Path | None
    strategy: str = "multistart"
    diagnostics: xr.Dataset | None = None
    term_losses: xr.DataArray | None = None

    @property
    def best(self) -> dict[str, np.ndarray]:
        """Best parameter values by name (arrays over recordings when there are several)."""
        return {str(n): v.values for n, v in self.estimates.data_vars.items() if not str(n).endswith("_stderr")}

    @property
    def stderr(self) -> dict[str, np.ndarray]:
        """Standard errors by parameter name."""
        return {n[: -len("_stderr")]: self.estimates[n].values for n in map(str, self.estimates.data_vars)
                if n.endswith("_stderr")}  # fmt: skip

    def to_dataset(self) -> xr.Dataset:
        """The whole result in one Dataset.

        It holds the estimates, standard errors, final losses (`final_loss`, and `final_term_loss` per term of a
        `LossSum`), history (`history_*`), covariance and diagnostics (`diagnostics_*`).
        """
        history = self.history.rename({v: f"history_{v}" for v in self.history.data_vars})
        parts = [self.estimates, self.losses.rename("final_loss").to_dataset(), history]
        if self.term_losses is not None:
            parts.append(self.term_losses.rename("final_term_loss").to_dataset())
        if self.covariance is not None:
            parts.append(self.covariance.to_dataset())
        if self.diagnostics is not None:
            diag = self.diagnostics.rename({v: f"diagnostics_{v}" for v in self.diagnostics.data_vars})
            parts.append(diag.drop_attrs(deep=False))
        ds = xr.merge(parts, compat="no_conflicts", join="outer")
        if self.diagnostics is not None:
            ds.attrs.update({f"diagnostics_{k}": str(v) for k, v in self.diagnostics.attrs.items()})
        ds.attrs["steps"] = self.steps
        ds.attrs["strategy"] = self.strategy
        return ds

    def __repr__(self) -> str:
        rows = [f"  {n} = {_with_error(v, self.stderr[n])}" for n, v in self.best.items()]
        return (
            "Calibration(\n"
            + "\n".join(rows)
            + f"\n  best loss = {float(self.losses.min()):.6g}, steps = {self.steps}{self._masked_note()}\n)"
        )

    def _masked_note(self) -> str:
        masked = 0 if self.diagnostics is None else int(self.diagnostics.attrs.get("masked_samples", 0))
        return f", {masked} NaN data sample(s) masked" if masked else ""


def _with_error(value, error) -> str:
    """`value ± error`, both to the decimal of the error's second significant digit (`118.87 ± 0.67`).

    One pair per recording when there are several.
    """
    values = np.atleast_1d(np.asarray(value, dtype=float))
    errors = np.broadcast_to(np.asarray(error, dtype=float), values.shape)
    pairs = [_pair(float(v), float(e)) for v, e in zip(values.ravel(), errors.ravel(), strict=True)]
    return pairs[0] if np.ndim(value) == 0 else "[" + ", ".join(pairs) + "]"


def _pair(value: float, error: float) -> str:
    if not (np.isfinite(error) and error > 0):  # unknown (NaN) or exactly zero: the value at six digits
        return f"{value:.6g} ± {error:.3g}"
    decimals = 1 - int(np.floor(np.log10(error)))
    if decimals > 12:  # an error below 1e-11: significant digits instead of decimals
        return f"{value:.6g} ± {error:.2g}"
    if decimals < 0:  # an error of 100 or more: rounded to its tens, hundreds, ...
        return f"{round(value, decimals):.0f} ± {round(error, decimals):.0f}"
    return f"{value:.{decimals}f} ± {error:.{decimals}f}"


@eqx.filter_jit
def _evaluate(problem, theta, members):
    """Every member's loss, whether its solve succeeded, and (a `LossSum`) each term's loss, from one solve each."""

    def one(th, mem):
        protocol, data, mask = mem
        pred, ok = problem.predict(problem.physical(th), protocol)
        terms = problem.loss.term_losses(pred, data, mask) if isinstance(problem.loss, LossSum) else None
        return problem.loss(pred, data, mask), ok, terms

    return vmap_members(one, theta, members)


def assemble(
    problem, adapter, members, theta, history, fit, starts, steps, checkpoint, strategy, evaluated=None
) -> Calibration:
    """Evaluate the final parameters, pick the best start per recording, compute standard errors.

    `evaluated`: `(losses, ok, term losses, stats)` already computed for exactly these `theta` and `problem`
    (by the refinement check), so that the solves and Jacobians are not done twice.
    """
    n_rec = fit.n_recordings
    evaluated = evaluated or (*_evaluate(problem, theta, members), None)
    loss, ok = (np.asarray(x).reshape(n_rec, starts) for x in evaluated[:2])
    best = np.argmin(np.where(np.isfinite(loss), loss, np.inf), axis=1)
    index = np.arange(n_rec) * starts + best
    values = {k: np.asarray(v)[index] for k, v in problem.physical(theta).items()}
    stats = evaluated[3]
    if stats is None and problem.loss.least_squares:
        stats = member_statistics(problem, theta, members, index)
    cov = None if stats is None else np.stack([s["cov"] for s in stats])
    lead = () if fit.recording_dim is None else (fit.recording_dim,)
    coords = {} if fit.recording_dim is None else {fit.recording_dim: fit.recordings}
    squeeze = (lambda a: a[0]) if not lead else (lambda a: a)
    diag = None
    if problem.loss.least_squares:
        diag = diagnostics(stats, fit, _labels(problem, values), isinstance(problem.loss, MSE))
        diag = diag.rename(recording=lead[0]) if lead else diag.isel(recording=0, drop=True)
        warn(diag, user_fixed_resolution(problem))
    estimates = _estimates(problem, values, cov, lead, squeeze, coords)
    loss_attrs = _loss_attrs(problem, fit)
    history = _history(history, n_rec, starts, lead, squeeze, coords)
    history["loss"].attrs.update(loss_attrs)
    models = [problem.build({k: v[r] for k, v in values.items()}) for r in range(n_rec)]
    model = models[0] if not lead else jax.tree.map(lambda *xs: jnp.stack(xs), *models)
    return Calibration(
        model=model,
        estimates=estimates,
        losses=xr.DataArray(squeeze(loss), dims=(*lead, "start"), coords=coords, name="loss", attrs=loss_attrs),
        history=history,
        covariance=None if cov is None else _cov_array(problem, values, cov, lead, squeeze, coords),
        solver_ok=xr.DataArray(squeeze(ok), dims=(*lead, "start"), coords=coords, name="solver_ok"),
        steps=steps,
        checkpoint=None if checkpoint is None else Path(checkpoint),
        strategy=strategy,
        diagnostics=diag,
        term_losses=_term_losses(problem.loss, evaluated[2], n_rec, starts, lead, squeeze, coords),
    )


def _term_losses(loss, terms, n_rec, starts, lead, squeeze, coords) -> xr.DataArray | None:
    """`term_losses` of a `LossSum` fit (`terms`: `(members, terms)`), `None` for other losses."""
    if terms is None:
        return None
    values = np.asarray(terms).reshape(n_rec, starts, len(loss.terms))
    coords = {**coords, "term": list(loss.term_names)}
    return xr.DataArray(squeeze(values), dims=(*lead, "start", "term"), coords=coords, name="term_loss",
                        attrs={"weights": list(loss.weights)})  # fmt: skip


def _estimates(problem, values, cov, lead, squeeze, coords) -> xr.Dataset:
    units = type(problem.model).parameter_units
    out, offset = {}, 0
    for name, path in problem.paths:
        v = values[name]
        size = int(np.prod(v.shape[1:], dtype=int))
        if cov is None:
            se = np.full(v.shape, np.nan)
        else:
            diag = np.diagonal(cov, axis1=1, axis2=2)[:, offset : offset + size]
            se = np.sqrt(np.maximum(diag, 0)).reshape(v.shape)
        offset += size
        dims = (*lead, *(f"{name}_dim{k}" for k in range(v.ndim - 1)))
        attrs = {"units": units.get(name, units.get(path, "")), "long_name": f"fitted {name} ({path})"}
        out[name] = xr.Variable(dims, squeeze(v), attrs)
        out[f"{name}_stderr"] = xr.Variable(dims, squeeze(se), {**attrs, "long_name": f"standard error of {name}"})
    return xr.Dataset(out, coords=coords)


def _loss_attrs(problem, fit) -> dict[str, str]:
    """The units of a mean squared error, when every fitted variable has the same units (mV: `mV^2`)."""
    units = {fit.units.get(name, "") for name in fit.values}
    if not isinstance(problem.loss, MSE) or len(units) != 1 or not (unit := units.pop()):
        return {}
    return {"units": f"({unit})^2" if "/" in unit or " " in unit else f"{unit}^2", "long_name": "mean squared error"}


def _labels(problem, values) -> list[str]:
    labels = []
    for name, _ in problem.paths:
        shape = values[name].shape[1:]
        labels += [name] if not shape else [f"{name}[{','.join(map(str, i))}]" for i in np.ndindex(shape)]
    return labels


def _cov_array(problem, values, cov, lead, squeeze, coords) -> xr.DataArray:
    labels = _labels(problem, values)
    coords = {**coords, "parameter": labels, "parameter_2": labels}
    return xr.DataArray(squeeze(cov), dims=(*lead, "parameter", "parameter_2"), coords=coords, name="covariance")


def _history(history, n_rec, starts, lead, squeeze, coords) -> xr.Dataset:
    out = {}
    n = len(history["loss"])
    for key, rows in history.items():
        arr = np.asarray(rows).reshape(n, n_rec, starts, *np.shape(rows[0])[1:]) if n else np.zeros((0, n_rec, starts))
        arr = arr if lead else arr[:, 0]
        name = key.removeprefix("param__")
        extra = tuple(f"{name}_dim{k}" for k in range(arr.ndim - 1 - len(lead) - 1))
        out[name] = xr.Variable(("step", *lead, "start", *extra), arr)
    return xr.Dataset(out, coords={**coords, "step": np.arange(1, n + 1)})
