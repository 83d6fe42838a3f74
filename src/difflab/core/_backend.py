"""Defaults that depend on the backend (`jax.default_backend()`).

They cover the fixed-step loop of `simulate`, the default solver and the ensemble strategy, and are listed, with the
measurements behind them, in one table in docs/backends.md. Every default is overridable where it is used
(`loop=`, `solver=`, `strategy=`); the `backend` arguments take a backend name so that the rules can be read (and
tested) on any machine.
"""

from __future__ import annotations

import jax

from ..solvers.internal import UnrolledTsit5

#: Ensemble strategies (the same names for `run_ensemble` and the quantum solvers).
STRATEGIES = ("vmap", "map", "chunked")
#: Largest state (real numbers per member) for which lock-step vmap of an adaptive solve pays on the CPU.
CPU_VMAP_STATE_SIZE = 256
#: Largest state for which the scan pays on the CPU when steps own several save times (1024: 1.2× faster; 4000:
#: 0.83×, HH batches of 256 and 1000 members with 4 saves per step).
CPU_SCAN_STATE_SIZE = 2048
#: Steps per iteration of the fixed-step scan on an accelerator. On a GPU each iteration of XLA's loop ends with
#: the host reading the loop's condition back, so an iteration costs about 7.5 µs on an H200 whatever it computes;
#: unrolling amortises that. Measured on one H200 (1000-member HH ensemble, benchmarks/README.md): 4 steps per
#: iteration 1.2-1.35x faster than 1, 16 only 1-4 % more at 3-4x the compile time. On the CPU a longer body only
#: costs compilation time (1 there).
ACCELERATOR_SCAN_UNROLL = 4


def backend_name(backend: str | None = None) -> str:
    """`backend`, or `jax.default_backend()` when `None` ("cpu", "gpu", "tpu", ...)."""
    return jax.default_backend() if backend is None else backend


def is_accelerator(backend: str | None = None) -> bool:
    """True for anything but the CPU."""
    return backend_name(backend) != "cpu"


def default_loop(backend: str | None = None, saves_per_step: int = 1, state_size: int = 0) -> str:
    """The fixed-step loop `simulate(loop="auto")` picks where both apply.

    "scan" on accelerators. On the CPU "scan" too, except for a large state (more than `CPU_SCAN_STATE_SIZE` real
    numbers) saved more than once per step: the scan evaluates every step's `saves_per_step` slots, where
    diffrax's loop evaluates only the saves a step owns (a 1000-member HH batch, 4 saves per step: 0.090 s against
    0.075 s). Measured faster on the CPU elsewhere: a 1000-member HH ensemble under vmap 3.8×, a 100-cell network
    1.4×, the reverse-mode gradient of a 1 s HH recording 4.3× (docs/backends.md).

    Args:
        backend: a backend name; default `jax.default_backend()`.
        saves_per_step: the most save times one step owns.
        state_size: real numbers in the solve's state.
    """
    if is_accelerator(backend) or saves_per_step <= 1 or state_size <= CPU_SCAN_STATE_SIZE:
        return "scan"
    return "while"


def scan_unroll(backend: str | None = None) -> int:
    """Steps per iteration of the fixed-step scan: `ACCELERATOR_SCAN_UNROLL` on accelerators, 1 on the CPU."""
    return ACCELERATOR_SCAN_UNROLL if is_accelerator(backend) else 1


def default_solver(backend: str | None = None):
    """The solver a model uses when none is given: `UnrolledTsit5` on every backend.

    Measured on one H200 (benchmarks/README.md, GPU section): the Jaynes–Cummings solve 0.059 s against 0.079 s
    with `diffrax.Tsit5`, its 100-κ batch 0.23 s against 0.48 s; on the CPU 1.8× faster (docs/backends.md).
    """
    del backend  # one answer today; the argument keeps the rule readable per backend
    return UnrolledTsit5()


def default_strategy(backend: str | None = None, adaptive: bool = True, state_size: int | None = None) -> str:
    """The ensemble strategy used when none is given (see the table above).

    Args:
        backend: a backend name; default `jax.default_backend()`.
        adaptive: whether the solve takes adaptive steps (members then run in lock-step under vmap).
        state_size: real numbers in one member's state; `None` counts as small.
    """
    if is_accelerator(backend) or not adaptive or state_size is None or state_size <= CPU_VMAP_STATE_SIZE:
        return "vmap"
    return "map"


def check_strategy(strategy: str, name: str = "strategy") -> None:
    """Raise `ValueError` naming `name` unless `strategy` is one of `STRATEGIES`."""
    if strategy not in STRATEGIES:
        raise ValueError(f"{name} must be one of {STRATEGIES}; got {strategy!r}")
