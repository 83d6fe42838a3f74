r"""Derivative-based global sensitivity measures (DGSM) from forward-mode derivatives at every design point.

For parameter $x_i$ uniform on $[a_i, b_i]$,

$$\nu_i = \mathbb{E}\left[\left(\frac{\partial f}{\partial x_i}\right)^2\right], \qquad
S_{T,i} \le \frac{(b_i - a_i)^2}{\pi^2}\,\frac{\nu_i}{V}$$

(I. M. Sobol', S. Kucherenko, "Derivative based global sensitivity measures and their link with global sensitivity
indices", Math. Comput. Simul. 79 (2009) 3009-3017; the constant $1/\pi^2$ for uniform inputs from M. Lamboni,
B. Iooss, A.-L. Popelin, F. Gamboa, Math. Comput. Simul. 87 (2013) 45-54). The expectation is the mean over a
scrambled Sobol' sample; the derivatives come from [`difflab.sweep`][]`(derivatives=True)`: one forward-mode pass
per point carries one tangent per parameter (no finite differences, no step to choose). $\nu_i$ is in
(output units / parameter units)$^2$; the bound on $S_{T,i}$ is dimensionless and screens out parameters whose
bound is small. $\overline{|\partial f/\partial x_i|}$ is reported too (`mean_abs`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from ..core.internal import AbstractModel
from ..ensembles import Sobol, sweep
from ..ensembles.internal import derivative_name
from ._inputs import (
    bootstrap,
    check_bounds,
    check_confidence,
    check_count,
    check_names,
    indices_dataset,
    outputs,
    refuse_nonfinite,
)


def dgsm(
    model: AbstractModel,
    protocol: Any,
    ts: Any,
    bounds: Mapping[str, tuple[float, float]],
    observables: Mapping[str, Any] | Sequence[Any],
    *,
    n: int = 256,
    seed: int = 0,
    resamples: int = 1000,
    confidence: float = 0.95,
    **sweep_kwargs: Any,
) -> xr.Dataset:
    """DGSM of `observables` over uniform `bounds`: `n` forward-mode solves (one tangent per parameter each).

    Args:
        model: the base model; parameters named in `bounds` are replaced.
        protocol: the input shared by all points.
        ts: save times.
        bounds: `{parameter: (low, high)}` in the parameter's units.
        observables: as for `sweep`; they must be differentiable functions of the trajectory.
        n: points of the scrambled Sobol' sample (a power of 2 >= 2).
        seed: the scrambling and the bootstrap.
        resamples: bootstrap resamples for `nu_ci` (>= 100).
        confidence: coverage of `nu_ci`.
        **sweep_kwargs: passed to `sweep` (`chunk_size`, `directory`, `options`, ...).

    Returns:
        A Dataset over (`output`, `parameter`): `nu`, `nu_ci` (dim `bound`), `mean_abs`, `total_bound`;
        `variance` per output.
    """
    check_count("n", n, 2, "Sobol' points; the variance in total_bound needs two")
    design = Sobol(n, check_bounds(bounds), seed=seed)
    check_names(model, design.bounds)
    result = sweep(model, protocol, ts, design, observables, derivatives=True, **sweep_kwargs)
    return dgsm_analyze(result, design.bounds, resamples=resamples, confidence=confidence, seed=seed)


def dgsm_analyze(
    result: xr.Dataset,
    bounds: Mapping[str, tuple[float, float]],
    *,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> xr.Dataset:
    """DGSM from a sweep's result with derivatives (`sweep(..., derivatives=True)`) over uniform `bounds`."""
    bounds = check_bounds(bounds)
    check_count("resamples", resamples, 100, "bootstrap resamples for a percentile interval")
    check_confidence(confidence)
    values = outputs(result)
    names = list(bounds)
    widths = np.array([high - low for low, high in bounds.values()])
    stats: dict[str, list] = {"nu": [], "nu_ci": [], "mean_abs": [], "total_bound": []}
    variance = []
    for output, grads in _partials(result, names).items():
        f = values[output]
        stats["nu"].append(np.mean(grads**2, axis=0))
        stats["mean_abs"].append(np.mean(np.abs(grads), axis=0))
        low, high = bootstrap(functools.partial(_mean_square, grads), len(f), resamples, confidence, seed)
        stats["nu_ci"].append(np.stack([low, high], axis=-1))
        variance.append(np.var(f, ddof=1))
        # a constant output has no variance to share out: its bound is 0 where nu is 0 and infinite elsewhere
        with np.errstate(divide="ignore", invalid="ignore"):
            stats["total_bound"].append(np.nan_to_num(widths**2 * stats["nu"][-1] / (np.pi**2 * variance[-1])))
    attrs = {"method": "DGSM (Sobol' & Kucherenko 2009) from forward-mode derivatives; percentile bootstrap",
             "confidence": str(confidence)}  # fmt: skip
    ds = indices_dataset({k: np.array(v) for k, v in stats.items()}, list(values), names, attrs)
    ds["variance"] = ("output", np.array(variance))
    ds["total_bound"].attrs["long_name"] = "upper bound on the total Sobol' index, (b - a)^2 nu / (pi^2 V)"
    return ds


def _mean_square(grads: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The mean squared partials of the resampled `rows` (shape (batch, n)): shape (batch, parameters)."""
    return np.mean(grads[rows] ** 2, axis=1)


def _partials(result: xr.Dataset, names: list[str]) -> dict[str, np.ndarray]:
    """`{output: (sample, parameter) derivatives}` in the order and naming of `outputs`; refused if not finite."""
    observables = [n.strip() for n in str(result.attrs.get("observables", "")).split(",") if n.strip()]
    out = {}
    for name in observables:
        key = derivative_name(name)
        if key not in result:
            raise ValueError(f"result has no {key!r}: run the sweep with derivatives=True")
        da = result[key].sel(parameter=names).transpose("sample", "parameter", ...)
        grads = np.asarray(da.values, dtype=float).reshape(da.sizes["sample"], len(names), -1)
        refuse_nonfinite(result, key, np.isfinite(grads).all(axis=(1, 2)), "a derivative is not finite")
        extra = da.shape[2:]
        for j in range(grads.shape[2]):
            out[name if not extra else f"{name}{list(np.unravel_index(j, extra))}"] = grads[:, :, j]
    return out
