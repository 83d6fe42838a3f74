"""Reductions of a trace over disjoint windows, one per spike, in O(time) memory.

The spike features pick samples in one window per spike (between the crossings of a spike, from a peak to the
next one, ...). The windows of one kind never overlap, so every sample has at most one owner: the window it lies
in. `owner` labels the samples, and the reductions are `jax.ops.segment_*` over those labels, with label `K` (no
window) collecting the rest. Against a mask of `(windows, time)` this keeps the temporary memory of a trace at a
few arrays of its length, whatever the number of spikes.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array

__all__ = ["first_in", "last_in", "next_at_or_after", "owner", "position_of_min", "running_min", "window_starts"]


def owner(starts: Array, ends: Array, valid: Array, T: int) -> Array:
    """Per sample `i < T`, the window `k` with `starts[k] <= i < ends[k]`, or `K` where there is none.

    The valid windows must be disjoint and, in index order, sorted by their starts (as spikes are).
    """
    K = starts.shape[0]
    (order,) = jnp.nonzero(valid, size=K, fill_value=K)  # the valid windows, in order
    first = jnp.where(order < K, starts[jnp.minimum(order, K - 1)], T)  # sorted: invalid ones after the valid
    i = jnp.arange(T)
    c = jnp.searchsorted(first, i, side="right") - 1  # the last valid window starting at or before i
    k = jnp.where(c >= 0, order[jnp.clip(c, 0, K - 1)], K)
    inside = (k < K) & (i < ends[jnp.minimum(k, K - 1)])
    return jnp.where(inside, k, K)


def first_in(mask: Array, labels: Array, K: int) -> Array:
    """Per window, the first sample where `mask` holds (`T` where none)."""
    T = mask.shape[0]
    return jax.ops.segment_min(jnp.where(mask, jnp.arange(T), T), labels, num_segments=K + 1)[:K]


def last_in(mask: Array, labels: Array, K: int) -> Array:
    """Per window, the last sample where `mask` holds (`-1` where none)."""
    T = mask.shape[0]
    return jax.ops.segment_max(jnp.where(mask, jnp.arange(T), -1), labels, num_segments=K + 1)[:K]


def position_of_min(x: Array, labels: Array, K: int) -> Array:
    """Per window, the first sample of its smallest `x` (`T` for an empty window)."""
    lowest = jax.ops.segment_min(x, labels, num_segments=K + 1)
    return first_in((x == lowest[labels]) & (labels < K), labels, K)


def window_starts(labels: Array) -> Array:
    """Where a run of one label begins (a window's first sample, or the first sample outside one)."""
    return jnp.concatenate([jnp.ones(1, bool), labels[1:] != labels[:-1]])


def running_min(x: Array, labels: Array) -> Array:
    """`x`'s running minimum within each window (restarting where the label changes)."""
    starts = window_starts(labels)

    def combine(a, b):
        (fa, ma), (fb, mb) = a, b
        return fa | fb, jnp.where(fb, mb, jnp.minimum(ma, mb))

    return jax.lax.associative_scan(combine, (starts, x))[1]


def next_at_or_after(mask: Array) -> Array:
    """Per sample `i`, the first `j >= i` where `mask` holds (`T` where none)."""
    T = mask.shape[0]
    return jax.lax.cummin(jnp.where(mask, jnp.arange(T), T), reverse=True)
