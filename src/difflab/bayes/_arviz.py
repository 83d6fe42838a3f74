"""`as_inference_data`: a posterior's draws as an ArviZ `InferenceData`, for ArviZ's summaries and plots.

ArviZ (Kumar et al., "ArviZ a unified library for exploratory analysis of Bayesian models in Python", JOSS 4, 2019)
reads MCMC output as groups of xarray Datasets with dims `(chain, draw)`: `posterior` for the draws and
`sample_stats` for the sampler's statistics, under the names its diagnostics and plots look for (`diverging`,
`n_steps`, `step_size`). `posterior` already returns the draws with these dims; this only regroups them.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import xarray as xr

from ..core.internal import optional_module

#: What the posterior's Dataset holds besides the draws, and their names in ArviZ's `sample_stats`.
SAMPLE_STATS = {"divergent": "diverging", "leapfrog_steps": "n_steps"}


def as_inference_data(post: xr.Dataset) -> Any:
    """The draws of [`difflab.posterior`][] as an `arviz.InferenceData` (ArviZ 0.x; `pip install 'difflab[posterior]'`).

    Groups:
        posterior: one variable per sampled parameter (and `noise` when it was sampled), dims `(chain, draw, ...)`,
            physical units in `units`, exactly the draws of `post`.
        sample_stats: `diverging` and `n_steps` (leapfrog steps) per draw, and `step_size`, each chain's adapted
            step (in the sampler's whitened coordinates) repeated over its draws.

    The attrs of both groups are `post`'s (sampler, chains, warm-up, noise, step), with `inference_library`.
    `az.summary(idata)` then gives ArviZ's own R-hat and ESS, and `az.plot_trace(idata)` marks the divergences.

    Raises:
        TypeError: `post` is not a Dataset returned by `posterior`.
    """
    if not isinstance(post, xr.Dataset) or "divergent" not in post or "rhat" not in post:
        raise TypeError(f"post must be the xarray Dataset returned by difflab.posterior; got {type(post).__name__}")
    with warnings.catch_warnings():
        # ArviZ 0.23 announces its 1.0 refactor when first imported; difflab pins arviz < 1, so the notice is not
        # the user's to act on (and under warnings-as-errors it would stop the call)
        warnings.filterwarnings("ignore", message=r"\s*ArviZ is undergoing a major refactor", category=FutureWarning)
        arviz = optional_module("arviz", "posterior", "as_inference_data()")
    names = [str(name) for name in post["parameter"].values]
    attrs = {key: value for key, value in post.attrs.items() if not isinstance(value, np.ndarray)}
    attrs["inference_library"] = "blackjax (through difflab.posterior)"
    draws = xr.Dataset({name: post[name] for name in names}, attrs=attrs)
    stats = {arviz_name: post[name] for name, arviz_name in SAMPLE_STATS.items() if name in post}
    step_sizes = np.asarray(post.attrs["step_sizes"], dtype=float)
    stats["step_size"] = xr.DataArray(
        np.broadcast_to(step_sizes[:, None], (post.sizes["chain"], post.sizes["draw"])), dims=("chain", "draw")
    )
    return arviz.InferenceData(posterior=draws, sample_stats=xr.Dataset(stats, attrs=attrs))
