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
from jax.sharding import Mesh, PartitionSpec

from ..core._checks import is_concrete
from ..core._model import AbstractModel
from ..core._paths import get_path, where_path
from ..core._simulate import simulate
from ..core._trajectory import Trajectory

STRATEGIES = ("vmap", "map", "chunked")
#: Default bound on the memory of one host block of an ensemble (bytes).
DEFAULT_MEMORY_BUDGET = 2 * 2**30


def stack(models: Sequence[AbstractModel]) -> AbstractModel:
    """One batched model from models of the same structure (array leaves stacked on a new axis 0)."""
    models = list(models)
    if not models:
        raise ValueError("stack needs at least one model")
    structure = jax.tree.structure(models[0])
    for i, m in enumerate(models[1:], 1):
        if jax.tree.structure(m) != structure:
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
    batch = jax.tree.map(lambda x: jnp.broadcast_to(x, (n, *jnp.shape(x))), model)
    for name, value in arrays.items():
        path = model.resolve(name)
        old = get_path(model, path)
        value = jnp.broadcast_to(value.reshape(n, *([1] * old.ndim)) if value.ndim == 1 else value, (n, *old.shape))
        batch = eqx.tree_at(where_path(path), batch, value.astype(old.dtype))
    return batch


def default_strategy(backend: str | None = None, adaptive: bool = True) -> str:
    """The strategy [`run_ensemble`][difflab.run_ensemble] uses when none is given: ``"vmap"``.

    On GPU/TPU vmap is the natural choice. On CPU it was measured (benchmarks/sweep_strategies.py,
    HH with gNa from 60 to 180 over 100 ms, best of 3 on 2 shared cores): despite the lock-step
    of adaptive solves (273 to 1205 steps per member, every member pays for the slowest),
    vectorising wins over one-by-one ``lax.map`` by 2.4× (32 members) to 4.7× (128 members);
    vmapped groups of 8 (``"chunked"``) were 1.5× faster than vmap at 32 members and 1.4×
    slower at 128. With fixed steps vmap was fastest at every size (11× to 32× over lax.map).
    ``backend`` and ``adaptive`` are accepted so that the rule can differ where measurements do.
    """
    del backend, adaptive
    return "vmap"


def run_ensemble(
    batch: AbstractModel,
    protocol: Any,
    ts: Any,
    *,
    strategy: str | None = None,
    chunk_size: int = 8,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    devices: Sequence[jax.Device] | None = None,
    **simulate_kwargs: Any,
) -> Trajectory:
    """Simulate every member of ``batch`` (see [`make_batch`][difflab.make_batch], [`stack`][difflab.stack]).

    Args:
        batch: a model whose array leaves carry a leading ``member`` axis; 0-d leaves (as left by
            ``model.replace(gNa=values)``) are shared by all members.
        protocol: the input shared by all members.
        ts: save times shared by all members.
        strategy: ``"vmap"``, ``"map"`` or ``"chunked"``; default [`default_strategy`][difflab.default_strategy].
        chunk_size: members per vmapped group for ``"chunked"``.
        memory_budget: bytes allowed for the outputs of one host block (members are run in
            blocks of equal size so each compiles once).
        devices: devices to shard the member axis over (default: all of ``jax.devices()``;
            one device means no sharding).
        **simulate_kwargs: passed to [`difflab.simulate`][] (``throw`` is forced to ``False``:
            failed members are reported in ``result``, not raised).

    Returns:
        A batched [`Trajectory`][difflab.Trajectory] (leading ``member`` axis), with per-member
        solver statistics in ``stats`` (e.g. ``stats["num_steps"]``).
    """
    if strategy is None:
        controller = simulate_kwargs.get("stepsize_controller") or member(batch, 0).default_stepsize_controller()
        strategy = default_strategy(adaptive=isinstance(controller, diffrax.AbstractAdaptiveStepSizeController))
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}; got {strategy!r}")
    n = n_members(batch)
    ts = jnp.asarray(ts)
    devices = list(jax.devices() if devices is None else devices)
    block = _block_size(batch, ts, memory_budget, len(devices), n)
    options = {**simulate_kwargs, "throw": False}
    mesh = Mesh(np.array(devices), ("member",)) if len(devices) > 1 else None
    deal = _deal(block, len(devices))
    undeal = np.argsort(deal)  # slot of each member
    if block == n:  # one block: no padding, and the result stays on the devices that computed it
        if mesh is None:
            return _run_block(batch, n, protocol, ts, options, strategy, chunk_size, mesh)
        out = _run_block(member(batch, deal), n, protocol, ts, options, strategy, chunk_size, mesh)
        return jax.tree.map(lambda x: x[undeal], out)
    parts = []
    for start in range(0, n, block):
        idx = np.minimum(np.arange(start, start + block), n - 1)  # pad the last block with repeats
        out = _run_block(member(batch, idx[deal]), block, protocol, ts, options, strategy, chunk_size, mesh)
        keep = min(block, n - start)
        parts.append(jax.tree.map(lambda x, k=keep: np.asarray(x)[undeal][:k], out))
    return jax.tree.map(lambda *xs: jnp.asarray(np.concatenate(xs)), *parts)


def _deal(block: int, n_devices: int) -> np.ndarray:
    """Order of a block's members so that device d's contiguous share holds members d, d + D, d + 2D, ...

    On 64 HH members with gNa ascending and adaptive Tsit5 over 2 devices this balances the solver
    steps (28521 and 28958 against 15297 and 42182 for contiguous halves; 1.8x faster, docs/sweeps.md).
    ``block`` is a multiple of ``n_devices``.
    """
    return np.arange(block).reshape(block // n_devices, n_devices).T.ravel()


def _member_axes(batch: AbstractModel) -> AbstractModel:
    """vmap axes of a batch: 0 for array leaves with the member axis, ``None`` for the rest.

    A 0-d leaf cannot carry a member axis, so it is shared by all members: a model from
    ``model.replace(gNa=values)`` (per-member ``gNa``, scalar everything else) runs as it is.
    """
    return jax.tree.map(lambda x: 0 if _per_member(x) else None, batch)


def _block_size(batch, ts, budget: int, n_devices: int, n: int) -> int:
    """Members per host block: what fits the budget, a multiple of the device count."""
    y0 = jax.eval_shape(lambda m: member(m, 0).initial_state(), batch)
    state_bytes = sum(math.prod(s.shape) * s.dtype.itemsize for s in jax.tree.leaves(y0))
    per_member = max(1, state_bytes * (ts.shape[0] + 64))
    block = max(1, min(n, budget // per_member))
    return int(math.ceil(block / n_devices) * n_devices)


@eqx.filter_jit
def _run_block(batch, size, protocol, ts, options, strategy, chunk_size, mesh):
    local_size = size if mesh is None else size // mesh.size
    axes = _member_axes(batch)

    def one(model):
        return simulate(model, protocol, ts, **options)

    def local(models):
        if strategy == "vmap":
            return jax.vmap(one, in_axes=(axes,), axis_size=local_size)(models)
        mapped, shared = eqx.partition(models, _per_member)
        run = lambda xs: one(eqx.combine(xs[0], shared))  # noqa: E731
        # the index keeps the mapped tree non-empty when every leaf is shared
        xs = (mapped, jnp.arange(local_size))
        return jax.lax.map(run, xs, batch_size=chunk_size if strategy == "chunked" else None)

    if mesh is None:
        return local(batch)
    dynamic, static = eqx.partition(batch, eqx.is_array)
    specs = jax.tree.map(lambda x: PartitionSpec("member") if _per_member(x) else PartitionSpec(), dynamic)
    sharded = jax.shard_map(
        lambda d: local(eqx.combine(d, static)),
        mesh=mesh,
        in_specs=(specs,),
        out_specs=PartitionSpec("member"),
        # Solver loops carry per-member state that starts unsharded; they are independent per device.
        check_vma=False,
    )
    return sharded(dynamic)
