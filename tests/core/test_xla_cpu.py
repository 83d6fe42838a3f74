"""`import difflab` lets XLA run loops over a small state as one CPU kernel (difflab.core._xla_cpu)."""

import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab  # noqa: F401 - its import sets the option under test
from difflab.core._xla_cpu import OPTION, SMALL_LOOP_BYTES, with_small_loop_option

ENTRY = f"{OPTION}={SMALL_LOOP_BYTES}"


@pytest.mark.parametrize(
    "given, expected",
    [
        ("", f"--xla_backend_extra_options={ENTRY}"),
        ("--xla_force_host_platform_device_count=2",
         f"--xla_force_host_platform_device_count=2 --xla_backend_extra_options={ENTRY}"),
        # XLA keeps one list of backend options: ours joins the user's, a second flag would replace theirs
        ("--xla_backend_extra_options=a=1 --b=2", f"--xla_backend_extra_options=a=1,{ENTRY} --b=2"),
        # a threshold the user gives (0 turns the pass off) is theirs
        (f"--xla_backend_extra_options={OPTION}=0", f"--xla_backend_extra_options={OPTION}=0"),
    ],
)  # fmt: skip
def test_the_option_joins_the_users_flags_without_replacing_theirs(given, expected):
    assert with_small_loop_option(given) == expected


def test_a_loop_over_a_few_kilobytes_compiles_to_one_kernel():
    """512 float64 numbers (4 kB per iteration) are over XLA's default threshold (1 kB) and under difflab's."""
    if OPTION in os.environ.get("DIFFLAB_TEST_GIVEN_XLA_FLAGS", ""):
        pytest.skip("the suite was started with its own threshold")

    def decay(y):
        return jax.lax.fori_loop(0, 1000, lambda i, y: y - 0.001 * jnp.sin(y), y)

    y0 = jnp.linspace(0.0, 1.0, 512)
    compiled = jax.jit(decay).lower(y0).compile()
    assert "xla_cpu_small_call" in compiled.as_text()
    # the one kernel computes what the loop of kernels computes, step for step
    expected = np.asarray(y0)
    for _ in range(1000):
        expected = expected - 0.001 * np.sin(expected)
    np.testing.assert_allclose(np.asarray(compiled(y0)), expected, rtol=1e-13)


SCRIPT = """
import warnings, jax, jax.numpy as jnp
warnings.simplefilter("always")
{before}
with warnings.catch_warnings(record=True) as caught:
    import difflab
print([str(w.message)[:60] for w in caught if issubclass(w.category, RuntimeWarning)])
"""


def _run(before: str, flags: str) -> str:
    env = {**os.environ, "XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(before=before)], env=env, capture_output=True,
                         text=True, timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def test_a_backend_started_before_the_import_is_named_in_a_warning():
    assert "JAX's CPU backend started before difflab was imported" in _run("jnp.ones(2).block_until_ready()", "")
    # not when the user chose the threshold, nor when nothing ran before the import
    assert _run("jnp.ones(2).block_until_ready()", f"--xla_backend_extra_options={OPTION}=1024") == "[]"
    assert _run("", "") == "[]"
