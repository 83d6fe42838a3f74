r"""Threshold crossings of sampled traces: the one detector behind spike times, spike counts and spike losses.

A crossing upward of $\theta$ lies between samples $i$ and $i+1$ when $v_i < \theta \le v_{i+1}$; its time is
interpolated linearly, $t = t_i + (t_{i+1} - t_i)\,(\theta - v_i)/(v_{i+1} - v_i)$, so it is a smooth function of
the samples (differentiable while the number of crossings does not change). The soft count
$\tilde N = \sum_i \max(0, \sigma_{i+1} - \sigma_i)$, $\sigma_i = \operatorname{sigmoid}((v_i - \theta)/w)$, is a
differentiable surrogate of the count: a full upstroke through $\theta$ adds about 1 however finely it is sampled.

All functions take time on the **last** axis of `v` and are pure JAX (jit-able, vmap-able).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

__all__ = ["first_crossings", "soft_crossing_count", "upward_crossings"]


def upward_crossings(ts: ArrayLike, v: Array, threshold) -> tuple[Array, Array]:
    """`(up, times)`: whether each sample interval holds an upward crossing, and its interpolated time.

    `ts` has shape `(time,)` or broadcasts to `v`; both outputs have `v`'s shape less one on the last axis
    (`times` is the interval's start where there is no crossing).
    """
    v = jnp.asarray(v)
    ts = jnp.broadcast_to(jnp.asarray(ts, dtype=v.dtype), v.shape)
    v0, v1 = v[..., :-1], v[..., 1:]
    up = (v0 < threshold) & (v1 >= threshold)
    dv = jnp.where(up, v1 - v0, jnp.ones_like(v0))  # double where: no 0/0 (nor its NaN gradient) off the crossings
    frac = jnp.where(up, (threshold - v0) / dv, jnp.zeros_like(v0))
    return up, ts[..., :-1] + frac * (ts[..., 1:] - ts[..., :-1])


def first_crossings(ts: Array, v: Array, threshold, n: int, refractory: float = 0.0) -> tuple[Array, Array]:
    """The first `n` upward crossings of `threshold` by the 1-D trace `v(ts)`: `(times, found)`.

    A crossing within `refractory` (time units) after another one is not counted: on a noisy recording the
    upstroke of one spike can cross the threshold two or three times. `times` is `ts[-1]` where fewer than `n`
    crossings exist, and `found` says which are real.
    """
    up, times = upward_crossings(ts, v, threshold)
    if refractory > 0:
        # crossings in (t_i - refractory, t_i): c[i - 1] - c[j - 1] with j the first index inside the window
        c = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(up, dtype=jnp.int32)])
        first = jnp.searchsorted(ts[:-1], ts[:-1] - refractory, side="right")
        earlier = c[jnp.arange(up.shape[0])] - c[first]
        up = up & (earlier == 0)
    rank = jnp.cumsum(up)
    k = jnp.arange(1, n + 1)
    idx = jnp.argmax((rank[None, :] == k[:, None]) & up[None, :], axis=1)
    found = rank[-1] >= k
    return jnp.where(found, times[idx], ts[-1]), found


def soft_crossing_count(v: ArrayLike, threshold, width) -> Array:
    """The differentiable surrogate of the number of upward crossings along the last axis (see the module)."""
    s = jax.nn.sigmoid((jnp.asarray(v) - threshold) / width)
    return jnp.sum(jax.nn.relu(s[..., 1:] - s[..., :-1]), axis=-1)
