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

from ._checks import as_float, check_increasing, is_concrete


class AbstractProtocol(eqx.Module):
    """A function of time `u(t)` that drives a model."""

    @abc.abstractmethod
    def __call__(self, t: ArrayLike) -> Array:
        """The input value at time `t`."""

    def jump_times(self) -> Float[Array, " jumps"]:
        """Times at which `u` (or its derivative) jumps; empty for smooth inputs."""
        return jnp.zeros((0,))

    def time_scale(self) -> float:
        """The finest time scale of the input (model time units); `inf` when it has none.

        [`difflab.simulate`][] keeps default steps no longer than it: a fixed step is shortened to
        divide it (so that the steps of a held input land on its sample edges) and an adaptive step
        is capped at it. A Python float, computed from concrete values; `inf` when they are traced.
        """
        return np.inf


class Constant(AbstractProtocol):
    """`u(t) = value` for all t."""

    value: Array

    def __init__(self, value: ArrayLike):
        self.value = as_float(value, "value", complex_ok=True)

    def __call__(self, t: ArrayLike) -> Array:
        return self.value


class Step(AbstractProtocol):
    """A rectangular pulse: `u(t) = amplitude` for `start <= t < stop`, else 0.

    Args:
        amplitude: height of the pulse (units of the model's input, e.g. µA/cm²).
        start: switch-on time (model time units, e.g. ms).
        stop: switch-off time; `inf` keeps the pulse on.
    """

    amplitude: Array
    start: Array
    stop: Array

    def __init__(self, amplitude: ArrayLike, start: ArrayLike = 0.0, stop: ArrayLike = jnp.inf):
        self.amplitude = as_float(amplitude, "amplitude", complex_ok=True)
        self.start = as_float(start, "start", complex_ok=True)
        self.stop = as_float(stop, "stop", allow_inf=True, complex_ok=True)
        if is_concrete(self.start) and is_concrete(self.stop) and np.any(self.stop <= self.start):
            raise ValueError(f"stop must be > start; got start={start}, stop={stop}")

    def __call__(self, t: ArrayLike) -> Array:
        on = (t >= self.start) & (t < self.stop)
        return jnp.where(on, self.amplitude, jnp.zeros_like(self.amplitude))

    def jump_times(self) -> Array:
        return jnp.stack([self.start, self.stop])

    def time_scale(self) -> float:
        """The pulse duration."""
        return min_concrete(self.stop - self.start)


class Ramp(AbstractProtocol):
    """A linear ramp from 0 at `start` to `amplitude` at `stop`, zero outside `[start, stop)`."""

    amplitude: Array
    start: Array
    stop: Array

    def __init__(self, amplitude: ArrayLike, start: ArrayLike, stop: ArrayLike):
        self.amplitude = as_float(amplitude, "amplitude", complex_ok=True)
        self.start = as_float(start, "start", complex_ok=True)
        self.stop = as_float(stop, "stop", complex_ok=True)
        if is_concrete(self.start) and is_concrete(self.stop) and np.any(self.stop <= self.start):
            raise ValueError(f"stop must be > start; got start={start}, stop={stop}")

    def __call__(self, t: ArrayLike) -> Array:
        frac = (t - self.start) / (self.stop - self.start)
        on = (t >= self.start) & (t < self.stop)
        return jnp.where(on, frac * self.amplitude, jnp.zeros_like(self.amplitude))

    def jump_times(self) -> Array:
        return jnp.stack([self.start, self.stop])

    def time_scale(self) -> float:
        """The ramp duration."""
        return min_concrete(self.stop - self.start)


class AbstractInterpolated(AbstractProtocol):
    """Samples `(times[i], values[i])` joined linearly and held constant outside (shared by two protocols)."""

    times: Float[Array, " n"]
    values: Array
    #: The shortest sample spacing, fixed when the samples are given (static: it sets the step of a
    #: compiled solve, and must be known when the samples themselves are traced, as in a fit).
    spacing: float = eqx.field(static=True)
    #: Whether the samples lie on a uniform grid (each within a quarter spacing of ``times[0] + k·spacing``;
    #: fixed with `spacing`): then a sample is found from ``t`` directly, not by a search.
    on_grid: bool = eqx.field(static=True)

    def __init__(self, times: ArrayLike, values: ArrayLike):
        self.times, self.values = _check_samples(times, values)
        self.spacing = sample_spacing(self.times)
        self.on_grid = on_uniform_grid(self.times, self.spacing)

    def __call__(self, t: ArrayLike) -> Array:
        return interp_rows(t, self.times, self.values, self._grid_spacing())

    def _grid_spacing(self) -> float | None:
        """The spacing for `search_samples`: the grid's, or ``None`` (search) off a uniform grid."""
        return self.spacing if self.on_grid else None

    def time_scale(self) -> float:
        """The shortest sample spacing (for a uniform grid, its span over the number of intervals)."""
        return self.spacing


class PiecewiseLinear(AbstractInterpolated):
    """Linear interpolation between `(times[i], values[i])`, held constant outside.

    Kinks are reported as jump times so that adaptive solvers step onto them.
    """

    def jump_times(self) -> Array:
        return self.times


SAMPLED_MODES = ("hold", "linear")


class Sampled(AbstractInterpolated):
    r"""Measured input samples (e.g. a recorded injected current), held or linearly interpolated.

    - `mode="hold"` (default; zero-order hold): $u(t) = v_k$ for $t_k \le t < t_{k+1}$, the last
      sample from $t_{n-1}$ on and the first before $t_0$. This is what a digital-to-analogue
      converter delivers, and what NEURON's `Vector.play` (`continuous=0`) and Brian2's
      `TimedArray` do with a recorded stimulus.
    - `mode="linear"`: straight lines between samples (NEURON's `continuous=1`), held
      constant outside.

    The shortest sample spacing is the protocol's [`time_scale`][difflab.AbstractProtocol.time_scale]:
    [`difflab.simulate`][]'s default fixed step divides it, so that steps land on the sample edges
    and a held input is constant over every step (integrated exactly by a midpoint rule), and an
    adaptive step is capped at it. Sample times are not reported as jump times (a recording has
    thousands of them). Samples must be finite: NaN in a recording is refused. Samples on a uniform
    grid (`on_grid`, as a digitiser records them) are found from the time directly, others by a binary
    search, which costs more inside a solver's step.

    Args:
        times: strictly increasing sample times (model time units, e.g. ms), at least two.
        values: samples `(n, ...)` in the model's input units (e.g. µA/cm²).
        mode: `"hold"` or `"linear"`.
    """

    mode: str = eqx.field(static=True)

    def __init__(self, times: ArrayLike, values: ArrayLike, mode: str = "hold"):
        if mode not in SAMPLED_MODES:
            raise ValueError(f"mode must be one of {SAMPLED_MODES}; got {mode!r}")
        super().__init__(times, values)
        self.mode = mode

    def __call__(self, t: ArrayLike) -> Array:
        spacing = self._grid_spacing()
        if self.mode == "linear":
            return interp_rows(t, self.times, self.values, spacing)
        index = jnp.clip(search_samples(self.times, t, spacing) - 1, 0, self.times.shape[0] - 1)
        return self.values[index]


class Sum(AbstractProtocol):
    """The sum of several protocols, `u(t) = Σ_k u_k(t)`."""

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

    def time_scale(self) -> float:
        """The finest time scale of the parts."""
        return min((p.time_scale() for p in self.protocols), default=np.inf)


def sample_spacing(times) -> float:
    """Shortest spacing of concrete sample `times`; `inf` when traced.

    A uniform grid (spacings equal up to the rounding of the times' dtype) gives `span / intervals`,
    free of the rounding of single differences, so that steps built from it land on the samples
    (float32 times of a 1000 ms recording at 0.025 ms differ by up to 1e-4 ms from sample to sample).
    """
    if not is_concrete(times):
        return np.inf
    raw = np.asarray(times)
    eps = np.finfo(raw.dtype).eps if np.issubdtype(raw.dtype, np.floating) else np.finfo(float).eps
    t = raw.astype(float)
    steps = np.diff(t)
    span = t[-1] - t[0]
    if steps.max() - steps.min() <= 16 * eps * max(abs(t[0]), abs(t[-1])):
        return float(span / steps.size)
    return float(steps.min())


def min_concrete(x) -> float:
    """Smallest finite entry of concrete `x` as a Python float; `inf` if none or traced."""
    if not is_concrete(x):
        return np.inf
    values = np.asarray(x, dtype=float)
    values = values[np.isfinite(values)]
    return float(values.min()) if values.size else np.inf


def interp_rows(t: ArrayLike, times: Array, values: Array, spacing: float | None = None) -> Array:
    """Linear interpolation of the rows of `values` (first axis on `times`) at `t`, clamped at the ends.

    The result has shape `t.shape + values.shape[1:]`; used by `Sampled(mode="linear")` (scalar `t`) and by the
    calibration objective to carry a simulated grid onto the data times (vector `t`). One search for all columns
    (see `search_samples`, ``spacing`` included), then `jnp.interp`'s formula.
    """
    t = jnp.asarray(t)
    i = jnp.clip(search_samples(times, t, spacing), 1, times.shape[0] - 1)
    lift = (...,) + (None,) * (values.ndim - 1)  # t's axes, then values' trailing ones
    t0, t1 = times[i - 1][lift], times[i][lift]
    v0, v1 = values[i - 1], values[i]
    dx = t1 - t0
    flat = jnp.abs(dx) <= np.spacing(np.finfo(dx.dtype).eps)  # no NaN gradient where two samples coincide
    out = jnp.where(flat, v0, v0 + ((t[lift] - t0) / jnp.where(flat, 1, dx)) * (v1 - v0))
    out = jnp.where(t[lift] < times[0], values[0], out)
    return jnp.where(t[lift] > times[-1], values[-1], out)


def search_samples(times: Array, t: ArrayLike, spacing: float | None = None) -> Array:
    r"""The number of samples at or before ``t``: `jnp.searchsorted(times, t, side="right")`.

    - ``spacing`` given (samples on a uniform grid, see `on_uniform_grid`): $k = \lfloor (t - t_0)/\Delta \rfloor$
      is then off by at most one, and one comparison each way corrects it: a few operations whatever the
      recording's length.
    - Otherwise a binary search (`jnp.searchsorted`'s default method, a loop of its own). Unrolled into
      straight-line code (``method="scan_unrolled"``) it made a 1 s HH solve with a 40000-sample recording
      slower on the CPU (176–190 against 128–130 ms), so the loop stays.
    """
    t = jnp.asarray(t)
    if spacing is None:
        return jnp.searchsorted(times, t, side="right")
    last = times.shape[0] - 1
    guess = jnp.floor((t - times[0]) / spacing)
    k = jnp.clip(guess, -1, last).astype(jnp.int32)  # the last sample at or before t; -1 before the first
    k = jnp.where((k >= 0) & (times[jnp.maximum(k, 0)] > t), k - 1, k)
    k = jnp.where((k < last) & (times[jnp.minimum(k + 1, last)] <= t), k + 1, k)
    return k + 1


def on_uniform_grid(times, spacing: float) -> bool:
    r"""Whether concrete ``times`` lie each within a quarter ``spacing`` of ``times[0] + k·spacing``.

    Then $\lfloor (t - t_0)/\Delta \rfloor$ is within one of the sample before ``t`` (see `search_samples`).
    Traced times are not known to: ``False``.
    """
    if not (is_concrete(times) and np.isfinite(spacing)):
        return False
    t = np.asarray(times, dtype=float)
    ideal = t[0] + np.arange(t.size) * spacing
    return bool(np.max(np.abs(t - ideal)) <= 0.25 * spacing)


def _check_samples(times: ArrayLike, values: ArrayLike) -> tuple[Array, Array]:
    times_arr = as_float(times, "times", complex_ok=True)
    values_arr = as_float(values, "values", complex_ok=True)
    if times_arr.ndim != 1 or times_arr.shape[0] < 2:
        raise ValueError(f"times must be 1-D with at least 2 samples; got shape {times_arr.shape}")
    if values_arr.shape[:1] != times_arr.shape:
        raise ValueError(f"values must have shape ({times_arr.shape[0]}, ...) to match times; got {values_arr.shape}")
    check_increasing(times_arr, "times")
    return times_arr, values_arr
