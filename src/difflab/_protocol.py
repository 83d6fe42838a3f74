"""Protocols: inputs that drive a model in time (stimulus currents, pulses, measured samples).

Every protocol is an Equinox module whose numbers are ordinary array fields, so they can be
swept, vmapped and fitted like model parameters. Each protocol reports its discontinuities
through [`AbstractProtocol.jump_times`][]; [`difflab.simulate`][] hands them to the step-size
controller so that an adaptive solver steps exactly onto a pulse edge instead of over it.
"""

from __future__ import annotations

import abc

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from ._errors import check_finite, check_increasing, is_concrete


def _as_float(x: ArrayLike, name: str, allow_inf: bool = False) -> Array:
    """``x`` as a floating array (Python floats stay weakly typed so float32 models stay float32)."""
    arr = jnp.asarray(x)
    if not jnp.issubdtype(arr.dtype, jnp.floating) and not jnp.issubdtype(arr.dtype, jnp.complexfloating):
        arr = arr.astype(float)
    if allow_inf:
        check_finite(jnp.where(jnp.isinf(arr), 0.0, arr), name)
    else:
        check_finite(arr, name)
    return arr


class AbstractProtocol(eqx.Module):
    """A function of time ``u(t)`` that drives a model."""

    @abc.abstractmethod
    def __call__(self, t: ArrayLike) -> Array:
        """The input value at time ``t``."""

    def jump_times(self) -> Float[Array, " jumps"]:
        """Times at which ``u`` (or its derivative) jumps; empty for smooth inputs."""
        return jnp.zeros((0,))


class Constant(AbstractProtocol):
    """``u(t) = value`` for all t."""

    value: Array

    def __init__(self, value: ArrayLike):
        self.value = _as_float(value, "value")

    def __call__(self, t: ArrayLike) -> Array:
        return self.value


class Step(AbstractProtocol):
    """A rectangular pulse: ``u(t) = amplitude`` for ``start <= t < stop``, else 0.

    Args:
        amplitude: height of the pulse (units of the model's input, e.g. µA/cm²).
        start: switch-on time (model time units, e.g. ms).
        stop: switch-off time; ``inf`` keeps the pulse on.
    """

    amplitude: Array
    start: Array
    stop: Array

    def __init__(self, amplitude: ArrayLike, start: ArrayLike = 0.0, stop: ArrayLike = jnp.inf):
        self.amplitude = _as_float(amplitude, "amplitude")
        self.start = _as_float(start, "start")
        self.stop = _as_float(stop, "stop", allow_inf=True)
        if is_concrete(self.start) and is_concrete(self.stop) and np.any(self.stop <= self.start):
            raise ValueError(f"stop must be > start; got start={start}, stop={stop}")

    def __call__(self, t: ArrayLike) -> Array:
        on = (t >= self.start) & (t < self.stop)
        return jnp.where(on, self.amplitude, jnp.zeros_like(self.amplitude))

    def jump_times(self) -> Array:
        return jnp.stack([self.start, self.stop])


class Ramp(AbstractProtocol):
    """A linear ramp from 0 at ``start`` to ``amplitude`` at ``stop``, zero outside ``[start, stop)``."""

    amplitude: Array
    start: Array
    stop: Array

    def __init__(self, amplitude: ArrayLike, start: ArrayLike, stop: ArrayLike):
        self.amplitude = _as_float(amplitude, "amplitude")
        self.start = _as_float(start, "start")
        self.stop = _as_float(stop, "stop")
        if is_concrete(self.start) and is_concrete(self.stop) and np.any(self.stop <= self.start):
            raise ValueError(f"stop must be > start; got start={start}, stop={stop}")

    def __call__(self, t: ArrayLike) -> Array:
        frac = (t - self.start) / (self.stop - self.start)
        on = (t >= self.start) & (t < self.stop)
        return jnp.where(on, frac * self.amplitude, jnp.zeros_like(self.amplitude))

    def jump_times(self) -> Array:
        return jnp.stack([self.start, self.stop])


class AbstractInterpolated(AbstractProtocol):
    """Samples ``(times[i], values[i])`` joined linearly and held constant outside (shared by two protocols)."""

    times: Float[Array, " n"]
    values: Array

    def __init__(self, times: ArrayLike, values: ArrayLike):
        self.times, self.values = _check_samples(times, values)

    def __call__(self, t: ArrayLike) -> Array:
        return _interp(t, self.times, self.values)


class PiecewiseLinear(AbstractInterpolated):
    """Linear interpolation between ``(times[i], values[i])``, held constant outside.

    Kinks are reported as jump times so that adaptive solvers step onto them.
    """

    def jump_times(self) -> Array:
        return self.times


class Sampled(AbstractInterpolated):
    """Measured input samples (e.g. a recorded injected current), linearly interpolated.

    Unlike [`PiecewiseLinear`][difflab.PiecewiseLinear], sample times are not reported as
    discontinuities (a recording has thousands of them); the solver's own step size control
    resolves the input. Samples must be finite: NaN in a recording is refused.
    """


class Sum(AbstractProtocol):
    """The sum of several protocols, ``u(t) = Σ_k u_k(t)``."""

    protocols: tuple[AbstractProtocol, ...]

    def __init__(self, *protocols: AbstractProtocol):
        for i, p in enumerate(protocols):
            if not isinstance(p, AbstractProtocol):
                raise TypeError(f"protocols[{i}] must be a protocol; got {type(p).__name__}")
        self.protocols = tuple(protocols)

    def __call__(self, t: ArrayLike) -> Array:
        return sum((p(t) for p in self.protocols[1:]), self.protocols[0](t))

    def jump_times(self) -> Array:
        return jnp.concatenate([jnp.ravel(p.jump_times()) for p in self.protocols])


def _interp(t: ArrayLike, times: Array, values: Array) -> Array:
    """Linear interpolation along the first axis of ``values`` (clamped at the ends)."""
    if values.ndim == 1:
        return jnp.interp(t, times, values)
    flat = values.reshape(values.shape[0], -1)
    out = jnp.stack([jnp.interp(t, times, flat[:, j]) for j in range(flat.shape[1])])
    return out.reshape(values.shape[1:])


def _check_samples(times: ArrayLike, values: ArrayLike) -> tuple[Array, Array]:
    times_arr = _as_float(times, "times")
    values_arr = _as_float(values, "values")
    if times_arr.ndim != 1 or times_arr.shape[0] < 2:
        raise ValueError(f"times must be 1-D with at least 2 samples; got shape {times_arr.shape}")
    if values_arr.shape[:1] != times_arr.shape:
        raise ValueError(f"values must have shape ({times_arr.shape[0]}, ...) to match times; got {values_arr.shape}")
    check_increasing(times_arr, "times")
    return times_arr, values_arr
