"""Running `posterior`'s chains: warm-up and blocks of draws (progress, checkpoints, Ctrl-C), or cluster tasks.

Locally the chains adapt, then draw in blocks, with progress, checkpoints and Ctrl-C between blocks; on a Dask
cluster they are cut into tasks of a few chains each.

Every chain is independent (its own keys, start and adaptation), so a block of chains run anywhere draws what it
would draw in one local run; and draw `i` of a chain has its own key (`_nuts`), so the blocks of draws, an
interruption and its resume leave the draws as they are.
"""

from __future__ import annotations

import math
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..core.internal import Progress, StopRequest
from ..data.internal import checkpoint_path
from ..ensembles.internal import run_blocks
from . import _checkpoint
from ._nuts import draw_block, warm_up
from ._sampling import Sampling


def run_chains(density, keys: jax.Array, starts: jax.Array, sampling: Sampling, parts: dict[str, str]):
    """Every chain's draws `z (chain, draw, d)`, `divergent` and `steps (chain, draw)` and adapted `step_size`.

    `density`: the log density of the sampler's coordinates; `keys`: one key per chain; `starts`: `(chain, d)`;
    `parts`: the problem's fingerprints by part, stored in checkpoints and checked on resume.
    """
    if sampling.client is not None:
        return _on_cluster(density, keys, starts, sampling)
    checkpoint = checkpoint_path(sampling.checkpoint, sampling.resume, "posterior")
    total = sampling.warmup + sampling.draws
    with Progress(total, "posterior", sampling.progress, unit="step", every=5.0) as bar:
        return _run_here(density, keys, starts, sampling, parts, checkpoint, bar)


def _run_here(density, keys, starts, sampling: Sampling, parts, checkpoint, bar: Progress | None) -> dict[str, Any]:
    """The chains in this process (see `run_chains`); `checkpoint` the file to write or `None`."""
    adapt_keys, draw_keys = _split(keys)
    run = {"drawn": _no_draws(starts)}

    def save():
        if checkpoint is not None and "states" in run:
            _checkpoint.save(checkpoint, states=run["states"], parameters=run["parameters"], drawn=run["drawn"],
                             parts=parts)  # fmt: skip

    try:
        with StopRequest() as stop:
            if sampling.resume is not None:
                like = eqx.filter_eval_shape(warm_up, density, adapt_keys, starts, 0)
                states, parameters, run["drawn"] = _checkpoint.load(
                    sampling.resume, parts=parts, states_like=like[0], parameters_like=like[1]
                )
                run.update(states=states, parameters=parameters)
                _advance(bar, sampling.warmup + _done(run), f"resumed at {_done(run)} draws")
            else:
                if bar is not None:
                    bar.note(f"posterior: warm-up of {sampling.chains} chains, {sampling.warmup} steps each "
                             "(the sampler compiles first)")  # fmt: skip
                run["states"], run["parameters"] = warm_up(density, adapt_keys, starts, sampling.warmup)
                jax.block_until_ready(run["states"])
                save()
                _advance(bar, sampling.warmup, "warm-up done")
            _draw(density, draw_keys, sampling, run, save, bar, stop)
            if stop.requested:
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        save()
        raise
    drawn = {name: value[:, : sampling.draws] for name, value in run["drawn"].items()}
    return {**drawn, "step_size": np.asarray(run["parameters"]["step_size"])}


def _draw(density, draw_keys, sampling: Sampling, run, save, bar, stop) -> None:
    """Blocks of `checkpoint_every` draws until `draws` are made or Ctrl-C asks to stop, saving after each."""
    length = min(sampling.checkpoint_every, sampling.draws)
    while _done(run) < sampling.draws and not stop.requested:
        done = _done(run)
        count = min(length, sampling.draws - done)
        run["states"], (z, divergent, steps) = draw_block(
            density, run["states"], run["parameters"], draw_keys, jnp.asarray(done), jnp.asarray(count), length
        )
        new = {"z": z, "divergent": divergent, "steps": steps}
        # waits for the block: nothing of it runs on when the loop stops
        run["drawn"] = {k: np.concatenate([run["drawn"][k], np.asarray(new[k])[:, :count]], axis=1) for k in new}
        save()
        _advance(bar, count, f"{_done(run)} draws, {int(run['drawn']['divergent'].sum())} divergent")


def _split(keys: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Each chain's adaptation key and draw key."""
    pairs = jax.vmap(jax.random.split)(keys)
    return pairs[:, 0], pairs[:, 1]


def _no_draws(starts: jax.Array) -> dict[str, np.ndarray]:
    chains, d = starts.shape
    return {
        "z": np.zeros((chains, 0, d), starts.dtype),
        "divergent": np.zeros((chains, 0), bool),
        "steps": np.zeros((chains, 0), np.int64),
    }


def _done(run) -> int:
    return int(run["drawn"]["z"].shape[1])


def _advance(bar: Progress | None, n: int, message: str) -> None:
    if bar is not None:
        bar.advance(message, n=n)


def _on_cluster(density, keys, starts, sampling: Sampling) -> dict[str, Any]:
    """The chains in tasks of `chains_per_task` on the cluster of `sampling.client`, gathered in chain order."""
    chains = starts.shape[0]

    def blocks(workers: int) -> list[tuple[str, tuple[jax.Array, np.ndarray]]]:
        size = sampling.chains_per_task or math.ceil(chains / workers)
        cuts = [slice(i, min(i + size, chains)) for i in range(0, chains, size)]
        label = lambda c: f"{c.start}–{c.stop - 1}" if c.stop - c.start > 1 else str(c.start)  # noqa: E731
        return [(label(c), (keys[c], np.asarray(starts[c]))) for c in cuts]

    local = sampling.replace(client=None, chains_per_task=None, progress=False)
    results = run_blocks(sampling.client, _chains_task, (density, local), blocks, name="posterior", desc="posterior",
                         lost="chains {} could not be sampled", progress=sampling.progress)  # fmt: skip
    return {name: np.concatenate([r[name] for r in results]) for name in results[0]}


def _chains_task(shared, part) -> dict[str, Any]:
    """Some chains on a worker: the ordinary local run (no checkpoint, no progress)."""
    (density, sampling), (keys, starts) = shared, part
    return _run_here(density, keys, jnp.asarray(starts), sampling.replace(chains=len(starts)), {}, None, None)
