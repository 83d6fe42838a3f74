r"""Global strategies of `calibrate`: where the local optimiser starts and on which data it runs first.

A trace loss of a spiking or oscillating model has side minima: a start whose spikes (or periods)
are out of step with the data's is pulled towards a wrong count or phase, and Levenberg–Marquardt
stops there. Three strategies, chosen with `calibrate(..., run=RunOptions(strategy=...))`:

- `"multistart"`: every start runs on the whole data (the local optimiser alone).
- `"linear"`: the model estimates the fitted parameters from the data by least squares
  (a model's `linear_estimate`, the [`LinearlyEstimable`][difflab.LinearlyEstimable] hook; a Hodgkin–Huxley cell
  does so for channel conductances given the recorded potential), and every start begins there.
  The estimate depends on the data only, so no start can fall into a side minimum.
- [`GrowingWindows`][difflab.GrowingWindows]: fit the first part of the data, then twice as much,
  and so on up to all of it, each stage from the previous optimum. Generic: any model, any loss.
- `"auto"` (default): `"linear"` where the model offers an estimate for every fitted
  parameter, else `"multistart"`.

Measured on a 300 ms recording of the squid axon (17 spikes, 1 mV noise, 16 starts uniform in
`gNa ∈ (50, 200)`, `gK ∈ (10, 80)`, `gL ∈ (0.05, 1)`; benchmarks/calibration_global.py): see
docs/calibration.md.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from ._linear_estimate import EstimateUnavailable, linear_estimate_of
from ._losses import MSE

STRATEGY_NAMES = ("auto", "multistart", "linear")


@dataclasses.dataclass(frozen=True)
class GrowingWindows:
    """Successive window growth: fit `[t₀, t₀ + first·span]`, then multiply the window by `factor`.

    Each stage runs up to `steps` optimiser steps (least-squares solvers stop early once converged)
    from the previous stage's parameters; the last stage fits all the data.

    A stage solves the model only as far as its window ends, so its steps cost the window's length, not the
    recording's; each stage compiles its own step (its time grid is a constant of the program). On the L5PC
    (three 40 ms recordings) a step of the 10 ms window takes 3 s against 12 s, which repays the stage's 17 s of
    compilation after two steps; on the squid axon's 300 ms example (`examples/fit_spike_times.py`) the windows'
    compilation costs more than their steps save (14 s against 10 s for the whole fit).

    Args:
        first: the first window as a fraction of the data's time span, in (0, 1].
        factor: growth factor of the window from one stage to the next, > 1.
    """

    first: float = 0.125
    factor: float = 2.0

    def __post_init__(self):
        if not (0.0 < self.first <= 1.0) or not np.isfinite(self.first):
            raise ValueError(f"GrowingWindows first must be in (0, 1] (a fraction of the data span); got {self.first}")
        if not (self.factor > 1.0) or not np.isfinite(self.factor):
            raise ValueError(f"GrowingWindows factor must be > 1; got {self.factor}")

    def ends(self, ts: np.ndarray) -> list[float]:
        """The end time of every stage's window (the last is the last data time)."""
        span = float(ts[-1] - ts[0])
        out, fraction = [], self.first
        while fraction < 1.0:
            out.append(float(ts[0]) + fraction * span)
            fraction *= self.factor
        return [*out, float(ts[-1])]

    def describe(self) -> str:
        return f"GrowingWindows(first={self.first}, factor={self.factor})"


def check_strategy(strategy) -> str | GrowingWindows:
    """`strategy` if it is a name of `STRATEGY_NAMES` or a `GrowingWindows`; else a clear error."""
    if isinstance(strategy, GrowingWindows) or strategy in STRATEGY_NAMES:
        return strategy
    if strategy == "windows":
        return GrowingWindows()
    raise ValueError(
        f"strategy must be one of {STRATEGY_NAMES}, 'windows' or a difflab.GrowingWindows(...); got {strategy!r}"
    )


def describe(strategy) -> str:
    return strategy.describe() if isinstance(strategy, GrowingWindows) else str(strategy)


def linear_start(problem, fit, members, theta, starts: int) -> tuple[dict | None, str | None, bool]:
    """`theta` with every start of each recording moved to the model's linear estimate, or why not.

    Returns `(theta, None, _)` with the estimate, or `(None, reason, routine)`. `routine` is true where
    the estimate does not apply to this kind of fit at all (no estimate for these parameters, a loss or
    an observable that does not read the measured trace), false where it applies but these data or
    this estimate cannot be used (too coarse, out of the bounds, not finite): then `"auto"` says so.
    An estimate outside a parameter's domain is never moved inside it: a clipped estimate would
    replace a valid start with a bound.
    """
    protocols = members[0]
    paths = tuple(path for _, path in problem.paths)
    if problem.joined:
        return None, "the recordings are fitted jointly, and the estimate is one recording's", True
    if problem.observe is not None:
        return None, "the fit compares observe=... outputs, and the estimate reads the model's measured states", True
    if not isinstance(problem.loss, MSE):
        name = type(problem.loss).__name__
        return None, f"the loss is {name}; the estimate reads the measured trace, so it serves the 'mse' loss", True
    new = {name: np.array(v) for name, v in theta.items()}
    for r in range(fit.n_recordings):
        protocol = jax.tree.map(lambda x, r=r: x[r * starts], protocols)
        data = {k: v[r] for k, v in fit.values.items()}
        mask = {k: m[r] for k, m in fit.mask.items()}
        try:
            estimate = linear_estimate_of(problem.model, paths, protocol, fit.ts, data, mask)
        except EstimateUnavailable as err:
            return None, str(err), False
        if estimate is None or set(estimate) != set(paths):
            model = type(problem.model).__name__
            names = [n for n, _ in problem.paths]
            return None, f"{model} gives no estimate of {names} from data {sorted(fit.values)}", True
        for name, path in problem.paths:
            transform = problem.transforms[name]
            value = jnp.asarray(estimate[path], dtype=new[name].dtype)
            if not (np.isfinite(float(value)) and float(transform.clip(value)) == float(value)):
                where = _domain(transform)
                return None, f"the estimate {name} = {float(value):.4g} lies outside its bounds {where}", False
            new[name][r * starts : (r + 1) * starts] = np.asarray(transform.inverse(value))
    return {name: jnp.asarray(v) for name, v in new.items()}, None, False


def _domain(transform) -> str:
    """A transform's domain for a message: ``(lo, hi)``, ``(0, inf)`` or its name."""
    if hasattr(transform, "lo") and hasattr(transform, "hi"):
        return f"({float(transform.lo):g}, {float(transform.hi):g})"
    if float(transform.clip(jnp.asarray(-1.0))) > 0:
        return "(0, inf)"
    return type(transform).__name__


def window_problem(problem, end: float):
    """`problem` solved only as far as the window ending at `end` needs (`Problem.until`).

    The solve stops at the first save time at or after `end` (the data times, or the simulation grid the data are
    interpolated from) and holds its state for the later samples, which `window_members` masks out. A stage then
    costs its window's length instead of the whole recording's, at the price of compiling its own step (its grid
    is another constant of the program).
    """
    times = problem.sim_ts
    until = int(np.searchsorted(times, end, side="left")) + 1
    return dataclasses.replace(problem, until=min(max(until, 2), times.shape[0]))


def window_members(members, ts: np.ndarray, end: float):
    """`members` with every sample after `end` masked out (same shapes as the whole data's)."""
    protocol, values, mask = members
    inside = jnp.asarray(ts <= end)
    cut = {k: m & inside.reshape((1, -1) + (1,) * (m.ndim - 2)) for k, m in mask.items()}
    return protocol, values, cut
