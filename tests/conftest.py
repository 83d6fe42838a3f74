"""Shared test configuration: float64, and the paths of the shared reference data."""

import jax

jax.config.update("jax_enable_x64", True)
