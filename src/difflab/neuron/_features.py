"""Spike features of voltage traces: times, counts, rates and a differentiable surrogate.

All functions take `V` with time on the **last** axis (shape `(..., time)`; any leading batch
axes) and the matching save times `ts` (shape `(time,)` or broadcastable to `V`). They are
pure JAX: jit-able, vmap-able, and batched over the leading axes. Times in ms, rates in Hz.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from ..core.internal import soft_crossing_count, upward_crossings

#: Default bound on the number of spikes returned per trace by [`spike_times`][].
DEFAULT_MAX_SPIKES = 32


def spike_times(
    ts: Float[ArrayLike, "... time"],
    V: Float[ArrayLike, "... time"],
    threshold: float = 0.0,
    max_spikes: int = DEFAULT_MAX_SPIKES,
) -> Float[Array, "... spike"]:
    """Times (ms) of upward `threshold` crossings, linearly interpolated between samples.

    Returns shape `(..., max_spikes)`, NaN-padded after the last spike; spikes beyond
    `max_spikes` are dropped (check with [`spike_count`][]). Differentiable with respect to
    `V` (through the interpolation).
    """
    V = jnp.asarray(V)
    up, tc = upward_crossings(ts, V, threshold)
    batch = up.shape[:-1]
    up2 = up.reshape(-1, up.shape[-1])
    tc2 = tc.reshape(-1, tc.shape[-1])

    def one(u, t):
        (idx,) = jnp.nonzero(u, size=max_spikes, fill_value=-1)
        return jnp.where(idx >= 0, t[jnp.maximum(idx, 0)], jnp.nan)

    return jax.vmap(one)(up2, tc2).reshape(*batch, max_spikes)


def spike_count(
    ts: Float[ArrayLike, "... time"],
    V: Float[ArrayLike, "... time"],
    threshold: float = 0.0,
    window: tuple[float, float] | None = None,
) -> Array:
    """Number of upward `threshold` crossings (within `window = (t0, t1)`, ms, if given)."""
    V = jnp.asarray(V)
    up, tc = upward_crossings(ts, V, threshold)
    if window is not None:
        up = up & (tc >= window[0]) & (tc < window[1])
    return jnp.sum(up, axis=-1)


def firing_rate(
    ts: Float[ArrayLike, "... time"],
    V: Float[ArrayLike, "... time"],
    window: tuple[float, float],
    threshold: float = 0.0,
) -> Array:
    """Spikes in `window = (t0, t1)` (ms, crossing time in `[t0, t1)`) per second (Hz)."""
    count = spike_count(ts, V, threshold, window).astype(jnp.asarray(V).dtype)  # a rate in V's float dtype
    return count * (1000.0 / (window[1] - window[0]))


def soft_spike_count(V: Float[ArrayLike, "... time"], threshold: float = 0.0, width: float = 2.0) -> Array:
    r"""A smooth surrogate of the spike count for gradient-based calibration.

    $$\tilde N = \sum_i \max\bigl(0,\ \sigma_{i+1} - \sigma_i\bigr), \qquad
    \sigma_i = \operatorname{sigmoid}\bigl((V_i - \theta)/w\bigr),$$

    i.e. the total rise of a soft threshold indicator. A full upstroke through `θ` adds ≈ 1
    whatever the sampling; its gradient moves spike amplitudes across the threshold. `width`
    `w` in mV.
    """
    return soft_crossing_count(V, threshold, width)
