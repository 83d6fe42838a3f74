"""`calibrate`: fit named model parameters to measured data (multi-start, many recordings, resumable).

Every fit runs as one ensemble of *members*: `recordings × starts` independent problems,
vmapped through one jitted optimiser step (a single member is solved unbatched: `vmap_members`). The step is
compiled once per problem shape: new data, new initial values or new bounds of the same shapes reuse it.
"""

from __future__ import annotations

import collections
import dataclasses
import inspect
from collections.abc import Mapping
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, PRNGKeyArray

from ..core.internal import (
    AbstractInterpolated,
    AbstractModel,
    Progress,
    SolveOptions,
    StaticArray,
    StopRequest,
    Sum,
    check_key,
    gather_moved,
    get_path,
    is_concrete,
    legacy_keywords,
    merge_options,
    split_solve_keywords,
    vmap_members,
    warn_caller,
    warn_moved,
)
from ..data.internal import callable_identity, checkpoint_path, tree_fingerprint
from . import _checkpoint
from ._comparison import COMPARE_FIELDS, Comparison
from ._diagnostics import (
    CalibrationWarning,
    best_members,
    finer,
    halvings_needed,
    member_statistics,
    resolve_default_step,
    traced_tolerances,
    user_fixed_resolution,
)
from ._distributed import fit_on_cluster
from ._losses import as_loss
from ._measured import FitData, as_fit_data, joined
from ._objective import LeastSquaresAdapter, OptaxAdapter, Problem, carry_of, with_static
from ._optimizers import as_adapter
from ._result import Calibration, _evaluate, assemble
from ._run import RUN_FIELDS, RunOptions
from ._strategies import GrowingWindows, describe, linear_start, window_members, window_problem
from ._transforms import AbstractTransform, as_transform

#: How often each jitted function has been traced (a retrace means a recompilation).
TRACES: collections.Counter = collections.Counter()


def _legacy_calibrate(*args: Any, **kwargs: Any) -> Calibration:
    """`calibrate` called with the keywords it had before `compare` and `run` (removed at 0.3)."""
    gather_moved("calibrate", kwargs, "compare", Comparison, COMPARE_FIELDS)
    gather_moved("calibrate", kwargs, "run", RunOptions, RUN_FIELDS)
    extra = None
    if "simulate_options" in kwargs:
        simulate_options = kwargs.pop("simulate_options")
        if simulate_options is not None:
            if not isinstance(simulate_options, Mapping):
                raise TypeError(
                    f"simulate_options must be a dict of difflab.simulate keywords or None; got {simulate_options!r}"
                )
            warn_moved("calibrate", "simulate_options", "options=difflab.SolveOptions(...)")
            solve, extra = split_solve_keywords(simulate_options)
            kwargs["options"] = merge_options(kwargs.get("options"), solve, "calibrate")
    bound = inspect.signature(calibrate).bind(*args, **kwargs)
    bound.apply_defaults()
    return _fit(*bound.args, **bound.kwargs, simulate_extra=extra)


#: The keywords `calibrate` took before `compare`/`run` gathered them (see `_legacy_calibrate`).
_LEGACY = frozenset((*COMPARE_FIELDS, *RUN_FIELDS, "simulate_options"))


@legacy_keywords(_LEGACY, _legacy_calibrate)
def calibrate(
    model: AbstractModel,
    protocol: Any,
    data: Any,
    *,
    params: Mapping[str, AbstractTransform | tuple[float, float] | None],
    loss: Any = "mse",
    optimizer: Any = None,
    steps: int = 100,
    starts: int | Mapping[str, ArrayLike] = 1,
    key: PRNGKeyArray | None = None,
    compare: Comparison | None = None,
    options: SolveOptions | None = None,
    run: RunOptions | None = None,
) -> Calibration:
    r"""Fit the parameters named in `params` so that `model` driven by `protocol` matches `data`.

    Every other field of `model` stays fixed. Each parameter is optimised through its
    bijective transform (`Positive()`, `Log()`, `Bounded(lo, hi)`), so it never leaves
    its domain.

    Args:
        model: the initial model; its current values are the first start.
        protocol: the input, or a list of one protocol per recording.
        data: `xarray.Dataset` / `DataArray` with a `time` dimension, or a dict
            `{"time": ts, name: values}`. Variables are model state names (or names that
            `observe` returns). A dimension before `time` labels recordings, fitted
            independently in one call (or with one parameter set: `Comparison(joint=True)`).
            **NaN samples are masked** (left out of the loss).
            `units` attributes are honoured: volts become mV, seconds ms (another SI prefix of
            the model's unit is converted; anything else is refused); without one the data are
            taken to be in the model's units.
        params: parameter name (alias or dotted path) -> transform, or `(lo, hi)` for
            `Bounded(lo, hi)`.
        loss: `"mse"` (trace mean squared error, least squares), `"spike_times"` (least squares),
            `"firing_rate"`, an [`AbstractLoss`][difflab.AbstractLoss] or a callable
            `loss(pred, data, mask) -> scalar`.
        optimizer: `"lm"` (optimistix Levenberg–Marquardt, the default for least-squares
            losses: it converged in far fewer steps than Adam on the HH fit, see the docs),
            `"gauss_newton"`, `"adam"` (default for other losses), an optimistix
            least-squares solver or any optax `GradientTransformation`.
        steps: total number of optimiser steps (a resumed fit continues up to this number;
            least-squares solvers stop early once every member has converged). With
            `GrowingWindows` each stage runs up to this many.
        starts: number of initial guesses per recording; the first is the model's own
            values, the others are drawn inside each transform's domain (`Bounded`: uniform
            in `[lo, hi]`; `Positive`/`Log`: log-uniform within a factor 2). Or a dict
            `{name: values}` giving every start explicitly (physical units, one entry per
            start, same length for all fitted names).
        key: random key for the extra starts (required when `starts > 1`).
        compare: a [`Comparison`][difflab.Comparison]: which variables (or derived outputs) are compared
            with the data, on which simulation grid (default: every variable the model produces, at the data
            times).
        options: a [`SolveOptions`][difflab.SolveOptions]: how the model is solved (solver, tolerances, steps).
        run: a [`RunOptions`][difflab.RunOptions]: the global strategy (default `"auto"`), the refinement of
            least-squares fits, checkpoints and resuming, progress, a callback and a Dask cluster.

    The keywords `strategy`, `refine`, `checkpoint`, `checkpoint_every`, `resume`, `progress`, `callback`,
    `client`, `starts_per_task` (now fields of `run`), `ts`, `variables`, `observe` (now fields of `compare`) and
    `simulate_options` (now `options`) are deprecated and go at 0.3: they still work, with a `DeprecationWarning`.

    Returns:
        A [`Calibration`][difflab.Calibration]: best model, estimates with standard
        errors, per-start final losses and the history.
    """
    return _fit(model, protocol, data, params=params, loss=loss, optimizer=optimizer, steps=steps, starts=starts,
                key=key, compare=compare, options=options, run=run, simulate_extra=None)  # fmt: skip


def _fit(model, protocol, data, *, params, loss, optimizer, steps, starts, key, compare, options, run, simulate_extra):
    """`calibrate`, with the non-solve keywords of the deprecated `simulate_options` (`simulate_extra`)."""
    if not isinstance(model, AbstractModel):
        raise TypeError(f"model must be an AbstractModel; got {type(model).__name__}")
    compare = _checked(compare, Comparison, "compare")
    run = _checked(run, RunOptions, "run")
    problem, fit = build_problem(model, data, params, loss, compare, options, simulate_extra)
    transforms, paths, loss_fn = problem.transforms, problem.paths, problem.loss
    explicit = None
    if isinstance(starts, Mapping):
        explicit, starts = _explicit_starts(starts, transforms)
    if steps < 0 or starts < 1:
        raise ValueError(f"steps must be >= 0 and starts >= 1; got steps={steps}, starts={starts}")
    if starts > 1 and key is None and explicit is None:
        raise ValueError("key is required when starts > 1 (it draws the extra initial guesses)")
    if key is not None:  # one key: the starts' draws split it per parameter
        check_key(key)
    checkpoint = checkpoint_path(run.checkpoint, run.resume, "fit")
    adapter = as_adapter(optimizer, loss_fn)
    members = _members(protocol, fit, starts)
    strategy, progress, callback = run.strategy, run.progress, run.callback
    if run.client is not None:  # every argument is checked here, before anything is sent to a worker
        values = start_values(model, transforms, paths, starts, key, explicit)
        task = dict(model=model, protocol=protocol, data=data, params=params, loss=loss, optimizer=optimizer,
                    steps=steps, key=None, compare=compare, options=options, simulate_extra=simulate_extra,
                    run=RunOptions(strategy=strategy, refine=run.refine, progress=False))  # fmt: skip
        return fit_on_cluster(_fit, run.client, run.starts_per_task, values, task, progress)
    theta = _initial_theta(problem, fit.n_recordings, starts, key, explicit)
    theta, strategy = _global_start(strategy, problem, fit, members, theta, starts)
    problem = resolve_default_step(problem, theta, jax.tree.map(lambda x: x[0], members[0]))
    used = describe(strategy)
    requested = starts
    if used == "linear" and starts > 1:
        # every start of a recording now begins at the same estimate: run each once, report it per start
        theta = {k: v[::starts] for k, v in theta.items()}
        members, starts = _members(protocol, fit, 1), 1
    meta = _meta(model, problem, adapter, fit, requested, used, jax.tree.map(lambda x: x[0], members[0]))
    problem = traced_tolerances(problem)  # after the checkpoint's fingerprint, which it leaves as it was
    carry = _init(adapter, problem, theta, members)
    history: dict[str, list] = {"loss": [], **{f"param__{n}": [] for n, _ in paths}}
    step = 0
    if run.resume is not None:
        theta, carry, history, step = _checkpoint.load(run.resume, meta=meta, theta_like=theta, carry_like=carry)
    state = {"theta": theta, "carry": carry, "step": step}
    if isinstance(strategy, GrowingWindows):
        for end in strategy.ends(fit.ts)[:-1]:
            stage, window = window_members(members, fit.ts, end), window_problem(problem, end)
            state["carry"] = _init(adapter, window, state["theta"], stage)
            _run(adapter, window, stage, state, history, state["step"] + steps, None, 0, meta, progress, callback)
        state["carry"] = _init(adapter, problem, state["theta"], members)
    last = state["step"] + steps if isinstance(strategy, GrowingWindows) else steps
    _run(adapter, problem, members, state, history, last, checkpoint, run.checkpoint_every, meta, progress, callback)
    refined, evaluated = 0, None
    refining = run.refine and problem.loss.least_squares and not user_fixed_resolution(problem)
    # what follows the steps (the step's bias checked, refined, the standard errors) compiles programs of its own and
    # can take as long as the steps: it is shown as stages of its own, not left silent
    with Progress(steps + 2 if refining else 1, "refine and errors", progress, every=5.0) as bar:
        if refining:
            problem, refined, evaluated = _refine(adapter, problem, members, state, steps, fit, starts, bar)
        result = assemble(
            problem, adapter, members, state["theta"], history, fit, starts, state["step"], checkpoint, used, evaluated
        )
        bar.advance("standard errors")
    if requested != starts:
        result = _every_start(result, requested)
    if result.diagnostics is not None:
        masked = sum(int((~np.asarray(m)).sum()) for m in fit.mask.values())  # NaN samples left out of the loss
        result.diagnostics.attrs.update(refinement_steps=refined, dt0=str(problem.sim_options.get("dt0", "default")),
                                        masked_samples=masked)  # fmt: skip
    return result


def build_problem(
    model, data, params, loss, compare: Comparison, options, simulate_extra=None
) -> tuple[Problem, FitData]:
    """The calibration problem of `calibrate` (checked parameters, data, grid, loss, solve options) and its data.

    Shared by everything that evaluates the fit's residuals (`calibrate`, `difflab.posterior`), so that they
    compare the model with the data in one way.
    """
    transforms, paths = _check_params(model, params)
    observed = compare.observe is not None
    available = list(compare.variables or []) if observed else [s.name for s in model.states]
    model_units = {} if observed else {s.name: s.units for s in model.states}
    variables = None if compare.variables is None else list(compare.variables)
    fit = as_fit_data(data, available, variables, model_units, model.time_units)
    if compare.joint:
        fit = joined(fit)
    sim_ts, interpolate = _time_grid(compare.ts, fit.ts)
    problem = Problem(
        model=model,
        transforms=transforms,
        paths=paths,
        sim_grid=StaticArray(sim_ts),
        data_ts=jnp.asarray(fit.ts),
        interpolate=interpolate,
        names=tuple(sorted(fit.values)),
        loss=as_loss(loss, fit.ts),
        sim_options={**(simulate_extra or {}), **merge_options(options, {}, "calibrate").keywords()},
        observe=compare.observe,
        joined=fit.joined,
    )
    return problem, fit


def fit_members(protocol, fit: FitData):
    """`(protocol, data, mask)` of each recording, with a leading recording axis (one start each)."""
    return _members(protocol, fit, 1)


def _refine(adapter, problem, members, state, steps, fit, starts, bar: Progress):
    """Re-solve the best start of each recording finely enough that the step does not bias the estimate.

    Returns the refined problem, the number of steps taken and, when the resolution was fine already
    (0 steps), the `(losses, ok, term losses, stats)` computed for the check, which `assemble` then reuses.
    """
    losses, ok, terms = _evaluate(problem, state["theta"], members)
    index = best_members(losses, fit.n_recordings, starts)
    stats = member_statistics(problem, state["theta"], members, index)
    halvings = halvings_needed(stats)
    if halvings == 0:
        bar.advance("the step does not bias the estimate", n=steps + 1)
        return problem, 0, (losses, ok, terms, stats)
    problem = finer(problem, jax.tree.map(lambda x: x[0], members[0]), halvings)
    dt0 = problem.sim_options.get("dt0")
    bar.advance(f"refining at dt0 = {dt0:.6g}" if isinstance(dt0, float) else f"refining: tolerances / {16**halvings}")
    best = jax.tree.map(lambda x: x[index], members)
    theta = {k: v[index] for k, v in state["theta"].items()}
    carry = _init(adapter, problem, theta, best)
    taken = 0
    while taken < steps:
        theta, carry, _, done, _ = _step(adapter, problem, theta, carry, best)
        taken += 1
        bar.advance()
        if bool(np.all(np.asarray(done))):
            break
    bar.advance(f"refined in {taken} steps", n=steps - taken)  # the steps it did not need
    state["theta"] = {k: v.at[index].set(theta[k]) for k, v in state["theta"].items()}
    return problem, taken, None


def _every_start(result: Calibration, starts: int) -> Calibration:
    """A one-start result reported for each of `starts` identical starts (`strategy="linear"`)."""
    same = {"start": np.zeros(starts, dtype=int)}
    return dataclasses.replace(
        result,
        losses=result.losses.isel(same),
        term_losses=None if result.term_losses is None else result.term_losses.isel(same),
        history=result.history.isel(same),
        solver_ok=result.solver_ok.isel(same),
    )


def _global_start(strategy, problem, fit, members, theta, starts):
    """Initial parameters after the strategy's global step, and the strategy that runs.

    `"auto"` and `"linear"`: each member starts at the linear estimate unless its own start fits at least as
    well (a lower or equal loss), so the estimate never makes a start worse. The strategy is `"linear"` when
    every member starts at the estimate, else `"multistart"`. `"auto"` falls back to the given starts where
    there is no estimate (with a `CalibrationWarning` when one was made but cannot be used: too coarse data,
    an estimate outside the bounds); `"linear"` refuses those cases with the reason.
    """
    if strategy not in ("auto", "linear"):
        return theta, strategy
    estimated, reason, routine = linear_start(problem, fit, members, theta, starts)
    if estimated is not None:
        # compared at a resolution that serves both sets of starts, with the evaluation the fit compiles anyway
        both = jax.tree.map(lambda a, b: jnp.concatenate([a, b]), theta, estimated)
        resolved = traced_tolerances(resolve_default_step(problem, both, jax.tree.map(lambda x: x[0], members[0])))
        own = np.asarray(_evaluate(resolved, theta, members)[0])
        new = np.asarray(_evaluate(resolved, estimated, members)[0])
        keep = np.isfinite(own) & ~(new <= own)  # a start that fits better than the estimate stays
        if not keep.any():
            return estimated, "linear"
        pick = lambda a, b: jnp.where(keep.reshape((-1,) + (1,) * (jnp.ndim(a) - 1)), a, b)  # noqa: E731
        return jax.tree.map(pick, theta, estimated), "multistart"
    if strategy == "linear":
        raise ValueError(f"strategy='linear' cannot start this fit: {reason}; use strategy='multistart' or 'windows'")
    if not routine:
        warn_caller(
            f"strategy='auto' runs from the given start(s) without the linear estimate: {reason}",
            CalibrationWarning,
        )
    return theta, "multistart"


def _check_params(model, params) -> tuple[dict[str, AbstractTransform], tuple[tuple[str, str], ...]]:
    if not isinstance(params, Mapping) or not params:
        raise ValueError("params must be a non-empty dict {name: transform}, e.g. {'gNa': difflab.Positive()}")
    transforms, paths = {}, []
    for name, spec in params.items():
        path = model.resolve(name)
        transform = as_transform(spec, name)
        transform.check(transform.inside(get_path(model, path)), name)  # a fitted model's value may sit on a bound
        transforms[name] = transform
        paths.append((name, path))
    resolved = [p for _, p in paths]
    if len(set(resolved)) != len(resolved):
        raise ValueError(f"params name the same parameter twice: {[n for n, _ in paths]} -> {resolved}")
    return transforms, tuple(paths)


def _time_grid(ts, data_ts: np.ndarray) -> tuple[np.ndarray, bool]:
    """Simulation times and whether the simulation must be interpolated onto the data times.

    The times are numpy (concrete: the fixed-step solve runs as a scan over them), in JAX's default float dtype.
    """
    grid, interpolate = _requested_grid(ts, data_ts)
    return np.asarray(jnp.asarray(grid)), interpolate


def _requested_grid(ts, data_ts: np.ndarray) -> tuple[np.ndarray, bool]:
    """`compare.ts` checked against the data times: the data times themselves where they are the same grid."""
    if ts is None:
        return data_ts, False
    ts = np.asarray(ts, dtype=float)
    if ts.shape == data_ts.shape and np.allclose(ts, data_ts, rtol=0, atol=1e-12 * max(1, abs(ts).max())):
        return data_ts, False
    if ts.ndim != 1 or ts[0] > data_ts[0] or ts[-1] < data_ts[-1]:
        raise ValueError(
            f"data times [{data_ts[0]}, {data_ts[-1]}] are not inside the simulation grid ts "
            f"[{ts.min() if ts.size else 'empty'}, {ts.max() if ts.size else 'empty'}]; pass ts covering the data "
            "(the simulation is then interpolated onto the data times) or ts=None to simulate at the data times"
        )
    return ts, True


def _members(protocol, fit: FitData, starts: int):
    """`(protocol, data, mask)` with a leading member axis (member = recording * starts + start).

    In a joint fit (`fit.joined` recordings made one) every member holds all the protocols, stacked.
    """
    n_rec = fit.joined or fit.n_recordings
    if isinstance(protocol, list | tuple):
        if len(protocol) != n_rec:
            raise ValueError(f"got {len(protocol)} protocols for {n_rec} recordings; give one per recording or one")
        for i, p in enumerate(protocol):
            _check_covers(p, fit.ts, f"protocol[{i}]")
        try:
            protocol = jax.tree.map(lambda *xs: jnp.stack(xs), *protocol)
        except (ValueError, TypeError) as err:
            raise ValueError(
                "the protocols of the recordings must be of one kind and shape (e.g. Sampled inputs of one "
                f"length, spacing, grid (uniform or not) and mode) to be fitted together; {err}"
            ) from None
    else:
        _check_covers(protocol, fit.ts, "protocol")
        protocol = jax.tree.map(lambda x: jnp.broadcast_to(x, (n_rec, *jnp.shape(x))), protocol)
    if fit.joined:
        protocol = jax.tree.map(lambda x: x[None], protocol)  # the one recording of a joint fit
    rep = lambda x: jnp.repeat(jnp.asarray(x), starts, axis=0)  # noqa: E731
    return jax.tree.map(rep, (protocol, fit.values, fit.mask))


def _check_covers(protocol, ts: np.ndarray, name: str) -> None:
    """Refuse a recorded input (`Sampled`/`PiecewiseLinear`, also inside a `Sum`) that ends before the data.

    Outside its samples such an input is held at its last value, which for a recorded stimulus shorter
    than the recording would silently invent the missing current.
    """
    parts = protocol.protocols if isinstance(protocol, Sum) else (protocol,)
    for part in parts:
        if not isinstance(part, AbstractInterpolated) or not is_concrete(part.times):
            continue
        times = np.asarray(part.times, dtype=float)
        slack = part.spacing if np.isfinite(part.spacing) else 0.0
        if times[0] > ts[0] + slack or times[-1] < ts[-1] - slack:
            raise ValueError(
                f"{name} has samples on [{times[0]:g}, {times[-1]:g}] but the data span [{ts[0]:g}, {ts[-1]:g}]: "
                "the stimulus and the recording must cover the same time (cut the data with .sel(time=...) "
                "or supply the whole stimulus)"
            )


def _explicit_starts(starts, transforms) -> tuple[dict[str, np.ndarray], int]:
    if set(starts) != set(transforms):
        raise ValueError(
            f"starts given as a dict must name every fitted parameter {sorted(transforms)}; got {sorted(starts)}"
        )
    values = {k: np.atleast_1d(np.asarray(v, dtype=float)) for k, v in starts.items()}
    sizes = {len(v) for v in values.values()}
    if len(sizes) != 1:
        raise ValueError(f"starts given as a dict need one value per start for every name; got lengths {sizes}")
    for name, v in values.items():
        values[name] = v = np.asarray(transforms[name].inside(v))  # a fit's estimate on a bound starts inside it
        transforms[name].check(v, name)
    return values, sizes.pop()


def start_values(model, transforms, paths, starts: int, key, explicit=None) -> dict[str, jax.Array]:
    """Physical initial values `(starts, *shape)` of every fitted parameter.

    The model's own values first, then draws inside each transform's domain; or the `explicit` values, one
    scalar per start (broadcast over an array parameter) or one whole value per start.
    """
    out = {}
    keys = jax.random.split(key, len(paths)) if key is not None else [None] * len(paths)
    for (name, path), k in zip(paths, keys):
        x0 = jnp.asarray(get_path(model, path))
        if explicit is not None:
            given = jnp.asarray(explicit[name])
            given = given if given.shape[1:] == x0.shape else given.reshape(-1, *[1] * x0.ndim)
            x = jnp.broadcast_to(given, (starts, *x0.shape))
        else:
            own = transforms[name].inside(x0)  # the model's value, just inside a bound it sits on
            draws = [own[None]] + ([transforms[name].sample(k, x0, (starts - 1,))] if starts > 1 else [])
            x = jnp.concatenate(draws)
        out[name] = x.astype(x0.dtype)
    return out


def _initial_theta(problem: Problem, n_rec: int, starts: int, key, explicit=None) -> dict[str, jax.Array]:
    """Unconstrained initial parameters `(recording * starts, ...)`: the model's values, then random draws."""
    values = start_values(problem.model, problem.transforms, problem.paths, starts, key, explicit)
    return {
        name: jnp.tile(problem.transforms[name].inverse(x), (n_rec,) + (1,) * (x.ndim - 1))
        for name, x in values.items()
    }


def _meta(model, problem, adapter, fit, starts, strategy, protocol) -> dict[str, str]:
    return {
        "strategy": strategy,
        "model_class": f"{type(model).__module__}.{type(model).__qualname__}",
        "parameters": ", ".join(f"{n}={p}:{type(problem.transforms[n]).__name__}" for n, p in problem.paths),
        "optimizer": adapter.describe(),
        "data_fingerprint": fit.fingerprint(),
        "problem_fingerprint": _problem_fingerprint(problem, protocol),
        "problem_parts": _problem_parts(problem, protocol),
        "starts": str(starts),
    }


def _problem_parts(problem, protocol) -> str:
    """A short fingerprint of each part of `_problem_fingerprint`, ``"name=hash; ..."``.

    A refused resume then names the parts that differ.
    """
    base = problem.build({n: 0.0 for n, _ in problem.paths})
    observe = "none" if problem.observe is None else callable_identity(problem.observe)
    parts = {
        "fixed parameters": (base,),
        "protocol": (protocol,),
        "bounds": (problem.transforms,),
        "simulation times and options": (problem.sim_ts, problem.data_ts, problem.interpolate, problem.sim_options),
        "loss": (problem.loss,),
        "observe function": (observe,),
        "recordings fitted jointly": (problem.joined,),
    }
    return "; ".join(f"{name}={tree_fingerprint(*trees)[:12]}" for name, trees in parts.items())


def _problem_fingerprint(problem, protocol) -> str:
    """sha256 of everything that defines the fit besides the data and the starts.

    The fixed parameters of the model (fitted ones are zeroed: their start values do not matter to a
    resume), the protocol, the bounds of the transforms, the simulation grid and options (solver,
    step, tolerances), the loss and the observation function: a checkpoint resumed under any other
    value would continue a different problem from the stored point.
    """
    base = eqx.tree_at(lambda p: p.model, problem, problem.build({n: 0.0 for n, _ in problem.paths}))
    observe = "none" if problem.observe is None else callable_identity(problem.observe)
    return tree_fingerprint(base, protocol, observe)


@eqx.filter_jit
def _init(adapter, problem, theta, members):
    TRACES["init"] += 1
    return vmap_members(lambda th, mem: carry_of(adapter.init(problem, th, mem)), theta, members)


@eqx.filter_jit
def _step(adapter, problem, theta, carry, members):
    """One optimiser step of every member: the only compiled function of the fitting loop."""
    TRACES["step"] += 1

    def one(th, c, mem):
        state = with_static(c, adapter.init(problem, th, mem))
        new, state, loss, done = adapter.step(problem, th, mem, state)
        at = th if adapter.loss_at_input else new
        return new, carry_of(state), loss, done, problem.physical(at)

    return vmap_members(one, theta, carry, members)


def _run(adapter, problem, members, state, history, steps, checkpoint, every, meta, progress, callback):
    """The fitting loop: steps, history, progress bar, periodic checkpoints, Ctrl-C safety."""

    def save():
        if checkpoint is not None:
            done = {k: v[: state["step"]] for k, v in history.items()}
            _checkpoint.save(checkpoint, theta=state["theta"], carry=state["carry"], history=done,
                             step=state["step"], meta=meta)  # fmt: skip

    bar = Progress(steps, "calibrate", progress, unit="step", initial=state["step"], every=5.0)
    try:
        with StopRequest() as stop:
            _loop(adapter, problem, members, state, history, steps, every, save, bar, callback, stop)
    except KeyboardInterrupt:
        save()
        raise
    finally:
        bar.close()
    save()


def _checked(value, kind, name: str):
    """`value`, or the default `kind()` for `None`; anything else is refused by `name`."""
    if value is None:
        return kind()
    if not isinstance(value, kind):
        shown = f"a dict (use difflab.{kind.__name__}(**...))" if isinstance(value, Mapping) else repr(value)
        raise TypeError(f"{name} must be a difflab.{kind.__name__} or None; got {shown}")
    return value


def _loop(adapter, problem, members, state, history, steps, every, save, bar, callback, stop):
    """The steps of `_run`, stopping between two steps when Ctrl-C asked to."""
    while state["step"] < steps and not stop.requested:
        theta, carry, loss, done, values = _step(adapter, problem, state["theta"], state["carry"], members)
        loss = np.asarray(loss)  # waits for the step: nothing of it runs on when the loop stops
        history["loss"].append(loss)
        for name, value in values.items():
            history[f"param__{name}"].append(np.asarray(value))
        state.update(theta=theta, carry=carry, step=state["step"] + 1)
        bar.advance(f"loss {np.nanmin(loss):.4g}")
        if callback is not None:
            callback(state["step"], loss)
        if every and state["step"] % every == 0:
            save()
        if bool(np.all(np.asarray(done))):
            break
    if stop.requested:
        raise KeyboardInterrupt


__all__ = ["TRACES", "LeastSquaresAdapter", "OptaxAdapter", "calibrate"]
