"""Frequency–current curves and rheobase of a Hodgkin–Huxley cell, batched over currents."""

from __future__ import annotations

from typing import Literal

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ..core.internal import Step, is_concrete, simulate
from ._features import firing_rate, spike_count
from ._hodgkin_huxley import DEFAULT_DT, HodgkinHuxley


def _voltage(t, y, args):
    return {"V": y["V"]}


def simulate_currents(
    model: HodgkinHuxley, protocol: Step, t_end: float, save_dt: float | None = None, **kwargs
) -> tuple[Array, Array]:
    """`(ts, V)` for a protocol whose amplitude carries a batch of currents (V shape `(..., time)`).

    The whole batch runs as one vectorised solve (the state is broadcast to the batch shape).
    """
    if kwargs.get("dt0") is None:
        kwargs["dt0"] = model.default_dt0()  # once: simulate would evaluate it again
    if save_dt is None:
        # on the step's grid; with a traced temperature the step is traced, so on the 6.3 °C step's grid
        save_dt = kwargs["dt0"] if is_concrete(kwargs["dt0"]) else DEFAULT_DT
    n = round(t_end / save_dt)
    dtype = model.C.dtype
    ts = jnp.arange(n + 1, dtype=dtype) * jnp.asarray(save_dt, dtype=dtype)
    shape = jnp.broadcast_shapes(model.batch_shape(), jnp.shape(protocol.amplitude))
    y0 = {k: jnp.broadcast_to(v, shape) for k, v in model.initial_state().items()}
    traj = simulate(model, protocol, ts, y0=y0, observe=_voltage, **kwargs)
    return traj.ts, jnp.moveaxis(traj.ys["V"], 0, -1)


def fi_curve(
    model: HodgkinHuxley,
    currents: ArrayLike,
    *,
    t_end: float = 1100.0,
    window: tuple[float, float] = (100.0, 1100.0),
    threshold: float = 0.0,
    **simulate_kwargs,
) -> Array:
    """Firing rate (Hz) for constant currents (µA/cm²) switched on at t = 0 from rest.

    The rate counts upward `threshold` crossings in `window` (ms) per second, as in the NEURON
    reference `hh/hh_fi_curve_coarse`. All currents run as one batched solve. Extra keyword
    arguments go to [`difflab.simulate`][] (`solver`, `dt0`, ...).
    """
    currents = jnp.asarray(currents, dtype=model.C.dtype)
    protocol = Step(currents, 0.0, jnp.inf)
    ts, V = simulate_currents(model, protocol, t_end, **simulate_kwargs)
    return firing_rate(ts, V, window, threshold)


def _fires(model, amplitudes, kind, start, stop, window, threshold, kwargs):
    protocol = Step(amplitudes, start, stop)
    ts, V = simulate_currents(model, protocol, stop, **kwargs)
    if kind == "any":
        return spike_count(ts, V, threshold) > 0
    window = (start + (stop - start) / 2, stop) if window is None else window
    return spike_count(ts, V, threshold, window=window) > 0


def rheobase(
    model: HodgkinHuxley,
    *,
    kind: Literal["any", "sustained"] = "any",
    low: float = 0.0,
    high: float = 20.0,
    start: float = 0.0,
    stop: float = 100.0,
    window: tuple[float, float] | None = None,
    tol: float = 1e-3,
    points: int = 8,
    threshold: float = 0.0,
    **simulate_kwargs,
) -> Array:
    """Threshold current (µA/cm²) of a step on `[start, stop)` ms, by batched bisection.

    `kind="any"`: the smallest current that elicits at least one spike; `"sustained"`: the
    smallest that still fires in `window` (ms; default the second half of the step), i.e.
    repetitive firing. Near the type II onset transients are long, so the sustained threshold
    depends on the window: NEURON's 6.215 µA/cm² corresponds to ``start=0, stop=1100,
    window=(100, 1100)`` (the F-I protocol; 6.2201 at the default dt = 5/64 ms, 6.2170 at 0.0625),
    its any-spike threshold 2.211 µA/cm² to the defaults (2.2109 at the default dt). Each round
    simulates the bracket's ends and `points` currents inside it at once and keeps the
    sub-interval where the outcome flips, until the bracket is narrower than `tol`. Returns the bracket's midpoint.

    Raises:
        ValueError: if `kind` is unknown, or the cell does not fire at `high` / fires at `low`.
    """
    if kind not in ("any", "sustained"):
        raise ValueError(f"kind must be 'any' or 'sustained'; got {kind!r}")
    dtype = model.C.dtype

    @eqx.filter_jit
    def fires(model, amplitudes):
        return _fires(model, amplitudes, kind, start, stop, window, threshold, simulate_kwargs)

    # every round simulates the bracket's ends and `points` currents inside it (one compiled shape)
    lo, hi = float(low), float(high)
    first = True
    while first or hi - lo > tol:
        grid = np.linspace(lo, hi, points + 2)
        out = np.asarray(fires(model, jnp.asarray(grid, dtype=dtype)))
        if first and (out[0] or not out[-1]):
            raise ValueError(
                f"rheobase must be bracketed by low and high: fires at low={low}: {bool(out[0])}, "
                f"at high={high}: {bool(out[-1])}"
            )
        first = False
        k = int(np.argmax(out)) if out[1:].any() else len(grid) - 1  # first current that fires
        k = max(k, 1)
        lo, hi = grid[k - 1], grid[k]
    return jnp.asarray((lo + hi) / 2, dtype=dtype)
