"""Shared test configuration: float64, strict rank and dtype promotion, a compilation cache, fast
compiler flags, and files kept whole per worker.

Most of the suite's time is XLA compilation. JAX's persistent compilation cache keeps compiled programs on disk, so
that a program compiled once is loaded, not compiled again, by the other pytest worker, by the subprocesses (they
inherit the environment variables set here) and by the next run. The cache lives in ``$DIFFLAB_TEST_CACHE``
(default: ``difflab-jax-cache`` in the temporary folder); delete it for a cold run. JAX does not store a program that
holds a host callback, and every diffrax solve with save times does (its checks of ``SaveAt(ts=...)`` are
``equinox.error_if``): the solves, fits and gradients are compiled again in every process and every run. What saves
their compilation is sharing within one process: tests that solve one problem keep its shapes and static
settings, so that the second reuses the first one's compiled program, and each test file runs whole on one worker
(``--dist loadgroup`` with every file its own group, below). Files that solve the same problem name one group with
``pytestmark = pytest.mark.xdist_group("name")`` and then run on the same worker.
"""

import os
import tempfile
from pathlib import Path

CACHE = Path(os.environ.get("DIFFLAB_TEST_CACHE", Path(tempfile.gettempdir()) / "difflab-jax-cache"))
# set before JAX starts, so that subprocesses (the CLI tests, the multi-device checks) use the same cache
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", str(CACHE))
# every program, however quick to compile: the suite compiles about 14 000 small ones (single operations run eagerly
# on new shapes, 11 ms each, 30 % of all compile time), half of them again in the other worker or after a worker
# drops its caches (below); read back from the disk, each costs a fraction of that
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")
# XLA's CPU compiler, told to spend less on code that runs for milliseconds: the legacy loop emitters instead of the
# fusion emitters, and LLVM at -O0 without its expensive passes (JAX's own `jax_disable_most_optimizations` sets the
# last two). XLA compilation is about half of the suite's time (tracing and lowering a third, running the programs
# a fifth); against the fusion emitters and -O3, a small decay fit compiles in 2.7 s instead of 4.4 s and the
# ball-and-stick fit of docs/cells.md in 16 s instead of 28 s, and -O0 takes another 15 % off a compile-bound set of
# files, while the longest solve (the L5PC's backpropagating action potential) runs 14 % slower. Every float64
# figure is unchanged at its tolerance; float32 rounds differently (a branched cell's float32 spikes drift 0.0012 ms
# instead of 0.0003 ms from float64), so a float32 accuracy test runs in a subprocess with the flags the suite was
# started with (tests/_host_devices.py). Flags already set in XLA_FLAGS are kept.
_FAST_COMPILE = (
    "--xla_cpu_use_fusion_emitters=false",
    "--xla_backend_optimization_level=0",
    "--xla_llvm_disable_expensive_passes=true",
)
_given = os.environ.setdefault("DIFFLAB_TEST_GIVEN_XLA_FLAGS", os.environ.get("XLA_FLAGS", ""))
os.environ["XLA_FLAGS"] = " ".join([_given, *(f for f in _FAST_COMPILE if f.split("=")[0] not in _given)]).strip()

import jax  # noqa: E402 - after the cache settings above
import pytest  # noqa: E402

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_numpy_rank_promotion", "raise")


@pytest.fixture(autouse=True)
def _dtype_promotion():
    """Strict dtype promotion in every test: a real never meets a complex number, an integer or a bool without an
    explicit cast.

    Complex × real mixing is where a float32 state was silently widened to complex128 (or a value lost its
    imaginary part), and an integer count times a float is where a float32 result became float64; the library
    casts explicitly, with the dtype taken from its inputs, and the tests hold it to that. Third-party code written
    for standard promotion (optax's updates, blackjax's sampler) is run at standard promotion by the library
    itself. The docs' code blocks are not under this fixture: they run as users run them, at JAX's default.
    """
    with jax.numpy_dtype_promotion("strict"):
        yield


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items):
    """Every test without an ``xdist_group`` joins its file's group: a file runs whole on one worker."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
