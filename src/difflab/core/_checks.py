"""Eager input checks shared by the whole package (they raise before anything is traced)."""

from __future__ import annotations

import jax
import numpy as np


def is_concrete(x) -> bool:
    """True when ``x`` holds values (not a tracer inside jit/vmap/grad)."""
    return not isinstance(x, jax.core.Tracer)


def check_finite(x, name: str) -> None:
    """Raise ``ValueError`` naming ``name`` if concrete ``x`` holds NaN or inf."""
    if is_concrete(x):
        arr = np.asarray(x)
        bad = ~np.isfinite(arr)
        if bad.any():
            first = np.argwhere(bad)[0].tolist()
            raise ValueError(f"{name} must be finite; found {int(bad.sum())} NaN/inf value(s), first at index {first}")


def check_increasing(x, name: str) -> None:
    """Raise ``ValueError`` if concrete 1-D ``x`` is not strictly increasing."""
    if is_concrete(x):
        arr = np.asarray(x)
        steps = np.diff(arr)
        if (steps <= 0).any():
            i = int(np.argmax(steps <= 0))
            raise ValueError(
                f"{name} must be strictly increasing; {name}[{i + 1}] = {arr[i + 1]} follows {name}[{i}] = {arr[i]}"
            )


def check_nonnegative(x, name: str, units: str = "") -> None:
    """Raise ``ValueError`` if concrete ``x`` has a negative entry."""
    if is_concrete(x):
        arr = np.asarray(x)
        if (arr < 0).any():
            raise ValueError(f"{name} must be >= 0 {units}".rstrip() + f"; got {arr.min()}")


def check_positive(x, name: str, units: str = "") -> None:
    """Raise ``ValueError`` if concrete ``x`` has an entry <= 0."""
    if is_concrete(x):
        arr = np.asarray(x)
        if (arr <= 0).any():
            raise ValueError(f"{name} must be > 0 {units}".rstrip() + f"; got {arr.min()}")
