"""Ensembles: many parameter sets as one model whose array leaves carry a leading ``member`` axis.

[`run_ensemble`][difflab.run_ensemble] solves every member and returns one batched
[`Trajectory`][difflab.Trajectory]. Three things bound its cost:

- **strategy** within a device: ``"vmap"`` (all members advance together: one adaptive step
  size loop for the batch, so every member takes as many steps as the slowest one), ``"map"``
  (``lax.map``: one member after another, each with its own step count) or ``"chunked"``
  (``lax.map`` over vmapped groups of ``chunk_size``);
- **blocks** on the host, sized to a memory budget, each one compiled once;
- **sharding**: the member axis is split over all devices with ``jax.shard_map`` on a
  ``Mesh`` over ``jax.devices()``. Under ``jax.distributed.initialize()`` the same call sees
  the devices of every host (see docs/ensembles). Members are dealt out like cards (device d
  gets members d, d + D, ...): sweeps are usually ordered and neighbouring members cost about
  the same, so every device gets a similar mix of cheap and expensive members.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..core.internal import (
    SOLVE_FIELDS,
    STRATEGIES,
    AbstractModel,
    SolveOptions,
    StaticArray,
    Trajectory,
    check_strategy,
    default_loop,
    default_strategy,
    fit_to_protocol,
    get_path,
    is_concrete,
    merge_options,
    raise_if_unphysical,
    set_paths,
    simulate,
    split_solve_keywords,
)
from ._sharding import run_members

__all__ = ["STRATEGIES", "default_strategy", "make_batch", "member", "n_members", "run_ensemble", "stack", "unstack"]
#: Default bound on the memory of one host block of an ensemble (bytes).
DEFAULT_MEMORY_BUDGET = 2 * 2**30


def stack(models: Sequence[AbstractModel]) -> AbstractModel:
    """One batched model from models of the same structure (array leaves stacked on a new axis 0)."""
    models = list(models)
    if not models:
        raise ValueError("stack needs at least one model")
    structure = jax.tree.structure(models[0])
    for i, m in enumerate(models[1:], 1):
        if jax.tree.structure(m) != structure:  # type: ignore[operator]  # PyTreeDef compares by value
            raise ValueError(f"models[{i}] differs in structure from models[0]; only parameter values may differ")
    return jax.tree.map(lambda *xs: jnp.stack(xs), *models)


def n_members(batch: AbstractModel) -> int:
    """Size of the leading ``member`` axis of a batched model."""
    sizes = {jnp.shape(x)[0] for x in jax.tree.leaves(batch) if jnp.ndim(x) > 0}
    if len(sizes) != 1:
        raise ValueError(
            f"not a batched model: leading axes of its arrays are {sorted(sizes)} (expected one size). Build the "
            "batch with make_batch or stack; only 0-d leaves may lack the member axis (they are shared)"
        )
    return sizes.pop()


def _per_member(x) -> bool:
    """True for an array leaf with a member axis; 0-d leaves cannot carry one and are shared by all members."""
    return eqx.is_array(x) and jnp.ndim(x) > 0


def member(batch: AbstractModel, i: int) -> AbstractModel:
    """Member ``i`` of a batched model (0-d leaves are shared by all members and kept).

    ``i`` counts from 0 (negative values from the end, as in Python), or is an integer array of such
    indices (a sub-batch); an index outside the batch is refused rather than clamped (JAX clamps
    out-of-range indices to the last member). Traced indices are not checked.
    """
    if is_concrete(i):
        n = n_members(batch)
        index = np.asarray(i)
        if isinstance(i, bool) or not np.issubdtype(index.dtype, np.integer) or np.any((index < -n) | (index >= n)):
            raise IndexError(f"member index i must be an integer in [{-n}, {n}) for a batch of {n}; got {i!r}")
    return jax.tree.map(lambda x: x[i] if _per_member(x) else x, batch)


def unstack(batch: AbstractModel) -> list[AbstractModel]:
    """The members of a batched model as a list of models."""
    return [member(batch, i) for i in range(n_members(batch))]


def make_batch(model: AbstractModel, **values: Any) -> AbstractModel:
    """A batched model: ``model`` with the named parameters set to per-member ``values``.

    Every value is an array of shape ``(members, *parameter_shape)`` (or ``(members,)`` for a
    scalar parameter); all other array leaves are repeated along the new ``member`` axis.

    Example: ``make_batch(hh, gNa=np.linspace(60, 180, 41), gK=np.full(41, 36.0))``.
    """
    if not values:
        raise ValueError("make_batch needs at least one parameter, e.g. make_batch(model, gNa=[100., 120.])")
    arrays = {name: jnp.asarray(v) for name, v in values.items()}
    sizes = {name: a.shape[0] if a.ndim else None for name, a in arrays.items()}
    if len(set(sizes.values())) != 1 or None in sizes.values():
        raise ValueError(f"make_batch values must share one leading member axis; got lengths {sizes}")
    n = next(iter(sizes.values()))
    if n == 0:
        raise ValueError(f"make_batch values must hold at least one member; got lengths {sizes}")
    batch = jax.tree.map(lambda x: jnp.broadcast_to(x, (n, *jnp.shape(x))), model)
    per_member = {}
    for name, value in arrays.items():
        path = model.resolve(name)
        old = get_path(model, path)
        if value.ndim > 1 and value.shape[1:] != jnp.shape(old):
            shapes = " or ".join(sorted({str((n,)), str((n, *jnp.shape(old)))}))
            raise ValueError(f"make_batch value of {name} must have shape {shapes} (per member); got {value.shape}")
        value = value.reshape(n, *([1] * old.ndim)) if value.ndim == 1 else value
        per_member[path] = jnp.broadcast_to(value, (n, *old.shape))
    batch = set_paths(batch, per_member)
    raise_if_unphysical(batch.physical_checks())  # names the parameter and the first failing member
    return batch


#: The keywords of `simulate` besides the solve options that an ensemble passes on to every member.
_SIMULATE_KEYWORDS = frozenset({"y0", "observe", "observe_info", "loop"})


def run_ensemble(
    batch: AbstractModel,
    protocol: Any,
    ts: Any,
    *,
    strategy: str | None = None,
    chunk_size: int = 8,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    devices: Sequence[jax.Device] | None = None,
    options: SolveOptions | None = None,
    **simulate_kwargs: Any,
) -> Trajectory:
    """Simulate every member of ``batch`` (see [`make_batch`][difflab.make_batch], [`stack`][difflab.stack]).

    Args:
        batch: a model whose array leaves carry a leading ``member`` axis; 0-d leaves (as left by
            ``model.replace(gNa=values)``) are shared by all members.
        protocol: the input shared by all members.
        ts: save times shared by all members.
        strategy: ``"vmap"``, ``"map"`` or ``"chunked"``; default [`default_strategy`][difflab.default_strategy]
            for this backend, solver and state size (docs/backends.md).
        chunk_size: members per vmapped group for ``"chunked"``.
        memory_budget: bytes allowed for the outputs of one host block (members are run in
            blocks of equal size so each compiles once).
        devices: devices to shard the member axis over (default: all of ``jax.devices()``;
            one device means no sharding).
        options: a [`SolveOptions`][difflab.SolveOptions] for every member (``throw`` is forced to ``False``:
            failed members are reported in ``result``, not raised).
        **simulate_kwargs: passed to [`difflab.simulate`][] (``observe``, ``loop``, and the fields of
            ``SolveOptions`` as keywords, not both ways for one field). With fixed steps on an accelerator
            (``loop="auto"``) the members share one step, resolved here, and ``ts`` is a constant of the
            compiled call, so that every member runs as one ``lax.scan``.

    Returns:
        A batched [`Trajectory`][difflab.Trajectory] (leading ``member`` axis), with per-member
        solver statistics in ``stats`` (e.g. ``stats["num_steps"]``).
    """
    n = n_members(batch)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int | np.integer) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a whole number >= 1 (members per vmapped group); got {chunk_size!r}")
    if isinstance(memory_budget, bool) or not isinstance(memory_budget, int | np.integer) or memory_budget < 1:
        raise ValueError(f"memory_budget must be a whole number of bytes >= 1; got {memory_budget!r}")
    if devices is not None and len(devices) == 0:
        raise ValueError("devices must name at least one device (or be None for all of jax.devices()); got []")
    # numpy keeps save times closed over inside jit concrete (jnp.asarray would trace them), as simulate does
    ts = ts if isinstance(ts, jax.core.Tracer) else np.asarray(ts)
    solve, simulate_kwargs = split_solve_keywords(simulate_kwargs)
    unknown = sorted(set(simulate_kwargs) - _SIMULATE_KEYWORDS)
    if unknown:
        raise TypeError(
            f"run_ensemble() got an unexpected keyword argument {unknown[0]!r}; it passes on "
            f"{', '.join(sorted(_SIMULATE_KEYWORDS))} and the fields of difflab.SolveOptions: "
            f"{', '.join(sorted(SOLVE_FIELDS))}"
        )
    opts = merge_options(options, solve, "run_ensemble").replace(throw=False)
    keywords = {**simulate_kwargs, **opts.keywords(), "throw": False}
    controller = opts.controller(member(batch, 0).default_stepsize_controller())
    adaptive = isinstance(controller, diffrax.AbstractAdaptiveStepSizeController)
    # one member's state, as shapes (a trace of its initial state: 16 ms for the 1000-member HH batch), for the
    # strategy and the block size
    y0 = jax.eval_shape(lambda m: member(m, 0).initial_state(), batch)
    strategy = _resolve_strategy(strategy, adaptive, y0)
    loop = keywords.get("loop", "auto")
    if not adaptive and is_concrete(ts) and (loop == "scan" or (loop == "auto" and default_loop() == "scan")):
        # the fixed-step scan needs the step and the save times as constants of the compiled call
        # (so a new ts compiles anew)
        keywords.setdefault("dt0", _shared_dt0(batch, protocol, controller))
        ts = StaticArray(ts)
    else:
        ts = jnp.asarray(ts)
    devices = list(jax.devices() if devices is None else devices)
    block = _block_size(y0, ts, memory_budget, len(devices), n)
    mapped, shared = eqx.partition(batch, _per_member)
    # the index keeps the member tree non-empty when every leaf is shared
    members = (mapped, jnp.arange(n))
    return run_members(
        _simulate_member, (shared, protocol, ts, keywords), members, strategy=strategy, chunk_size=chunk_size,
        devices=devices, block=block,
    )  # fmt: skip


def _simulate_member(inputs, one):
    shared, protocol, ts, options = inputs
    ts = ts.array if isinstance(ts, StaticArray) else ts
    return simulate(eqx.combine(one[0], shared), protocol, ts, **options)


def _resolve_strategy(strategy, adaptive, y0) -> str:
    """`strategy`, or the default for this kind of solve and `y0`, one member's state (shapes)."""
    if strategy is not None:
        check_strategy(strategy)
        return strategy
    size = sum(
        math.prod(s.shape) * (2 if jnp.issubdtype(s.dtype, jnp.complexfloating) else 1) for s in jax.tree.leaves(y0)
    )
    return default_strategy(adaptive=adaptive, state_size=size)


def shared_fixed_step(batch, protocol, options=None, **simulate_kwargs) -> float | None:
    """The one fixed step `run_ensemble` gives every member of `batch` (concrete parameters), else `None`.

    `None` where the step is adaptive, given (`dt0`) or differs between members. For a caller that traces the
    parameters afterwards (forward-mode derivatives): their step is then a traced value, which rules out the
    fixed-step scan, so the caller passes this step, resolved while the values are concrete, as `dt0`. The
    default step is piecewise constant in the parameters, so the solution and its derivatives are the same.
    """
    solve, _ = split_solve_keywords(simulate_kwargs)
    opts = merge_options(options, solve, "run_ensemble")
    if opts.dt0 is not None:
        return None
    controller = opts.controller(member(batch, 0).default_stepsize_controller())
    if isinstance(controller, diffrax.AbstractAdaptiveStepSizeController):
        return None
    return _shared_dt0(batch, protocol, controller)


def _shared_dt0(batch, protocol, controller):
    """The members' default fixed step when they all share it, else ``None`` (each member then resolves its own)."""
    steps = batch.default_dt0()
    if steps is None or not is_concrete(steps):
        return None
    steps = np.asarray(steps).reshape(-1)
    if not np.all(steps == steps[0]):
        return None
    step = fit_to_protocol(float(steps[0]), protocol, controller)  # numpy values: concrete inside jit too
    return float(np.asarray(step))  # a Python float: static in the compiled call, weakly typed (keeps float32)


def _block_size(y0, ts, budget: int, n_devices: int, n: int) -> int:
    """Members per host block: what fits the budget, a multiple of the device count (`y0`: one member's state)."""
    state_bytes = sum(math.prod(s.shape) * s.dtype.itemsize for s in jax.tree.leaves(y0))
    per_member = max(1, state_bytes * (ts.shape[0] + 64))
    block = max(1, min(n, budget // per_member))
    return int(math.ceil(block / n_devices) * n_devices)
