"""Hodgkin–Huxley rate functions in NEURON's `hh` convention, safe at their removable singularities.

All rates are in 1/ms at 6.3 °C, the membrane potential `V` in mV (modern sign convention, rest ≈ −65 mV):

    α_m = 0.1 (V+40) / (1 − e^{−(V+40)/10})      β_m = 4 e^{−(V+65)/18}
    α_h = 0.07 e^{−(V+65)/20}                     β_h = 1 / (1 + e^{−(V+35)/10})
    α_n = 0.01 (V+55) / (1 − e^{−(V+55)/10})     β_n = 0.125 e^{−(V+65)/80}

α_m and α_n are 0/0 at V = −40 and −55 mV (limits 1.0 and 0.1 /ms). They are written as
`z / (e^z − 1)` with a series branch near `z = 0` behind a "double where", so values **and
gradients** stay finite there in float32 and float64.

Four of the six exponentials are powers of `w = e^{−(V+65)/80}` (`e^{−(V+65)/10} = w⁸`), so a
full rate evaluation costs two exponentials instead of six. Both channels call [`hh_rates`][]; XLA
merges the identical expressions, so a cell with Na and K channels still pays for two.

Reference: Hodgkin & Huxley, J. Physiol. 117:500 (1952); NEURON `hh.mod`.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

#: Below this |z| the series of z / (e^z − 1) is used (its truncation error there is < 1e-16).
_SERIES_BELOW = 0.05


def z_over_expm1(z: ArrayLike, ez: ArrayLike | None = None) -> Array:
    """`z / (e^z − 1)`, equal to 1 at `z = 0`, with finite values and gradients everywhere.

    `ez` may pass a precomputed `e^z` (e.g. from shared exponentials).
    """
    z = jnp.asarray(z)
    ez = jnp.exp(z) if ez is None else ez
    small = jnp.abs(z) < _SERIES_BELOW
    # Double where: the unused branch must not produce inf/NaN, or its (zero-weighted)
    # gradient would still be NaN.
    num = jnp.where(small, jnp.ones_like(z), z)
    den = jnp.where(small, jnp.ones_like(z), ez - 1)
    z2 = z * z
    series = 1 - z / 2 + z2 / 12 - z2 * z2 / 720 + z2 * z2 * z2 / 30240
    return jnp.where(small, series, num / den)


def vtrap(x: ArrayLike, y: ArrayLike) -> Array:
    """NEURON's `vtrap(x, y) = x / (e^{x/y} − 1)`, safe at `x = 0` (limit `y`).

    Use it to write new channels with removable singularities (e.g. `0.1 * vtrap(-(V + 40), 10)`).
    """
    y = jnp.asarray(y)
    return y * z_over_expm1(jnp.asarray(x) / y)


#: `vtrap_pair` holds |x/y| to this bound, where e^{x/y} stays finite in float32 (|x| ≤ 480 mV for y = 6 mV)
_PAIR_LIMIT = 80.0


def vtrap_pair(x: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    r"""`(vtrap(x, y), vtrap(−x, y))` from one exponential and one division.

    $$\mathrm{vtrap}(-x, y) = \frac{-x}{e^{-x/y} - 1} = \mathrm{vtrap}(x, y)\, e^{x/y},$$

    the pair that a channel's α and β often form (`NaTs2_t`: `α_m ∝ vtrap(−u, 6)`, `β_m ∝ vtrap(u, 6)`). Two
    `vtrap` calls cost two exponentials and two divisions; the L5PC's sodium rates are evaluated in most of its
    compartments at every step. `x/y` is clipped to ±80 (beyond ±480 mV for `y` = 6 mV the rates stay at their
    value there), so that neither member overflows to `inf · 0` in float32.
    """
    y = jnp.asarray(y)
    z = jnp.clip(jnp.asarray(x) / y, -_PAIR_LIMIT, _PAIR_LIMIT)
    ez = jnp.exp(z)
    v = y * z_over_expm1(z, ez)
    return v, v * ez


def q10_factor(celsius: ArrayLike, q10: float = 3.0, reference: float = 6.3) -> Array:
    """Temperature factor `q10^((celsius − reference)/10)` (= 1 at 6.3 °C for `hh`)."""
    return jnp.asarray(q10, dtype=jnp.result_type(celsius)) ** ((jnp.asarray(celsius) - reference) / 10)


def hh_rates(V: ArrayLike) -> dict[str, tuple[Array, Array]]:
    """`{"m": (α_m, β_m), "h": (α_h, β_h), "n": (α_n, β_n)}` in 1/ms at 6.3 °C.

    Args:
        V: membrane potential in mV (any shape).
    """
    V = jnp.asarray(V)
    u = V + 65
    # The barrier keeps XLA from folding products of exponentials back into new exponentials
    # (exp(a)·exp(b) → exp(a + b)), which would undo the sharing (measured: 4 → 2 exp per rate evaluation).
    w, e18 = jax.lax.optimization_barrier((jnp.exp(-u / 80), jnp.exp(-u / 18)))  # e^{-(V+65)/80}, e^{-(V+65)/18}
    w4 = (w * w) * (w * w)  # e^{-(V+65)/20}
    w8 = w4 * w4  # e^{-(V+65)/10}
    z_m = -(V + 40) / 10
    z_n = -(V + 55) / 10
    alpha_m = z_over_expm1(z_m, w8 * math.exp(2.5))
    alpha_n = 0.1 * z_over_expm1(z_n, w8 * math.exp(1.0))
    beta_h = 1 / (1 + w8 * math.exp(3.0))
    return {
        "m": (alpha_m, 4 * e18),
        "h": (0.07 * w4, beta_h),
        "n": (alpha_n, 0.125 * w),
    }
