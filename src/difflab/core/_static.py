"""A concrete array passed to a jitted function as a static argument: a constant of the compiled program."""

from __future__ import annotations

import numpy as np


class StaticArray:
    """A concrete array as a static (hashed) argument of `jax.jit`/`eqx.filter_jit`.

    The compiled program is keyed on the array's shape, dtype and bytes, and the function sees the values as numpy
    (concrete inside any trace: a jax array converted there would be a tracer). `simulate` needs its save times and
    its fixed-step grid concrete (they set the scan's trip count and where each step saves), so a jitted solve takes
    them this way: a second call with equal arrays reuses the program, other arrays compile another.
    """

    def __init__(self, array):
        self.array = np.asarray(array)
        self._key = (self.array.shape, self.array.dtype.str, self.array.tobytes())

    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, StaticArray) and self._key == other._key

    @property
    def shape(self):
        return self.array.shape
