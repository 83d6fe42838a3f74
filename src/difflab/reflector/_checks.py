"""Eager checks of the reflector's inputs: extensions, source directions and vertex depths.

Values given at the prompt are checked before anything is traced and the error names the argument, what was
expected and what was received. Values inside `jax.jit`, `jax.vmap` or `jax.grad` (the optimisers trace the
extensions and the vertex depth) are not checked: a bound crossed by an iterate must not stop an optimisation.

The source direction must be a unit vector. It is refused rather than normalised because the usual wrong inputs,
the vertex V = -h s or the feed centre P = -0.534 R s passed in place of s, point the opposite way: normalising
them would silently turn the paraboloid upside down.
"""

from __future__ import annotations

import numpy as np

from ..core.internal import is_concrete
from ._constants import focal_surface_radius

#: Largest accepted | |s| - 1 |: s rounded to 6 decimals (as published) passes, a vertex or a feed position fails.
UNIT_TOLERANCE = 1e-5


def check_extensions(e, n_nodes: int, name: str = "e") -> None:
    """Refuse concrete extensions (m) that are not one finite number per node."""
    if not is_concrete(e):
        return
    arr = np.asarray(e)
    if arr.shape != (n_nodes,):
        raise ValueError(f"{name} must have shape ({n_nodes},) (one extension per node, m); got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        first = int(np.argmax(bad))
        raise ValueError(
            f"{name} must be finite (m, positive towards the centre); found {int(bad.sum())} NaN/inf value(s), "
            f"first {name}[{first}] = {arr[first]}"
        )


def check_unit_vector(s, name: str = "s") -> None:
    """Refuse a concrete direction that is not a unit vector (last axis of length 3)."""
    if not is_concrete(s):
        return
    arr = np.asarray(s, dtype=float)
    if arr.ndim == 0 or arr.shape[-1] != 3:
        raise ValueError(f"{name} must be a 3-vector (x, y, z) towards the source; got shape {arr.shape}")
    norm = np.linalg.norm(arr, axis=-1)
    bad = ~(np.abs(norm - 1.0) <= UNIT_TOLERANCE)  # NaN fails too
    if bad.any():
        got = arr.reshape(-1, 3)[int(np.argmax(bad.reshape(-1)))]
        raise ValueError(
            f"{name} must be a unit vector towards the source (|{name}| = 1 within {UNIT_TOLERANCE:g}); got "
            f"{name} = {got.tolist()} with |{name}| = {np.linalg.norm(got):.6g}. Use source_direction(alpha, beta) "
            f"(degrees); the vertex -h s and the feed centre -0.534 R s point away from the source"
        )


def check_positive(value, name: str, units: str, *, what: str = "") -> None:
    """Refuse a concrete `value` with an entry that is not a finite number > 0 (NaN included), naming `name`."""
    if not is_concrete(value):
        return
    arr = np.asarray(value, dtype=float)
    bad = ~(np.isfinite(arr) & (arr > 0))
    if bad.any():
        got = arr.reshape(-1)[int(np.argmax(bad.reshape(-1)))]
        label = f"{name} ({what}, {units})" if what else f"{name} ({units})"
        raise ValueError(f"{label} must be a finite number > 0; got {got}")


def check_depth(depth, radius, name: str = "depth") -> None:
    """Refuse a concrete vertex depth h (m) that is not finite or leaves no positive focal length h - 0.534 R."""
    if not is_concrete((depth, radius)):
        return
    h = np.asarray(depth, dtype=float)
    lowest = focal_surface_radius(float(np.max(np.asarray(radius))))
    bad = ~(h > lowest)  # NaN fails too
    if bad.any():
        got = h.reshape(-1)[int(np.argmax(bad.reshape(-1)))]
        raise ValueError(
            f"{name} (vertex depth |V|, m) must be finite and > 0.534 R = {lowest:.4f} m, so that the focal length "
            f"is positive (the contest's paraboloids have depths near 300.4-300.8 m); got {got}"
        )
