"""Run a check script in a subprocess whose JAX sees several CPU devices (the device count is fixed per process)."""

import os
import subprocess
import sys
from pathlib import Path


def run_with_host_devices(script: Path, devices: int = 4) -> str:
    """Run ``script`` with ``devices`` host CPU devices, rank promotion strict; assert a clean exit, return stdout."""
    flags = f"--xla_force_host_platform_device_count={devices}"
    env = {**os.environ, "XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu", "JAX_NUMPY_RANK_PROMOTION": "raise"}
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout
