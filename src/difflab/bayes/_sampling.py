"""`Sampling`: how many chains `posterior` runs, and how long each adapts and draws."""

from __future__ import annotations

import dataclasses

import numpy as np

#: The fields of `Sampling`: also the old keywords of `posterior` that it gathers.
SAMPLING_FIELDS = ("chains", "warmup", "draws")


@dataclasses.dataclass(frozen=True)
class Sampling:
    """The NUTS run of [`difflab.posterior`][]: chains, adaptation and kept draws, checked when it is made.

    Attributes:
        chains: independent chains, vmapped (a whole number >= 1). R-hat compares chains: it needs two and is NaN
            for one; four give a meaningful one.
        warmup: adaptation steps per chain (step size and diagonal mass matrix), discarded (>= 0). With 0 the
            chains use the unit mass matrix and a step of 0.5 in the whitened coordinates.
        draws: kept draws per chain (>= 1).

    Example:
        ```python
        post = difflab.posterior(model, protocol, data, params=params, key=key,
                                 sampling=difflab.Sampling(chains=4, warmup=300, draws=500))
        ```
    """

    chains: int = 4
    warmup: int = 500
    draws: int = 1000

    def __post_init__(self) -> None:
        for name, least in (("chains", 1), ("warmup", 0), ("draws", 1)):
            value = getattr(self, name)
            if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < least:
                raise ValueError(f"{name} must be a whole number >= {least}; got {value!r}")
