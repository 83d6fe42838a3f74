"""`Sampling`: how `posterior` runs its chains: how many, how long, checkpoints, progress and a cluster."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np

#: The fields of `Sampling` that were keywords of `posterior` before it (gathered from old calls).
SAMPLING_FIELDS = ("chains", "warmup", "draws")


@dataclasses.dataclass(frozen=True)
class Sampling:
    """The NUTS run of [`difflab.posterior`][]: chains, adaptation, kept draws and how the run is carried out.

    Checked when it is made. The run fields mean what [`RunOptions`][difflab.RunOptions]'s fields of the same
    names mean for `calibrate`.

    Attributes:
        chains: independent chains, vmapped (a whole number >= 1). R-hat compares chains: it needs two and is NaN
            for one; four give a meaningful one.
        warmup: adaptation steps per chain (step size and diagonal mass matrix), discarded (>= 0). With 0 the
            chains use the unit mass matrix and a step of 0.5 in the whitened coordinates.
        draws: kept draws per chain (>= 1). Draw `i` of a chain is the same whatever `draws` is: resuming a
            checkpoint with more draws continues the chains (the remedy for a low ESS), with fewer returns the
            first ones.
        checkpoint: netCDF file written atomically after the warm-up, every `checkpoint_every` draws, at the end
            and on Ctrl-C (which stops after the warm-up or block of draws in progress; a second Ctrl-C stops at
            once). An existing file is never overwritten unless it is `resume`.
        checkpoint_every: draws per block (a whole number >= 1; default 100): the chains run this many draws
            between two checkpoint writes and progress reports.
        resume: a checkpoint to continue from, exactly where it stopped: the same draws as a run that was never
            interrupted. Refused, naming what differs, when the model, data, noise, priors, start, chains,
            warm-up or key differ from those it was written for.
        progress: show a progress bar (`None`: only when stderr is a terminal; `True` on a log: a line per
            block).
        client: a `distributed.Client` or a Dask scheduler address: run the chains in blocks as tasks on the
            cluster's workers (each checked for difflab's version and float64 mode); every chain draws what it
            would locally with the same `key`. Not with `checkpoint` or `resume`.
        chains_per_task: chains per task with `client` (default: the chains shared evenly over the workers
            connected when the run begins).

    Example:
        ```python
        post = difflab.posterior(model, protocol, data, params=params, key=key,
                                 sampling=difflab.Sampling(chains=4, warmup=300, draws=500, checkpoint="post.nc"))
        ```
    """

    chains: int = 4
    warmup: int = 500
    draws: int = 1000
    checkpoint: str | os.PathLike | None = None
    checkpoint_every: int = 100
    resume: str | os.PathLike | None = None
    progress: bool | None = None
    client: Any = None
    chains_per_task: int | None = None

    def __post_init__(self) -> None:
        for name, least in (("chains", 1), ("warmup", 0), ("draws", 1), ("checkpoint_every", 1)):
            value = getattr(self, name)
            if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < least:
                raise ValueError(f"{name} must be a whole number >= {least}; got {value!r}")
        for name in ("checkpoint", "resume"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str | os.PathLike):
                raise TypeError(f"{name} must be a file path (str or os.PathLike) or None; got {value!r}")
        if self.progress is not None and not isinstance(self.progress, bool | np.bool_):
            raise TypeError(f"progress must be True, False or None; got {self.progress!r}")
        if self.client is not None and (self.checkpoint, self.resume) != (None, None):
            raise ValueError(
                "client: checkpoint and resume are not available on a cluster (the chains run in other processes); "
                "sample without them, or locally"
            )
        per_task = self.chains_per_task
        if per_task is not None and (not isinstance(per_task, int | np.integer) or isinstance(per_task, bool)
                                     or per_task < 1):  # fmt: skip
            raise ValueError(f"chains_per_task must be a whole number >= 1; got {per_task!r}")

    def replace(self, **changes: Any) -> Sampling:
        """A copy with `changes` (field names), checked again."""
        return dataclasses.replace(self, **changes)
