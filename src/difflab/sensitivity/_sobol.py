r"""Variance-based (Sobol') sensitivity indices: first-order by Saltelli 2010, total by Jansen 1999.

With $f_A$, $f_B$ and $f_{A_B^{(i)}}$ the outputs on the blocks of a [`Saltelli`][difflab.sensitivity.Saltelli]
design and $V$ the variance of $f$ over A and B together,

$$S_i = \frac{1}{V}\,\frac{1}{n}\sum_{j} f_B^{(j)}\bigl(f_{A_B^{(i)}}^{(j)} - f_A^{(j)}\bigr), \qquad
S_{T,i} = \frac{1}{V}\,\frac{1}{2n}\sum_{j}\bigl(f_A^{(j)} - f_{A_B^{(i)}}^{(j)}\bigr)^2$$

(Saltelli et al. 2010, table 2, (b) and (f); M. J. W. Jansen, "Analysis of variance designs for model output",
Comput. Phys. Commun. 117 (1999) 35-43). $S_i$ is the share of $V$ that $x_i$ explains alone, $S_{T,i}$ the share
it takes part in with any interaction. Confidence intervals are percentile bootstraps over the n base rows (each
resample keeps a row's A, B and A_B^(i) together). The outputs are centred on their mean over all points first:
$S_i$'s estimator is not invariant to a shift of f, and the centring removes the mean's share of its variance.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from ..core.internal import AbstractModel
from ..ensembles import sweep
from ._inputs import bootstrap, check_confidence, check_count, check_names, indices_dataset, outputs
from ._saltelli import Saltelli


def sobol_indices(
    model: AbstractModel,
    protocol: Any,
    ts: Any,
    bounds: Mapping[str, tuple[float, float]],
    observables: Mapping[str, Any] | Sequence[Any],
    *,
    n: int = 1024,
    seed: int = 0,
    resamples: int = 1000,
    confidence: float = 0.95,
    **sweep_kwargs: Any,
) -> xr.Dataset:
    """First-order and total Sobol' indices of `observables` over uniform `bounds`, with bootstrap intervals.

    Runs the `n (d + 2)` points of a [`Saltelli`][difflab.sensitivity.Saltelli] design through
    [`difflab.sweep`][] (chunked; with `directory=` written per chunk and resumed after a stop) and estimates
    the indices with [`sobol_analyze`][difflab.sensitivity.sobol_analyze].

    Args:
        model: the base model; parameters named in `bounds` are replaced.
        protocol: the input shared by all points.
        ts: save times (ms for neurons).
        bounds: `{parameter: (low, high)}`, each uniform on its interval, in the parameter's units.
        observables: as for `sweep`: `{name: fn}` or `{name: (fn, units)}`, `fn(trajectory) -> array`.
        n: base rows (a power of 2 >= 16); the cost is `n (d + 2)` solves.
        seed: the Sobol' scrambling and the bootstrap's resampling.
        resamples: bootstrap resamples for the intervals (>= 100).
        confidence: the intervals' coverage, e.g. 0.95.
        **sweep_kwargs: passed to `sweep` (`chunk_size`, `directory`, `client`, `progress`, `options`, ...).

    Returns:
        A Dataset over (`output`, `parameter`): `first_order`, `total` and their `first_order_ci`, `total_ci`
        (dim `bound` = low, high); `variance` per output. Attributes name the method and the design.
    """
    design = Saltelli(n, bounds, seed=seed)
    check_names(model, design.bounds)
    result = sweep(model, protocol, ts, design, observables, **sweep_kwargs)
    return sobol_analyze(result, design, resamples=resamples, confidence=confidence, seed=seed)


def sobol_analyze(
    result: xr.Dataset, design: Saltelli, *, resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> xr.Dataset:
    """The indices from outputs already computed at the points of `design` (a sweep's result, in its order).

    Args:
        result: a Dataset with dim `sample` (as `sweep` returns) holding the observables.
        design: the [`Saltelli`][difflab.sensitivity.Saltelli] design those points came from.
        resamples: bootstrap resamples (>= 100).
        confidence: coverage of the intervals.
        seed: the bootstrap's resampling.

    Raises:
        ValueError: an output not finite (or a failed solve) at some point, named by point and parameters.
    """
    if not isinstance(design, Saltelli):
        raise TypeError(f"design must be the Saltelli design of the points; got {type(design).__name__}")
    check_count("resamples", resamples, 100, "bootstrap resamples for a percentile interval")
    check_confidence(confidence)
    values = outputs(result)
    first: list[np.ndarray] = []
    total: list[np.ndarray] = []
    first_ci: list[np.ndarray] = []
    total_ci: list[np.ndarray] = []
    variance: list[float] = []
    for y in values.values():
        # centred on the mean of all points: S_i's estimator is not shift-invariant, and a large mean of f would
        # add its own noise (the expectation is unchanged; SALib centres the same way)
        fa, fb, fab = design.blocks(y - y.mean())
        all_rows = np.arange(design.n)[None]
        first.append(_first_order(fa, fb, fab, all_rows)[0])
        total.append(_total(fa, fb, fab, all_rows)[0])
        for estimator, cis in ((_first_order, first_ci), (_total, total_ci)):
            low_high = bootstrap(functools.partial(estimator, fa, fb, fab), design.n, resamples, confidence, seed)
            cis.append(np.stack(low_high, axis=-1))
        variance.append(np.var(np.concatenate([fa, fb])))
    attrs = {"method": "Sobol' indices: first order Saltelli 2010, total Jansen 1999; percentile bootstrap",
             "design": f"Saltelli(n={design.n}, seed={design.seed})", "confidence": str(confidence),
             "resamples": str(resamples)}  # fmt: skip
    ds = indices_dataset(
        {"first_order": np.array(first), "total": np.array(total), "first_order_ci": np.array(first_ci),
         "total_ci": np.array(total_ci)},
        list(values), design.names, attrs,
    )  # fmt: skip
    ds["variance"] = ("output", np.array(variance))
    ds["first_order"].attrs["long_name"] = "first-order Sobol' index S_i"
    ds["total"].attrs["long_name"] = "total Sobol' index S_Ti"
    return ds


def _variance(fa, fb, rows):
    return np.var(np.concatenate([fa[rows], fb[rows]], axis=-1), axis=-1)


def _first_order(fa, fb, fab, rows):
    """Saltelli 2010 (b): rows has shape (batch, n); returns (batch, d)."""
    fa_r, fb_r, fab_r = fa[rows], fb[rows], fab[:, rows]  # fab_r: (d, batch, n)
    return (np.mean(fb_r * (fab_r - fa_r), axis=-1) / _variance(fa, fb, rows)).T


def _total(fa, fb, fab, rows):
    """Jansen 1999 (Saltelli 2010 (f)): returns (batch, d)."""
    fa_r, fab_r = fa[rows], fab[:, rows]
    return (0.5 * np.mean((fa_r - fab_r) ** 2, axis=-1) / _variance(fa, fb, rows)).T
