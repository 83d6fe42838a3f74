"""Run one compiled quantum solve over a batch of members (parameter sets × initial states).

The members are indices into a shared problem; `difflab.ensembles`' `run_members` runs them with the ensemble
strategies ("vmap", "map", "chunked") and splits them over the devices, as for any ensemble. The default strategy
is the backend's (docs/backends.md): on an accelerator one batched solve (members vmapped, adaptive steps in
lock-step), on the CPU one member after another for states larger than 256 numbers (vmap of 100 Jaynes–Cummings
members took 40 s against 6.6 s for `lax.map`; a thread pool over the compiled single solve gave no speed-up: the
executions did not overlap). With several devices (GPUs, or CPU cores exposed as devices with
`jax.config.update("jax_num_cpu_devices", n)`) each device gets a block of members: on the 2-core CPU two devices
solve 100 Jaynes–Cummings members in 1.8–2.1 s against 4.1 s on one (benchmarks/README.md).

`fn(inputs, index)` must be a module-level function (it is a static key of the compilation cache), `inputs` a pytree.
"""

from __future__ import annotations

from collections.abc import Callable

import equinox as eqx
import jax
import jax.numpy as jnp

from ..ensembles.internal import run_members


@eqx.filter_jit
def _single(fn: Callable, inputs, index):
    # the member axis is added inside the compiled call: no extra dispatch per output array
    return jax.tree.map(lambda x: x[None], fn(inputs, index))


def solve_members(fn: Callable, inputs, count: int, strategy: str, devices=None):
    """Stack `fn(inputs, index)` for `index` in `range(count)` (a pytree with a leading member axis)."""
    if count == 1:
        return _single(fn, inputs, jnp.asarray(0))
    return run_members(fn, inputs, jnp.arange(count), strategy=strategy, devices=devices)
