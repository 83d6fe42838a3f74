"""`simulate`: the one place in difflab that calls ``diffrax.diffeqsolve``."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any, cast

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from ._backend import default_loop
from ._checks import (
    check_finite,
    check_increasing,
    check_numeric,
    is_concrete,
    physical_flag,
    raise_if_unphysical,
)
from ._fixed_steps import SCAN_ADJOINTS, for_adjoint, saves_per_step, scan_solve, step_grid
from ._model import AbstractModel, StateInfo
from ._options import DEFAULT_MAX_STEPS, SolveOptions, merge_options
from ._protocol import AbstractProtocol
from ._state_layout import PackedVectorField, SaveUnpacked, solver_layout
from ._static import StaticArray
from ._trajectory import Trajectory
from ._versions import package_version

#: Most fixed steps the default bound grows to (2^27: about 20 minutes of HH at 5/64 ms on one CPU core);
#: a longer fixed-step run is refused before it starts rather than left to run for hours.
FIXED_STEP_BUDGET = 2**27


def simulate(
    model: AbstractModel,
    protocol: AbstractProtocol | Any,
    ts: Float[ArrayLike, " time"],
    *,
    options: SolveOptions | None = None,
    y0: dict[str, Array] | None = None,
    observe: Callable[[Array, dict, Any], dict[str, Array]] | None = None,
    observe_info: tuple[StateInfo, ...] = (),
    loop: str = "auto",
    **solve_keywords: Any,
) -> Trajectory:
    """Solve ``dy/dt = model.vector_field(t, y, protocol)`` from ``ts[0]`` to ``ts[-1]``.

    Works under ``jax.jit``, ``jax.grad`` and ``eqx.filter_vmap`` (a vmapped call returns a
    batched [`Trajectory`][difflab.Trajectory] with a leading ``member`` axis).

    Args:
        model: the system, an [`AbstractModel`][difflab.AbstractModel].
        protocol: the input passed to the vector field as ``args`` (usually an
            [`AbstractProtocol`][difflab.AbstractProtocol]; ``None`` for autonomous models).
        ts: strictly increasing save times, in the model's time units.
        options: a [`SolveOptions`][difflab.SolveOptions]: solver, tolerances, steps, adjoint, `throw`.
        **solve_keywords: the fields of `SolveOptions` as keywords (``dt0=0.01``), not both ways for one field.
            What they mean here:

            - solver: any ``diffrax.AbstractSolver``; default ``model.default_solver()``.
            - stepsize_controller: default ``model.default_stepsize_controller()``. Jump times of the
              protocol that fall inside ``(ts[0], ts[-1])`` are passed to an adaptive controller
              (``diffrax.ClipStepSizeController``) so that steps never straddle a pulse edge.
            - dt0: initial (or fixed) step; default ``model.default_dt0()``, shortened to honour the
              protocol's [`time_scale`][difflab.AbstractProtocol.time_scale] ``τ`` (e.g. the sample
              spacing of a recorded input): a fixed step becomes ``τ / ceil(τ / dt0)``, so that it
              divides ``τ`` and a held input is constant over every step; an initial adaptive step
              becomes ``min(dt0, τ)``.
            - adjoint: how to differentiate; default ``diffrax.RecursiveCheckpointAdjoint()``.
            - max_steps: bound on the number of steps. With fixed steps (``diffrax.ConstantStepSize``) and a
              concrete ``dt0`` the count is known: the default then grows to fit it, and an explicit bound
              that is too small raises ``ValueError`` before anything runs (with ``throw=True``).
            - throw: raise on solver failure (set ``False`` under vmap and inspect ``result``).
            - rtol, atol: tolerances of the model's adaptive step controller (its other settings kept).
        y0: initial state (dict of arrays); default ``model.initial_state()``.
        observe: optional ``observe(t, y, protocol) -> dict`` saved instead of the state
            (e.g. expectation values, membrane potential only).
        observe_info: units and long names of the observables returned by ``observe``.
        loop: how the steps are run. ``"scan"``: fixed steps as a ``jax.lax.scan`` with a static trip count
            (see `difflab.core._fixed_steps`; it needs ``diffrax.ConstantStepSize``, a concrete ``dt0`` and
            concrete ``ts``, e.g. closed over rather than passed into ``jax.jit``); ``"while"``: diffrax's
            ``while_loop``; ``"auto"`` (default): ``"scan"`` wherever it applies, on every backend (the faster on
            the CPU too, see docs/backends.md; ``"while"`` keeps reverse-mode memory logarithmic in the step
            count). Both give the same values to rounding; the scan never returns to the host between steps, where
            on a GPU every ``while_loop`` iteration does.

    Returns:
        A [`Trajectory`][difflab.Trajectory] with ``ts``, ``ys``, ``result`` and ``stats``.
    """
    if not isinstance(model, AbstractModel):
        raise TypeError(f"model must be an AbstractModel; got {type(model).__name__}")
    opts = merge_options(options, solve_keywords, "simulate")
    throw = opts.throw
    if isinstance(protocol, numbers.Number):
        raise TypeError(
            f"protocol must be a difflab protocol (e.g. difflab.Constant({protocol!r})) or None; got the "
            f"{type(protocol).__name__} {protocol!r}"
        )
    # Save times closed over inside jit are constants, but jnp.asarray would make them tracers: keep them as numpy
    # so that the checks, the fixed-step count and the scan loop see their values.
    check_numeric(ts, "ts")
    times = ts if isinstance(ts, jax.core.Tracer) else np.asarray(ts)
    ts = jnp.asarray(ts)
    if ts.ndim != 1 or ts.shape[0] < 2:
        raise ValueError(f"ts must be 1-D with at least 2 times; got shape {ts.shape}")
    check_finite(times, "ts")
    check_increasing(times, "ts")
    if y0 is None:
        y0 = model.initial_state()
    else:
        model.check_state(y0)
        for name, value in y0.items():
            check_finite(value, f"y0[{name!r}]")
        y0 = _with_model_batch(model, y0)
    protocol = _in_state_precision(protocol, y0)
    # physical parameters: refused now when concrete; when traced, raised in the compiled program (throw) or the
    # member fails (its values NaN, succeeded false) without stopping the rest of an ensemble
    checks = model.physical_checks()
    raise_if_unphysical(checks)
    physical = None
    if not is_concrete([ok for ok, _ in checks.values()]):
        y0, physical = physical_flag(checks, y0, throw=throw)
    solver = model.default_solver() if opts.solver is None else opts.solver
    controller = opts.controller(model.default_stepsize_controller())
    dt0, adjoint, max_steps = opts.dt0, opts.adjoint, opts.max_steps
    origin = "" if dt0 is not None else f" (the default step of {type(model).__name__} for its parameters)"
    hint = None if dt0 is not None else (lambda: _step_hint(model))  # built only for the error message
    dt0 = default_dt0(model, protocol, controller) if dt0 is None else dt0
    if dt0 is None and isinstance(controller, diffrax.ConstantStepSize):
        raise ValueError(
            f"dt0 must be given (a step > 0 in {model.time_units}) with diffrax.ConstantStepSize: "
            f"{type(model).__name__} has no default step; got None"
        )
    max_steps = _fit_fixed_steps(max_steps, controller, dt0, times, throw, origin, hint)
    controller = _clip_at_jumps(controller, protocol, ts)
    adjoint = diffrax.RecursiveCheckpointAdjoint() if adjoint is None else adjoint
    if observe is None:
        save_fn, variables = _save_state, model.states
    else:
        save_fn, variables = _SaveObserved(observe), tuple(observe_info)
    grid = _scan_grid(loop, controller, adjoint, dt0, times, max_steps, state_size=_size(y0))
    # the solver may carry the state in its own (smaller) layout between steps; everything saved is the model's
    layout = solver_layout(solver, model, y0, controller)
    y_solve = y0 if layout is None else layout.pack(y0)
    save_fn = save_fn if layout is None else SaveUnpacked(save_fn, layout)
    field = _vector_field if layout is None else PackedVectorField(_vector_field, layout)
    # The solve itself never throws: its failure is checked after it (`_thrown`), on the host when the call is eager,
    # so that the eager program holds no host callback, which JAX's persistent compilation cache refuses to store
    # (a script's second run, or another process, then loads the compiled solve instead of compiling it again).
    if grid is not None:
        # eager: through one jitted function, whose program a second call of the same shapes reuses; traced: inline,
        # so that the model's arrays stay constants of the caller's program (through a jitted function they become
        # its arguments, and a 100-cell network's step ran 3.9x slower: 3.27 s against 0.85 s over 1 s)
        scan = _scan_solve if is_concrete(y0, model, protocol) else _scan_solve_inline
        sol = _Solution(*scan(
            for_adjoint(solver, adjoint), field, StaticArray(grid), StaticArray(times), y_solve, (model, protocol),
            save_fn, isinstance(adjoint, diffrax.RecursiveCheckpointAdjoint),
        ))  # fmt: skip
    else:
        args = (model, protocol)
        sol = _diffrax_solve(solver, field, controller, adjoint, dt0, ts, y_solve, args, save_fn, max_steps)
    if throw:
        sol = _thrown(sol, fixed=grid is not None)
    if throw and observe is None:  # observables may be NaN by design (e.g. NaN-padded spike times)
        fixed = dt0 if isinstance(controller, diffrax.ConstantStepSize) else None
        _check_finite_solution(sol.ts, sol.ys, fixed)
    ys = sol.ys if physical is None else jax.tree.map(lambda v: jnp.where(physical, v, jnp.nan), sol.ys)
    time_info = StateInfo("time", model.time_units, "time")
    return Trajectory(
        ts=sol.ts,
        ys=ys,
        result=sol.result,
        stats={k: v for k, v in sol.stats.items() if k.startswith("num_")},
        variables=(time_info, *variables),
        provenance=_provenance(solver, controller, dt0, y0, "while" if grid is None else "scan"),
    )


def _with_model_batch(model, y0: dict) -> dict:
    """`y0` broadcast to the batch of `model`'s parameters: one initial state for every member of a batched model.

    The shapes `model.initial_state()` would have (traced abstractly, nothing computed) give the batch; an entry
    with a larger batch of its own (an ensemble of initial states), or with axes of its own that the model's
    `check_state` accepted (the columns of a propagator), is kept as it is.
    """
    try:
        default = jax.eval_shape(model.initial_state)
    except (TypeError, ValueError, NotImplementedError):  # an initial state that cannot be traced (NumPy on the
        return y0  # parameters, say): y0 as given, as before
    if not isinstance(default, dict):
        return y0
    out = {}
    for name, value in y0.items():
        want = default.get(name)
        shape = np.shape(value)
        if want is None or shape == want.shape:
            out[name] = value
            continue
        try:
            target = np.broadcast_shapes(shape, want.shape)
        except ValueError:  # another layout the model accepts (`check_state` has passed it): a propagator's columns
            target = shape
        out[name] = value if target == shape else jnp.broadcast_to(jnp.asarray(value), target)
    return out


def _in_state_precision(protocol, y0):
    """The protocol's arrays in the states' precision when that is single: a float32 model stays float32.

    Recorded inputs arrive as float64 arrays (NumPy's default); in a float32 solve they would promote part of
    each step to float64, and the step's float32 states then meet float64 values (XLA refuses mixed types in a
    loop). Double precision states leave the protocol as it is; nothing is ever widened.
    """
    inexact = [leaf for leaf in jax.tree.leaves(y0) if jnp.issubdtype(jnp.result_type(leaf), jnp.inexact)]
    if protocol is None or not inexact or max(jnp.finfo(jnp.result_type(leaf)).bits for leaf in inexact) > 32:
        return protocol

    def narrow(x):
        if not isinstance(x, jax.Array | np.ndarray) or jnp.finfo(x.dtype).bits <= 32:
            return x
        return x.astype(jnp.complex64 if jnp.issubdtype(x.dtype, jnp.complexfloating) else jnp.float32)

    return jax.tree.map(lambda x: narrow(x) if jnp.issubdtype(jnp.result_type(x), jnp.inexact) else x, protocol)


def _size(y) -> int:
    """Real numbers in a state (complex ones count twice)."""
    return sum(math.prod(np.shape(v)) * (2 if jnp.iscomplexobj(v) else 1) for v in jax.tree.leaves(y))


class _Solution:
    """What both loops return: saved times and values, the result code and step statistics."""

    def __init__(self, ts, ys, result, stats):
        self.ts, self.ys, self.result, self.stats = ts, ys, result, stats


LOOPS = ("auto", "scan", "while")


def _scan_grid(loop, controller, adjoint, dt0, ts, max_steps, state_size=0):
    """The fixed-step grid when the solve runs as a scan (see ``simulate``'s ``loop``), else ``None``."""
    if loop not in LOOPS:
        raise ValueError(f"loop must be one of {LOOPS}; got {loop!r}")
    if loop == "while":
        return None
    reason = _scan_refusal(controller, adjoint, dt0, ts)
    span = float(np.asarray(ts)[-1] - np.asarray(ts)[0]) if reason is None else 0.0
    if reason is None and span / float(np.asarray(dt0)) > FIXED_STEP_BUDGET:  # the grid itself would not fit
        steps = span / float(np.asarray(dt0))
        reason = f"its {steps:,.0f} steps are more than the scan's grid holds ({FIXED_STEP_BUDGET:,})"
    if reason is None:
        dtype = jnp.result_type(ts, dt0)  # diffrax's time dtype
        grid = step_grid(float(np.asarray(ts)[0]), float(np.asarray(ts)[-1]), float(np.asarray(dt0)), dtype)
        if loop == "auto" and default_loop(saves_per_step=saves_per_step(grid, ts), state_size=state_size) == "while":
            return None
        if max_steps is None or grid.shape[0] - 1 <= max_steps:
            return grid
        reason = f"it takes {grid.shape[0] - 1} steps, more than max_steps={max_steps}"
    if loop == "scan":
        raise ValueError(f"loop='scan' cannot run this solve: {reason}; pass loop='auto' or 'while'")
    return None


def _scan_refusal(controller, adjoint, dt0, ts) -> str | None:
    """Why the scan cannot run a solve (``None`` when it can)."""
    if not isinstance(controller, diffrax.ConstantStepSize):
        return f"it needs diffrax.ConstantStepSize, got {type(controller).__name__}"
    if dt0 is None or not is_concrete(dt0) or not is_concrete(ts):
        return "it needs a concrete dt0 and concrete ts (not traced: close over them instead of passing them into jit)"
    if not isinstance(adjoint, SCAN_ADJOINTS):
        return f"adjoint {type(adjoint).__name__} is not one of {[a.__name__ for a in SCAN_ADJOINTS]}"
    return None


def _diffrax_solve(solver, field, controller, adjoint, dt0, ts, y0, args, save_fn, max_steps):
    return diffrax.diffeqsolve(
        diffrax.ODETerm(field),
        solver,
        t0=ts[0],
        t1=ts[-1],
        dt0=dt0,
        y0=y0,
        args=args,
        saveat=diffrax.SaveAt(ts=ts, fn=save_fn),
        stepsize_controller=controller,
        adjoint=adjoint,
        max_steps=max_steps,
        throw=False,  # checked after the solve (`_thrown`)
    )


def _scan_solve_inline(solver, field, grid: StaticArray, ts: StaticArray, y0, args, save_fn, checkpoint: bool):
    """The fixed-step scan traced into the caller's program (a traced `simulate`).

    The model's arrays then stay constants of that program.
    """
    return scan_solve(solver, field, grid.array, ts.array, y0, args, save_fn, checkpoint=checkpoint)


#: The same scan as one jitted function, keyed on the grid and save times (`StaticArray`), for eager calls: a second
#: solve of the same shapes, step grid and save times runs the first one's program instead of tracing the scan and
#: compiling it again. Not for traced calls: there the model's arrays would become arguments of a nested call (a
#: 100-cell network ran 3.9x slower).
_scan_solve = eqx.filter_jit(_scan_solve_inline)


def _thrown(sol, fixed: bool) -> _Solution:
    """`sol`, or the solver's failure raised with its message.

    At once for a concrete solve; from inside the compiled program for a traced one (`eqx.error_if`, as diffrax's
    `throw=True` does it).
    """
    result = sol.result
    ok = result == diffrax.RESULTS.successful
    if not is_concrete(ok):
        return _Solution(sol.ts, result.error_if(sol.ys, jnp.logical_not(ok)), result, sol.stats)
    if not bool(np.all(ok)):
        where = "the fixed-step solve failed (a solver step reported an error)" if fixed else "the solve failed"
        message = cast(Any, diffrax.RESULTS)[result]  # the enumeration's metaclass maps its items to messages
        raise eqx.EquinoxRuntimeError(f"{where}: {message}")
    return sol


def _check_finite_solution(ts, ys, fixed_dt0=None) -> None:
    """Raise if a concrete solution holds NaN/inf (the solver reports success when NaN propagates quietly)."""
    for name, y in ys.items() if isinstance(ys, dict) else enumerate(jax.tree.leaves(ys)):
        if not is_concrete(y):
            return
        arr = np.asarray(y)
        bad = ~np.isfinite(arr)
        if bad.any():
            index = np.argwhere(bad)[0]
            at = float(np.asarray(ts).reshape(-1)[index[0]]) if np.ndim(ts) == 1 else float("nan")
            step = (
                ""
                if fixed_dt0 is None
                else f"; a fixed step (dt0 = {float(np.asarray(fixed_dt0)):g}) too large for the dynamics, as under a "
                "very large input, ends here too (a solver that finds its step unresolved makes the state NaN): pass a "
                "smaller dt0 or an adaptive stepsize_controller"
            )
            raise ValueError(
                f"the solution became non-finite: {name} is {arr[tuple(index)]} at t = {at:g}; check the model's "
                "parameters, the initial state and the input's size (or pass throw=False and inspect succeeded)" + step
            )


def _save_state(t, y, args):
    """What a solve saves without `observe`: the whole state."""
    return y


class _SaveObserved(eqx.Module):
    """What a solve saves with `observe`: `observe(t, y, protocol)`.

    The save function is part of the solve's compiled signature (diffrax's `SaveAt(fn=...)` is static): a module
    that compares equal for one `observe`, and the module-level `_save_state`, let a second call of `simulate` on
    the same shapes reuse the first one's program. A fresh lambda per call made every eager call compile again.
    """

    observe: Callable = eqx.field(static=True)

    def __call__(self, t, y, args):
        return self.observe(t, y, args[1])


def _vector_field(t, y, args):
    model, protocol = args
    return model.vector_field(t, y, protocol)


def default_dt0(model, protocol, controller):
    """The model's default step, shortened to the protocol's finest time scale (see ``simulate``)."""
    return fit_to_protocol(model.default_dt0(), protocol, controller)


def fit_to_protocol(dt0, protocol, controller):
    """A step ``dt0`` shortened to the protocol's finest time scale (see ``simulate``'s ``dt0``)."""
    scale = protocol.time_scale() if isinstance(protocol, AbstractProtocol) else np.inf
    if dt0 is None or not np.isfinite(scale) or scale <= 0:
        return dt0
    if not isinstance(controller, diffrax.ConstantStepSize):
        return jnp.minimum(dt0, scale) if not is_concrete(dt0) else min(float(dt0), scale)
    # the 1e-9 keeps a step that already divides the scale (rounding of scale / dt0) unchanged
    if not is_concrete(dt0):
        return scale / jnp.ceil(scale / dt0 * (1 - 1e-9))
    return float(scale / np.ceil(scale / float(dt0) * (1 - 1e-9)))  # a Python float: weakly typed, keeps float32


def _step_hint(model) -> str:
    """Why a default step may be tiny: the values of the parameters that set it (`step_parameters`)."""
    names = type(model).step_parameters
    if not names:
        return "; a default step this small comes from a parameter setting the model's time scale"
    values = model.parameters()
    known = [n for n in names if n in values and is_concrete(values[n])]  # traced values cannot be shown
    shown = ", ".join(f"{n} = {np.asarray(values[n]).tolist()}" for n in known) or ", ".join(names)
    return f"; {type(model).__name__}'s default step follows its kinetics, and a step this small comes from {shown}"


def _fit_fixed_steps(max_steps, controller, dt0, ts, throw, origin="", hint=None):
    """``max_steps``, raised to the known step count of a fixed-step solve when left at its default.

    An explicit bound that is too small raises here when ``throw`` is set; otherwise the solve reports
    the failure in its result, as any other.
    """
    fixed = isinstance(controller, diffrax.ConstantStepSize)
    if max_steps is None or not fixed or dt0 is None or not (is_concrete(dt0) and is_concrete(ts)):
        return max_steps
    times, step = np.asarray(ts), float(np.asarray(dt0))  # numpy: indexing a jax array would trace under jit
    count = float(times[-1] - times[0]) / step
    # diffrax lands on t1 when a step ends within rounding of it, so only a clear shortfall is refused
    needed = int(np.ceil(count * (1 - 1e-5)))
    if needed <= max_steps:
        return max_steps
    if max_steps == DEFAULT_MAX_STEPS:
        if needed > FIXED_STEP_BUDGET:
            total = int(np.ceil(count))
            why = hint() if hint is not None and step < 1e-6 else ""
            raise ValueError(
                f"fixed steps of dt0={step:g}{origin} over [{times[0]:g}, {times[-1]:g}] take {total:,} steps, "
                f"more than the budget of {FIXED_STEP_BUDGET:,}: shorten ts, pass a larger dt0, or pass "
                f"max_steps={total} to run it anyway{why}"
            )
        return int(np.ceil(count)) + 1
    if not throw:
        return max_steps
    raise ValueError(
        f"max_steps={max_steps} is too small: fixed steps of dt0={step:g} over [{times[0]:g}, {times[-1]:g}] "
        f"take {needed}; pass max_steps={needed} or more, or a larger dt0"
    )


def _clip_at_jumps(controller, protocol, ts):
    """Wrap an adaptive controller so that it steps onto the protocol's discontinuities."""
    if not isinstance(protocol, AbstractProtocol):
        return controller
    if not isinstance(controller, diffrax.AbstractAdaptiveStepSizeController):
        return controller
    if isinstance(controller, diffrax.ClipStepSizeController):
        return controller
    jumps = jnp.ravel(protocol.jump_times())
    if jumps.shape[0] == 0:
        return controller
    # Shapes are static, so jumps outside (t0, t1) are moved onto t1, where the solve ends anyway.
    inside = (jumps > ts[0]) & (jumps < ts[-1])
    jumps = jnp.where(inside, jumps, ts[-1]).astype(ts.dtype)
    return diffrax.ClipStepSizeController(controller, jump_ts=jumps)


def _provenance(solver, controller, dt0, y0, loop) -> tuple[tuple[str, str], ...]:
    leaves = jax.tree_util.tree_leaves(y0)
    dtype = str(leaves[0].dtype) if leaves else "unknown"
    inner = getattr(controller, "controller", controller)
    attrs = {
        "difflab_version": package_version("difflab"),
        "jax_version": jax.__version__,
        "diffrax_version": package_version("diffrax"),
        "equinox_version": package_version("equinox"),
        "solver": type(solver).__name__,
        "stepsize_controller": type(inner).__name__,
        "rtol": _fmt(getattr(inner, "rtol", None)),
        "atol": _fmt(getattr(inner, "atol", None)),
        "dt0": _fmt(dt0),
        "dtype": dtype,
        "loop": loop,
    }
    return tuple(attrs.items())


def _fmt(x) -> str:
    if x is None:
        return "none"
    if is_concrete(x):
        return np.format_float_positional(float(np.asarray(x)), trim="-")
    return "traced"
