"""Strict dtype promotion for the quantum tests: a real never meets a complex number without an explicit cast.

Complex × real mixing is where a float32 state was silently widened to complex128 (or a value lost its imaginary
part); the library casts explicitly, with the dtype taken from the state, and these tests hold it to that.
"""

import jax
import pytest


@pytest.fixture(autouse=True)
def _strict_dtype_promotion():
    with jax.numpy_dtype_promotion("strict"):
        yield
