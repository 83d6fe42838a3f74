"""XLA's CPU runtime told to run small loops as one kernel, set when difflab is imported.

XLA runs a compiled program on the CPU as a graph of kernels, one per fusion, dispatched one after the other
(and handed between the threads of its pool when several are ready). A fixed-step solve is a loop of such kernels:
the squid axon's step under `jax.jvp` for four posterior chains is about 50 fusions on arrays of four numbers, so
that the step costs what the dispatches cost, 11-13 µs on two cores, and its arithmetic next to nothing.

XLA can instead compile a whole `while` loop into one function (its `SmallWhileLoopHoistingPass`): the loop runs as
one kernel, with no dispatch per operation, on one thread. It does so for the loops whose one iteration reads and
writes fewer bytes than `xla_cpu_small_while_loop_byte_threshold` (1 kB by default) and that hold no dot,
convolution, scatter or custom call. difflab raises the threshold to `SMALL_LOOP_BYTES` (8 MiB). Measured on a
2-core Intel Xeon (benchmarks/README.md, "Loops as one kernel"), against XLA's default:

- the squid axon's 300 ms forward-mode gradient for four posterior chains at 0.00625 ms: 7.7× faster; one squid
  axon's 120 ms solve 24.6×; a ball-and-stick cell 5.7×; the same results to rounding;
- a 1000-member HH ensemble (1-2 MiB per step): 1.6-3.0× faster, faster than the same kernels spread over both
  cores or run on one (the dispatches cost more than the threads save);
- 10 000 members (about 15 MiB per step, above the threshold, so unchanged by default): one kernel would still be
  1.2-1.4× faster on two cores. The threshold stays below that because a kernel of one thread gives up the
  cores a larger machine could spread such a step over.

The option is read once, when JAX starts its CPU backend. difflab adds it to the `XLA_FLAGS` environment variable
at import, which reaches the backend if no JAX computation has run yet; otherwise `apply_small_loop_option` says so
in a warning, with the line to set before starting Python. A threshold the user already gives in `XLA_FLAGS` (0
turns the pass off) is left as it is.
"""

from __future__ import annotations

import os
import re
import warnings
from types import ModuleType

import jax

_xla_bridge: ModuleType | None
try:  # private: JAX has no public query for whether its backends have started
    from jax._src import xla_bridge as _xla_bridge
except ImportError:  # pragma: no cover - a JAX without the module
    _xla_bridge = None

#: Bytes one loop iteration may read and write for XLA to run the loop as one CPU kernel (8 MiB, see above).
SMALL_LOOP_BYTES = 8 * 2**20
OPTION = "xla_cpu_small_while_loop_byte_threshold"
_EXTRA = "--xla_backend_extra_options="


def with_small_loop_option(flags: str, threshold: int = SMALL_LOOP_BYTES) -> str:
    """`flags` (an `XLA_FLAGS` value) with `OPTION=threshold` among XLA's backend options, unless it names `OPTION`.

    XLA takes backend options as one comma-separated list (`--xla_backend_extra_options=a=1,b=2`); an existing list
    is extended rather than given a second flag, which would replace it.
    """
    if OPTION in flags:
        return flags
    entry = f"{OPTION}={threshold}"
    if _EXTRA in flags:
        return re.sub(re.escape(_EXTRA) + r"(\S*)", lambda m: _EXTRA + ",".join(filter(None, (m.group(1), entry))),
                      flags)  # fmt: skip
    return f"{flags} {_EXTRA}{entry}".strip()


def apply_small_loop_option() -> None:
    """Put `OPTION` in `XLA_FLAGS` for the CPU backend JAX has yet to start; warn when it has started without it."""
    flags = os.environ.get("XLA_FLAGS", "")
    given = with_small_loop_option(flags)
    if given == flags:  # the user named the option: theirs
        return
    os.environ["XLA_FLAGS"] = given
    if _backend_started():
        warnings.warn(
            "JAX's CPU backend started before difflab was imported, so XLA runs every operation of a small loop "
            "as a kernel of its own (fixed-step solves of a cell, a few chains or an ensemble then run several "
            "times slower on the CPU). Import "
            f"difflab before running JAX code, or start Python with XLA_FLAGS='{_EXTRA}{OPTION}={SMALL_LOOP_BYTES}' "
            f"({OPTION}=1024 keeps XLA's default and silences this).",
            RuntimeWarning,
            stacklevel=3,
        )


def _backend_started() -> bool:
    """Whether JAX has started its backends with the CPU as the default.

    `XLA_FLAGS` is then read already, and the option would have mattered. False where JAX cannot tell.
    """
    started = getattr(_xla_bridge, "backends_are_initialized", None)
    return bool(started()) and jax.default_backend() == "cpu" if callable(started) else False
