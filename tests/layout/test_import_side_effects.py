"""Importing difflab leaves JAX's backend alone, so a script can still choose its devices after the imports.

`jax.config.update("jax_num_cpu_devices", n)` (like the platform and memory settings) only works before the
backend starts, and any array created at import time (a module-level `jnp.array`, a `jax.devices()` call) starts
it. The backend starts once per process, so the imports are checked in a fresh interpreter: one, which imports the
modules one after another and tries the setting after each (the setting itself does not start the backend), so
that a module that starts it is named even when the modules before it did not.
"""

import json
import os
import subprocess
import sys

import pytest

MODULES = ["difflab", "difflab.neuron", "difflab.quantum", "difflab.reflector"]

SCRIPT = """
import importlib
import json
import sys

import jax

started = {}
for module in sys.argv[1:]:
    importlib.import_module(module)
    try:
        jax.config.update("jax_num_cpu_devices", 2)
        started[module] = None
    except RuntimeError as error:
        started[module] = str(error)
        break
started["device_count"] = jax.device_count()
print(json.dumps(started))
"""


@pytest.fixture(scope="module")
def started():
    env = {key: value for key, value in os.environ.items() if key != "XLA_FLAGS"} | {"JAX_PLATFORMS": "cpu"}
    done = subprocess.run([sys.executable, "-c", SCRIPT, *MODULES], env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("module", MODULES)
def test_import_leaves_the_backend_unstarted(started, module):
    assert module in started, f"a module imported before {module} started JAX's backend: {started}"
    assert started[module] is None, f"importing {module} started JAX's backend: {started[module]}"
    assert started["device_count"] == 2  # the setting took effect: two CPU devices


def test_the_check_sees_a_started_backend():
    """The check can fail: an array made after the imports starts the backend, and the setting is then refused."""
    env = {key: value for key, value in os.environ.items() if key != "XLA_FLAGS"} | {"JAX_PLATFORMS": "cpu"}
    script = SCRIPT.replace("importlib.import_module(module)", "importlib.import_module(module); jax.numpy.zeros(1)")
    done = subprocess.run([sys.executable, "-c", script, "json"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["json"] is not None and "jax_num_cpu_devices" in result["json"], result
