"""Shared test configuration: float64, strict rank promotion, and one compilation cache for the session.

Most of the suite's time is XLA compilation. JAX's persistent compilation cache keeps every compiled program on
disk, so that a program compiled once is loaded, not compiled again, by the other pytest worker, by the command-line
tests' subprocesses (they inherit the environment variables set here) and by the next run. The cache lives in
``$DIFFLAB_TEST_CACHE`` (default: ``difflab-jax-cache`` in the temporary folder); delete it for a cold run.
"""

import os
import tempfile
from pathlib import Path

CACHE = Path(os.environ.get("DIFFLAB_TEST_CACHE", Path(tempfile.gettempdir()) / "difflab-jax-cache"))
# set before JAX starts, so that subprocesses (the CLI tests, the multi-device checks) use the same cache
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", str(CACHE))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.2")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")

import jax  # noqa: E402 - after the cache settings above

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_numpy_rank_promotion", "raise")
