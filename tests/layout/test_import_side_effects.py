"""Importing difflab leaves JAX's backend alone, so a script can still choose its devices after the imports.

`jax.config.update("jax_num_cpu_devices", n)` (like the platform and memory settings) only works before the
backend starts, and any array created at import time (a module-level `jnp.array`, a `jax.devices()` call) starts
it. The backend starts once per process, so each import is checked in a fresh interpreter.
"""

import os
import subprocess
import sys

import pytest

SCRIPT = """
import sys
import jax

import {module}

try:
    jax.config.update("jax_num_cpu_devices", 2)
except RuntimeError as error:
    sys.exit(f"importing {module} started JAX's backend: {{error}}")
print(jax.device_count())
"""


@pytest.mark.parametrize("module", ["difflab", "difflab.neuron", "difflab.quantum", "difflab.reflector"])
def test_import_leaves_the_backend_unstarted(module):
    env = {key: value for key, value in os.environ.items() if key != "XLA_FLAGS"} | {"JAX_PLATFORMS": "cpu"}
    script = SCRIPT.format(module=module)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["2"]  # the setting took effect: two CPU devices
