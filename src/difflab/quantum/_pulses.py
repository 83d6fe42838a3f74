r"""Pulse shapes for quantum drives (protocols: functions of time) and their shortest feature.

Times are in the model's time unit (ns or µs); amplitudes are angular frequencies in rad per time unit
(rad/ns or rad/µs), so that a drive term is $u(t)\,H_j$ with $\hbar = 1$.

`feature_time` returns the shortest time scale of a protocol (a Gaussian's σ, the shortest segment of a
piecewise-constant pulse, the sample spacing of a sampled waveform). Models cap the adaptive step at half of it, so
that a step cannot jump over a pulse (the failure reported for adaptive solvers in qiskit-dynamics#225).
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from ..core.internal import AbstractProtocol, check_finite, check_increasing, is_concrete, min_concrete


class GaussianPulse(AbstractProtocol):
    r"""Gaussian envelope, optionally truncated to a window and shifted to start and end at zero.

    $$ u(t) = A\,\frac{e^{-(t-t_c)^2/2\sigma^2} - e^{-w^2/8\sigma^2}}{1 - e^{-w^2/8\sigma^2}}
       \quad\text{for } |t - t_c| < w/2, \qquad 0 \text{ otherwise,} $$

    with $A$ = `amplitude` (rad per time unit), $t_c$ = `center`, $\sigma$ = `sigma`, $w$ = `width` (time units).
    Without `width` the pulse is the plain Gaussian $A e^{-(t-t_c)^2/2\sigma^2}$. With `derivative=True` the protocol
    is $du/dt$ instead (the quadrature of a DRAG pulse; Motzoi et al., PRL 103, 110501 (2009)).
    """

    amplitude: Array
    center: Array
    sigma: Array
    width: Array | None
    derivative: bool = eqx.field(static=True)

    def __init__(
        self,
        amplitude: ArrayLike,
        center: ArrayLike,
        sigma: ArrayLike,
        width: ArrayLike | None = None,
        *,
        derivative: bool = False,
    ):
        self.amplitude = jnp.asarray(amplitude, dtype=float)
        self.center = jnp.asarray(center, dtype=float)
        self.sigma = jnp.asarray(sigma, dtype=float)
        self.width = None if width is None else jnp.asarray(width, dtype=float)
        self.derivative = derivative
        for name, value in (("amplitude", self.amplitude), ("center", self.center), ("sigma", self.sigma)):
            check_finite(value, f"GaussianPulse.{name}")  # a NaN amplitude would drive the system with NaN
        if is_concrete(self.sigma) and not np.all(np.asarray(self.sigma) > 0):
            raise ValueError(f"sigma must be > 0 (time units); got {sigma}")
        if self.width is not None and is_concrete(self.width) and not np.all(np.asarray(self.width) > 0):
            raise ValueError(f"width must be > 0 (time units); got {width}")  # NaN and inf too

    def __call__(self, t: ArrayLike) -> Array:
        x = (t - self.center) / self.sigma
        g = jnp.exp(-0.5 * x**2)
        value = -x / self.sigma * g if self.derivative else g
        if self.width is None:
            return self.amplitude * value
        floor = jnp.exp(-0.125 * (self.width / self.sigma) ** 2)
        value = value if self.derivative else value - floor
        inside = jnp.abs(t - self.center) < 0.5 * self.width
        return jnp.where(inside, self.amplitude * value / (1.0 - floor), 0.0)

    def jump_times(self) -> Float[Array, " jumps"]:
        if self.width is None:
            return jnp.zeros((0,))
        return jnp.stack([self.center - 0.5 * self.width, self.center + 0.5 * self.width])

    def time_scale(self) -> float:
        """The width σ."""
        return min_concrete(self.sigma)


class PiecewiseConstant(AbstractProtocol):
    r"""$u(t) = v_i$ for $t_i \le t < t_{i+1}$ and 0 outside $[t_0, t_m)$.

    `times` has $m + 1$ strictly increasing edges (time units), `values` has $m$ entries (rad per time unit). The edges
    are reported as jump times, so adaptive solvers step onto every switch.
    """

    times: Float[Array, " edges"]
    values: Float[Array, " segments"]

    def __init__(self, times: ArrayLike, values: ArrayLike):
        times, values = jnp.asarray(times, dtype=float), jnp.asarray(values, dtype=float)
        if times.ndim != 1 or values.ndim != 1 or times.shape[0] != values.shape[0] + 1:
            raise ValueError(
                "times must hold one more edge than values has segments (both 1-D); "
                f"got times {times.shape} and values {values.shape}"
            )
        check_finite(times, "times")  # NaN edges pass the increasing test (every comparison is false)
        check_increasing(times, "times")
        check_finite(values, "values")
        self.times, self.values = times, values

    def __call__(self, t: ArrayLike) -> Array:
        index = jnp.clip(jnp.searchsorted(self.times, t, side="right") - 1, 0, self.values.shape[0] - 1)
        inside = (t >= self.times[0]) & (t < self.times[-1])
        return jnp.where(inside, self.values[index], 0.0)

    def jump_times(self) -> Float[Array, " jumps"]:
        return self.times

    def time_scale(self) -> float:
        """The shortest segment."""
        return min_concrete(jnp.diff(self.times))


def feature_time(protocol: AbstractProtocol) -> float:
    """Shortest time scale of a concrete protocol (time units); `inf` for constants or unknown shapes.

    Each protocol states its own ([`AbstractProtocol.time_scale`][difflab.AbstractProtocol.time_scale]).
    """
    if not isinstance(protocol, AbstractProtocol):
        return np.inf
    return protocol.time_scale()
