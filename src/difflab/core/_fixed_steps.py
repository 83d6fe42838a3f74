r"""The fixed-step loop of [`difflab.simulate`][]: a `jax.lax.scan` with a static trip count.

With `diffrax.ConstantStepSize` and a concrete step `dt0` and save times `ts`, everything about the loop is known
before it runs: the number of steps, where each step starts and ends, and which step owns each save time. diffrax
still runs such a solve as a `while_loop` whose condition is a device value, and on a GPU every iteration (every
step, and every saved time) is a round trip to the host. Here the loop is a `lax.scan` over the known steps, each
step writes its saved values at known indices, and nothing returns to the host until the end.

The step boundaries are diffrax's own, computed in the time dtype exactly as `ConstantStepSize` computes them
(`n = ceil((t1 - t0) / nextafter(dt0))` steps; the first ends at `t0 + dt0`, step `k ≥ 2` at
`t0 + (t1 - t0) k / n`, the last at `t1`; an end within 100 ulp of `t1` is moved onto it), and a save time
`ts[j]` is evaluated with the dense output of the first step whose end is `≥ ts[j]`, as diffrax does. So the
two paths agree to rounding. Where every save time lies on a step boundary (the usual case: saving every step
or every few), the saved value is the state there and the dense output is never computed.

Each step may own up to `M` save times (the most any step owns). Step `k` evaluates its dense output at `M` times
and writes them as one slice starting at its first save index; slots beyond the ones it owns hold values that a
later step overwrites (they belong to later steps), and the buffer has `M` spare rows at the end. The solver step is
differentiated as it is, or, under `diffrax.RecursiveCheckpointAdjoint` (simulate's default), checkpointed per
step: reverse mode then stores each step's incoming state and recomputes the step (memory grows with the step
count, by one state per step; diffrax's own loop grows only logarithmically, so `loop="while"` is the choice for
reverse mode over very long solves of large ensembles). Forward mode, the cheaper for a few parameters, stores
nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ._backend import scan_unroll

#: Adjoints the scan differentiates itself (reverse mode through the scan, or forward mode).
SCAN_ADJOINTS = (diffrax.RecursiveCheckpointAdjoint, diffrax.DirectAdjoint, diffrax.ForwardMode)


def for_adjoint(solver: diffrax.AbstractSolver, adjoint: diffrax.AbstractAdjoint) -> diffrax.AbstractSolver:
    """`solver` ready to be differentiated inside the scan with `adjoint`.

    diffrax's Runge–Kutta solvers run their stages as a checkpointed scan by default, which has a custom VJP that
    forward mode cannot enter; under `diffrax.ForwardMode` diffrax itself switches them to a plain `lax.scan`
    (`scan_kind="lax"`), and so does the scan loop here.
    """
    runge_kutta = isinstance(solver, diffrax.AbstractRungeKutta | diffrax.AbstractSRK)
    if isinstance(adjoint, diffrax.ForwardMode) and runge_kutta and getattr(solver, "scan_kind", None) is None:
        return eqx.tree_at(lambda s: s.scan_kind, solver, "lax", is_leaf=lambda x: x is None)
    return solver


def step_grid(t0: float, t1: float, dt0: float, dtype) -> np.ndarray:
    """The step boundaries diffrax's `ConstantStepSize` takes from `t0` to `t1` (numpy, in the time `dtype`)."""
    dtype = np.dtype(dtype)
    start, stop, dt = (np.asarray(x, dtype) for x in (t0, t1, dt0))
    n = int(np.ceil((stop - start) / np.nextafter(dt, dtype.type(np.inf))))
    k = np.arange(n + 1)
    grid = start + (stop - start) * (k.astype(dtype) / dtype.type(max(n, 1)))
    grid = grid.astype(dtype)
    if n >= 1:
        grid[1] = start + dt
    grid[-1] = stop
    floor = stop
    for _ in range(100):  # diffrax's clip floor: 100 ulp below stop
        floor = np.nextafter(floor, dtype.type(-np.inf))
    grid = np.where(grid > floor, stop, np.minimum(grid, stop)).astype(dtype)
    end = int(np.argmax(grid == stop))  # diffrax stops at the first step that reaches t1
    return grid[: max(end, 1) + 1]


def _save_counts(grid: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """How many save times each step owns: save `j` belongs to the first step whose end is `>= ts[j]`.

    A save within `_BOUNDARY_ULP` ulp above a step's end belongs to that step (`0.075` is `3 * 0.025` plus an ulp;
    its value at the end differs from the next step's dense output at that time by rounding).
    """
    owner = np.searchsorted(grid[1:], ts - _boundary_tolerance(grid), side="left")
    return np.bincount(np.minimum(owner, grid.shape[0] - 2), minlength=grid.shape[0] - 1)


#: Save times this many ulp (of the largest time) from a step boundary count as on it.
_BOUNDARY_ULP = 8


def _boundary_tolerance(grid: np.ndarray):
    return _BOUNDARY_ULP * np.spacing(np.maximum(np.abs(grid).max(initial=0.0), np.finfo(grid.dtype).tiny))


def saves_per_step(grid: np.ndarray, ts: np.ndarray) -> int:
    """`M`, the most save times any step of `grid` owns (every step evaluates that many, see `save_slots`).

    Save times at the start `grid[0]` are the initial state, written before the loop: no step owns them.
    """
    ts = np.asarray(ts, grid.dtype)
    return max(int(_save_counts(grid, ts[_n_initial(grid, ts) :]).max(initial=0)), 1)


def _n_initial(grid: np.ndarray, ts: np.ndarray) -> int:
    """How many leading save times are the start of the solve (the initial state), within `_BOUNDARY_ULP` ulp."""
    return int(np.searchsorted(ts, grid[0] + _boundary_tolerance(grid), side="right"))


def save_slots(grid: np.ndarray, ts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First save index of each step, shape `(steps,)`, and the save times each step evaluates, `(steps, M)`.

    Save `j` belongs to the first step whose end is `>= ts[j]`; unused slots are evaluated at the step's end.
    """
    counts = _save_counts(grid, ts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    width = max(int(counts.max()), 1)
    slot = starts[:, None] + np.arange(width)
    owned = np.arange(width)[None, :] < counts[:, None]
    times = np.where(owned, ts[np.minimum(slot, ts.shape[0] - 1)], grid[1:, None])
    return starts.astype(np.int32), times.astype(grid.dtype)


def saves_on_grid(grid: np.ndarray, times: np.ndarray) -> bool:
    """Whether every save slot of `save_slots` lies on its step's end.

    A save on a step boundary is the state there: the step needs no dense output for it (a cable's dense
    output costs a second evaluation of its axial currents). A slot counts as on the boundary within
    `_BOUNDARY_ULP` ulp (the value there differs from the dense output's by that much times the state's rate).
    Saves at a step's start never reach a slot: the previous step owns them, and those at `grid[0]` are the
    initial state.
    """
    return bool((np.abs(times - grid[1:, None]) <= _boundary_tolerance(grid)).all())


def scan_solve(
    solver: diffrax.AbstractSolver,
    vector_field: Callable,
    grid: np.ndarray,
    ts: np.ndarray,
    y0: Any,
    args: Any,
    fn: Callable,
    checkpoint: bool = False,
) -> tuple[Any, Any, Any, dict[str, Any]]:
    """Solve over the fixed `grid` and save `fn(t, y, args)` at `ts`: `(ts, ys, result, stats)` like diffrax's.

    A failed step is reported in `result`, not raised: the caller decides (`simulate` raises on the host for an
    eager call, from inside the program for a traced one).

    With `checkpoint`, reverse mode keeps only each step's incoming state and recomputes the step's interior
    (`jax.checkpoint` around the step): memory per step is the state, not the step's intermediates.
    """
    terms = diffrax.ODETerm(vector_field)
    dtype = grid.dtype
    ts = np.asarray(ts, dtype)
    with jax.numpy_dtype_promotion("standard"):  # as diffrax promotes y0: a float64 state on float32 times widens
        y0 = jax.tree.map(lambda y: jnp.asarray(y, jnp.result_type(y, dtype)), y0)
    # saves at the start are the initial state; the steps own the rest (their indices start after them)
    lead = _n_initial(grid, ts)
    later = ts[lead:] if ts.shape[0] > lead else grid[-1:]
    starts, times = save_slots(grid, later)
    starts = starts + lead
    on_grid = saves_on_grid(grid, times)
    width = times.shape[1]
    t_start, t_end = jnp.asarray(grid[:-1]), jnp.asarray(grid[1:])
    first = fn(t_start[0], y0, args)

    def buffer_for(v):
        rest = jnp.zeros((ts.shape[0] - lead + width, *v.shape), v.dtype)
        return jnp.concatenate([jnp.broadcast_to(v, (lead, *v.shape)), rest])

    buffer = jax.tree.map(buffer_for, first)
    state0 = solver.init(terms, t_start[0], t_end[0], y0, args)

    def step_and_save(tprev, tnext, y, solver_state, save_ts):
        y1, _, dense_info, solver_state, step_result = solver.step(terms, tprev, tnext, y, args, solver_state, False)
        if on_grid:  # every save at the step's end: the state there, no dense output (unused, so never computed)
            values = jax.vmap(lambda t: fn(t, y1, args))(save_ts)
        else:
            interpolation = solver.interpolation_cls(t0=tprev, t1=tnext, **dense_info)
            values = jax.vmap(lambda t: fn(t, interpolation.evaluate(t), args))(save_ts)
        return y1, solver_state, step_result, values

    if checkpoint:
        step_and_save = jax.checkpoint(step_and_save)

    def body(carry, xs):
        y, solver_state, result, out = carry
        tprev, tnext, start, save_ts = xs
        y1, solver_state, step_result, values = step_and_save(tprev, tnext, y, solver_state, save_ts)
        result = diffrax.RESULTS.where(result == diffrax.RESULTS.successful, step_result, result)
        out = jax.tree.map(lambda o, v: jax.lax.dynamic_update_slice_in_dim(o, v, start, axis=0), out, values)
        return (y1, solver_state, result, out), None

    carry = (y0, state0, diffrax.RESULTS.successful, buffer)
    xs = (t_start, t_end, jnp.asarray(starts), jnp.asarray(times))
    (_, _, result, out), _ = jax.lax.scan(body, carry, xs, unroll=min(scan_unroll(), grid.shape[0] - 1))
    ys = jax.tree.map(lambda o: o[: ts.shape[0]], out)
    n = jnp.asarray(grid.shape[0] - 1, jnp.int32)
    stats = {"num_steps": n, "num_accepted_steps": n, "num_rejected_steps": jnp.zeros((), jnp.int32)}
    return jnp.asarray(ts, dtype), ys, result, stats
