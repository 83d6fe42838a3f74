"""Multi-start fits on a Dask cluster: `calibrate(..., run=RunOptions(client=...))`, one task per block of starts.

The client draws every start (the model's own values, then the random draws of a local run with the same
`key`), cuts them into blocks of `starts_per_task` and submits one task per block. Each worker checks once per
call that it runs the client's difflab version and float64 mode, then runs the ordinary `calibrate` on its
block (all recordings, the block's starts given explicitly), so a start is fitted by the same code from the same
initial value as in a local run. The results come back as values (no shared folder is needed) and are merged:
per recording the block holding its best start gives the estimates, standard errors, covariance, diagnostics
and model; final losses, `solver_ok` and the history of every start are concatenated in start order.

A block whose least-squares solver converged earlier than others stops earlier: its history is carried
forward at its last values, as its members would stay put in a local run.

A worker that dies mid-task is replaced by the scheduler and the block is rerun elsewhere (a fit has no partial
output to lose). Checkpoints, `resume` and `callback` stay local-only: refused with `client`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from ..ensembles.internal import run_blocks
from ._result import Calibration


def fit_on_cluster(
    fit: Callable[..., Calibration],
    client: Any,
    starts_per_task: int | None,
    values: dict[str, Any],
    options: dict[str, Any],
    progress,
) -> Calibration:
    """Fit the starts `values` (name -> `(starts, *shape)` physical values) in blocks on the cluster.

    `fit`: the local fit each block runs (`calibrate`'s body, passed in so that this module does not import it back).
    `options`: the keywords of that fit other than `starts`; its `run` holds no client and no progress bar.
    """
    n_starts = len(next(iter(values.values())))

    def blocks(workers: int) -> list[tuple[int, dict[str, np.ndarray]]]:
        if options["run"].strategy == "linear":
            size = n_starts  # every start begins at the one estimate: one task reports it per start
        else:
            size = starts_per_task or math.ceil(n_starts / workers)
        starts = range(0, n_starts, size)
        return [(b, {name: np.asarray(v[i : i + size]) for name, v in values.items()}) for b, i in enumerate(starts)]

    results = run_blocks(client, _fit_block, (fit, options), blocks, name="fit", desc="calibrate",
                         lost="block of starts {} could not be fitted", progress=progress)  # fmt: skip
    return merge_blocks(results)


def _fit_block(shared: tuple[Callable[..., Calibration], dict[str, Any]], starts: dict[str, np.ndarray]) -> Calibration:
    """One block of starts on a worker: the ordinary local fit."""
    fit, options = shared
    return fit(**options, starts=starts)


def merge_blocks(blocks: list[Calibration]) -> Calibration:
    """One result from fits of consecutive blocks of starts of the same problem (see the module docstring)."""
    if len(blocks) == 1:
        return blocks[0]
    first = blocks[0]
    lead = [str(d) for d in first.losses.dims if d != "start"]
    renumber = lambda da: da.assign_coords(start=np.arange(da.sizes["start"]))  # noqa: E731
    losses = renumber(xr.concat([b.losses for b in blocks], dim="start"))
    solver_ok = renumber(xr.concat([b.solver_ok for b in blocks], dim="start"))
    terms = [b.term_losses for b in blocks if b.term_losses is not None]  # all or none: the blocks share the loss
    term_losses = renumber(xr.concat(terms, dim="start")) if terms else None
    steps = np.arange(1, max(b.history.sizes["step"] for b in blocks) + 1)
    history = xr.concat([b.history.reindex(step=steps, method="ffill") for b in blocks], dim="start")
    best = xr.concat([b.losses.fillna(np.inf).min("start") for b in blocks], dim="block")
    picks = np.atleast_1d(best.argmin("block").values)
    if not lead:
        c = blocks[int(picks[0])]
        estimates, covariance, diagnostics, model = c.estimates, c.covariance, c.diagnostics, c.model
    else:
        (dim,) = lead
        pick = lambda name: _per_recording([getattr(b, name) for b in blocks], picks, dim)  # noqa: E731
        estimates, covariance, diagnostics = pick("estimates"), pick("covariance"), pick("diagnostics")
        model = _stack_models([blocks[b].model for b in picks])
    return Calibration(
        model=model,
        estimates=estimates,
        losses=losses,
        history=history,
        covariance=covariance,
        solver_ok=solver_ok,
        steps=max(b.steps for b in blocks),
        checkpoint=None,
        strategy=first.strategy,
        diagnostics=diagnostics,
        term_losses=term_losses,
    )


def _per_recording(parts: list, picks: np.ndarray, dim: str):
    """Recording `r` of `parts[picks[r]]`, concatenated along `dim` (`None` where the results hold none)."""
    if parts[0] is None:
        return None
    return xr.concat([parts[b].isel({dim: [r]}) for r, b in enumerate(picks)], dim=dim)


def _stack_models(models: list):
    """A model whose array leaves hold recording `r` of `models[r]` (each with a leading recording axis).

    Leaves are matched by position in the first model's structure: models unpickled from different workers carry
    equal but distinct static metadata, which `jax.tree.map` would refuse to pair.
    """
    arrays = eqx.filter(models[0], eqx.is_array)
    leaves = [jax.tree.leaves(eqx.filter(m, eqx.is_array)) for m in models]
    stacked = [jnp.stack([ls[i][r] for r, ls in enumerate(leaves)]) for i in range(len(leaves[0]))]
    return eqx.combine(
        jax.tree.unflatten(jax.tree.structure(arrays), stacked), eqx.filter(models[0], eqx.is_array, inverse=True)
    )
