r"""Morris screening: elementary effects along trajectories; their mean, mean absolute value and spread.

Along a trajectory of a [`Morris`][difflab.sensitivity.Morris] design, the step that moves parameter i by
$\pm\Delta$ in the unit cube gives the elementary effect

$$EE_i = \frac{f(x + \Delta e_i) - f(x)}{\Delta}$$

(in the unit cube: an effect is the change of f across the whole interval's scale, so that parameters with
different units compare). Over the r trajectories, $\mu_i^* = \overline{|EE_i|}$ ranks importance (Campolongo et al.
2007), $\sigma_i$ (sample standard deviation) flags nonlinearity or interactions, and $\mu_i$ with $|\mu_i| <
\mu_i^*$ signals effects of both signs. $\mu^*$'s interval is a percentile bootstrap over trajectories. For a
linear $f = \sum c_i x_i$ every effect equals $c_i (\text{high}_i - \text{low}_i)$ exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from ..core.internal import AbstractModel
from ..ensembles import sweep
from ._inputs import bootstrap, check_confidence, check_count, check_names, indices_dataset, outputs
from ._morris_design import Morris


def morris(
    model: AbstractModel,
    protocol: Any,
    ts: Any,
    bounds: Mapping[str, tuple[float, float]],
    observables: Mapping[str, Any] | Sequence[Any],
    *,
    r: int = 20,
    levels: int = 4,
    seed: int = 0,
    confidence: float = 0.95,
    **sweep_kwargs: Any,
) -> xr.Dataset:
    """Morris elementary effects of `observables` over `bounds`: `r (d + 1)` solves through [`difflab.sweep`][].

    Args:
        model: the base model; parameters named in `bounds` are replaced.
        protocol: the input shared by all points.
        ts: save times.
        bounds: `{parameter: (low, high)}` in the parameter's units.
        observables: as for `sweep`.
        r: trajectories (chosen among `10 r` for spread, Campolongo et al. 2007).
        levels: grid levels p (even).
        seed: the trajectories' draws and the bootstrap.
        confidence: coverage of `mu_star_ci`.
        **sweep_kwargs: passed to `sweep` (`chunk_size`, `directory`, `client`, `options`, ...).

    Returns:
        A Dataset over (`output`, `parameter`): `mu`, `mu_star`, `sigma`, `mu_star_ci` (dim `bound`).
    """
    design = Morris(r, bounds, levels=levels, seed=seed)
    check_names(model, design.bounds)
    result = sweep(model, protocol, ts, design, observables, **sweep_kwargs)
    return morris_analyze(result, design, confidence=confidence, seed=seed)


def morris_analyze(
    result: xr.Dataset, design: Morris, *, resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> xr.Dataset:
    """Elementary-effect statistics from outputs already computed at the points of `design` (in its order)."""
    if not isinstance(design, Morris):
        raise TypeError(f"design must be the Morris design of the points; got {type(design).__name__}")
    check_count("resamples", resamples, 100, "bootstrap resamples for a percentile interval")
    check_confidence(confidence)
    d = len(design.bounds)
    moved, sign = _steps(design.unit().reshape(design.r, d + 1, d))
    stats: dict[str, list] = {"mu": [], "mu_star": [], "sigma": [], "mu_star_ci": []}
    values = outputs(result)
    for y in values.values():
        if y.shape[0] != design.r * (d + 1):
            raise ValueError(f"outputs hold {y.shape[0]} points; this Morris design has {design.r * (d + 1)}")
        effects = _effects(y.reshape(design.r, d + 1), moved, sign, design.delta)  # (r, d)
        stats["mu"].append(effects.mean(axis=0))
        stats["mu_star"].append(np.abs(effects).mean(axis=0))
        stats["sigma"].append(effects.std(axis=0, ddof=1))

        def mu_star(rows, e=effects):
            return np.abs(e[rows]).mean(axis=1)

        low, high = bootstrap(mu_star, design.r, resamples, confidence, seed)
        stats["mu_star_ci"].append(np.stack([low, high], axis=-1))
    attrs = {"method": "Morris elementary effects (unit-cube scale); percentile bootstrap over trajectories",
             "design": f"Morris(r={design.r}, levels={design.levels}, seed={design.seed})",
             "confidence": str(confidence)}  # fmt: skip
    return indices_dataset({k: np.array(v) for k, v in stats.items()}, list(values), design.names, attrs)


def _steps(unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each trajectory and step: which parameter moved, and in which direction (+1 or -1)."""
    diff = np.diff(unit, axis=1)  # (r, d, d): step k's change of every parameter
    moved = np.argmax(np.abs(diff), axis=2)
    sign = np.sign(np.take_along_axis(diff, moved[..., None], axis=2)[..., 0])
    return moved, sign


def _effects(y: np.ndarray, moved: np.ndarray, sign: np.ndarray, delta: float) -> np.ndarray:
    """Elementary effects (r, d), column i holding the effect of parameter i in each trajectory."""
    steps = np.diff(y, axis=1) / (sign * delta)  # (r, d) in step order
    effects = np.empty_like(steps)
    np.put_along_axis(effects, moved, steps, axis=1)
    return effects
