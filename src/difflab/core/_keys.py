"""The one check of a JAX random key, for every function that draws random numbers.

JAX has two kinds of key: the typed key `jax.random.key(seed)` (shape (), dtype `key<fry>`) and the legacy raw
key `jax.random.PRNGKey(seed)` (a uint32 array of shape (2,)). Anything else (a seed, a NumPy array, a batch of
keys, `None`) would fail deep inside `jax.random` with a message that names neither the argument nor how to make a
key, or, for a uint32 array of another length, be read as key data of another PRNG implementation.
Reference: the JAX documentation, "jax.random" (typed and legacy keys).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def _is_one_key(key) -> bool:
    """True for one typed key or one legacy uint32 key of shape (2,), concrete or traced."""
    if not isinstance(key, jax.Array):  # tracers are jax.Array too: their shape and dtype are known
        return False
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return key.shape == ()
    return key.dtype == jnp.uint32 and key.shape == (2,)


def _describe(key) -> str:
    if hasattr(key, "dtype") and hasattr(key, "shape"):  # JAX and NumPy arrays, tracers
        return f"{type(key).__name__} of dtype {key.dtype} and shape {tuple(key.shape)}"
    shown = repr(key) if len(repr(key)) <= 60 else repr(key)[:57] + "..."
    return f"{type(key).__name__} {shown}"


def check_key(key, name: str = "key") -> None:
    """Raise `TypeError` naming `name` unless `key` is one JAX random key.

    Accepted: a typed key (`jax.random.key(seed)`, shape ()) or a legacy key (`jax.random.PRNGKey(seed)`, a
    uint32 jax array of shape (2,)), concrete or traced. Refused with one message: anything else, `None` included
    (callers whose key is optional check `None` first, with their own rule such as "required when shots > 0").
    """
    if not _is_one_key(key):
        raise TypeError(
            f"{name} must be one JAX random key, made by jax.random.key(seed) (or the legacy "
            f"jax.random.PRNGKey(seed)); got {_describe(key)}"
        )
