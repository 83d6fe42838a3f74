"""Run a check script in a subprocess: with several host CPU devices (the device count is fixed per process), or with
JAX's default compiler flags (the suite's processes compile with faster flags, see tests/conftest.py)."""

import os
import subprocess
import sys
from pathlib import Path


def run_with_host_devices(script: Path, devices: int = 4) -> str:
    """Run ``script`` with ``devices`` host CPU devices, rank promotion strict; assert a clean exit, return stdout.

    The script compiles with the suite's own XLA flags (tests/conftest.py) plus the device count.
    """
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={devices}".strip()
    return _run(script, {"XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu", "JAX_NUMPY_RANK_PROMOTION": "raise"})


def run_with_default_compiler(script: Path) -> str:
    """Run ``script`` with the XLA flags the suite was started with (none of its own); return stdout."""
    flags = os.environ.get("DIFFLAB_TEST_GIVEN_XLA_FLAGS", "")
    return _run(script, {"XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu", "JAX_NUMPY_RANK_PROMOTION": "raise"})


def _run(script: Path, env: dict[str, str]) -> str:
    env = {**os.environ, **env}
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout
