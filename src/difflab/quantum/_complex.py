"""Explicit complex casts where a real number meets a complex one (JAX's strict dtype promotion refuses implicit ones).

The complex dtype follows the precision of the real values: float32 parts give complex64, float64 parts complex128,
so a single-precision state is never silently widened (nor a double-precision one narrowed).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike


def complex_dtype(x: ArrayLike) -> np.dtype:
    """The complex dtype of `x`'s precision.

    `x`'s own if complex, complex64 for float32 (or narrower), else the default complex dtype (complex128 with x64).
    """
    dtype = jnp.result_type(x)
    if jnp.issubdtype(dtype, jnp.complexfloating):
        return np.dtype(dtype)
    if jnp.issubdtype(dtype, jnp.floating) and jnp.finfo(dtype).bits <= 32:
        return np.dtype(np.complex64)
    return np.dtype(jnp.result_type(complex))


def as_complex(x: ArrayLike, like: ArrayLike | None = None) -> Array:
    """`x` as a complex array of the precision of `like` (default: of `x` itself)."""
    return jnp.asarray(x).astype(complex_dtype(x if like is None else like))


def from_parts(re: ArrayLike, im: ArrayLike) -> Array:
    r"""$\mathrm{re} + i\,\mathrm{im}$ from real parts of one precision (the complex dtype of that precision)."""
    re, im = jnp.asarray(re), jnp.asarray(im)
    dtype = jnp.promote_types(re.dtype, im.dtype)
    return jax.lax.complex(re.astype(dtype), im.astype(dtype))
