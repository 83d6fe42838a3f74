"""Defaults that depend on the backend (`jax.default_backend()`).

They cover the fixed-step loop of `simulate`, the default solver and the ensemble strategy, and are listed, with the
measurements behind them, in one table in docs/backends.md. Every default is overridable where it is used
(`loop=`, `solver=`, `strategy=`); the `backend` arguments take a backend name so that the rules can be read (and
tested) on any machine.
"""

from __future__ import annotations

import jax

#: Ensemble strategies (the same names for `run_ensemble` and the quantum solvers).
STRATEGIES = ("vmap", "map", "chunked")
#: Largest state (real numbers per member) for which lock-step vmap of an adaptive solve pays on the CPU.
CPU_VMAP_STATE_SIZE = 256


def backend_name(backend: str | None = None) -> str:
    """`backend`, or `jax.default_backend()` when `None` ("cpu", "gpu", "tpu", ...)."""
    return jax.default_backend() if backend is None else backend


def is_accelerator(backend: str | None = None) -> bool:
    """True for anything but the CPU."""
    return backend_name(backend) != "cpu"


def default_loop(backend: str | None = None) -> str:
    """The fixed-step loop `simulate(loop="auto")` picks where both apply: "scan", on every backend.

    On accelerators the scan avoids a host round trip per step; on the CPU it was measured faster too (HH ensemble
    of 1000 members 3.8×, a 100-cell network 1.4×, the reverse-mode gradient of a 1 s HH recording 4.3×; see
    docs/backends.md). The argument is kept so that the rule reads the same as the other backend defaults.
    """
    return "scan"


def default_solver(backend: str | None = None):
    """The solver a model uses when none is given: `diffrax.Tsit5` on accelerators, `UnrolledTsit5` on the CPU."""
    if is_accelerator(backend):
        import diffrax

        return diffrax.Tsit5()
    from ..solvers._tsit5 import UnrolledTsit5

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
