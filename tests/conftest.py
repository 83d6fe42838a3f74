"""Shared test configuration: float64, strict rank promotion, and the paths of the shared reference data."""

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_numpy_rank_promotion", "raise")
