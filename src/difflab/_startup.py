"""What `import difflab` sets in JAX before anything else runs: 64-bit mode and XLA's CPU loop option.

See the package docstring (precision) and `difflab.core._xla_cpu` (loops over a small state as one CPU kernel).
"""

import os

import jax

from .core.internal import apply_small_loop_option

if "JAX_ENABLE_X64" not in os.environ:
    jax.config.update("jax_enable_x64", True)

apply_small_loop_option()
