"""`RunOptions`: how a fit runs beyond the optimiser: global strategy, refinement, checkpoints, progress, cluster."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from ._strategies import GrowingWindows, check_strategy

#: The fields of `RunOptions`: also the old keywords of `calibrate` that it gathers.
RUN_FIELDS = (
    "strategy", "refine", "checkpoint", "checkpoint_every", "resume", "progress", "callback", "client",
    "starts_per_task",
)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """How `calibrate` runs the fit; the defaults suit a local fit that is not checkpointed.

    Attributes:
        strategy: the global strategy (see [`GrowingWindows`][difflab.GrowingWindows] and docs/calibration.md).
            `"auto"` (default): where the model can estimate every fitted parameter from the data by least squares
            (Hodgkin–Huxley conductances from a recorded potential), every start begins at that estimate, which
            lies in the global basin whatever the start; otherwise as `"multistart"`. `"linear"`: that estimate,
            or an error if the model has none. `"multistart"`: the starts as given, all data. `"windows"` or
            `GrowingWindows(first, factor)`: fit a growing first part of the data, each stage from the last one's
            optimum (any model and loss; not with a checkpoint: a stage's state is not resumable).
        refine: least-squares fits only: when solving the model more finely (half the fixed step, or tolerances
            ÷ 16) moves the optimum by more than a quarter of a standard error, continue the best start at a
            resolution fine enough by the step's order (at most three halvings, 8× the steps), so that the
            discretisation does not bias the estimate beyond its stated error. Never done when `options` fixes
            `dt0`, `solver`, `stepsize_controller`, `rtol` or `atol`: a
            [`CalibrationWarning`][difflab.CalibrationWarning] says so instead.
        checkpoint: netCDF file written atomically every `checkpoint_every` steps, at the end, and on Ctrl-C. An
            existing file is never overwritten unless it is `resume`.
        checkpoint_every: optimiser steps between two checkpoint writes (a whole number >= 1; default 25).
        resume: a checkpoint to continue from, exactly where it stopped.
        progress: show a progress bar (`None`: only when stderr is a terminal).
        callback: `callback(step, losses)` after every step (`losses` per member).
        client: a `distributed.Client` or a Dask scheduler address: fit the starts in blocks as tasks on the
            cluster's workers (each checked for difflab's version and float64 mode) and merge them; every start
            begins where it would locally with the same `key`. Not with `checkpoint`, `resume` or `callback`.
            See docs/sweeps.md.
        starts_per_task: starts per task with `client` (default: the starts shared evenly over the workers
            connected when the fit begins).

    Example:
        ```python
        run = difflab.RunOptions(checkpoint="fit.nc", checkpoint_every=10, progress=False)
        fit = difflab.calibrate(model, protocol, data, params=params, steps=200, run=run)
        ```
    """

    strategy: str | GrowingWindows = "auto"
    refine: bool = True
    checkpoint: str | os.PathLike | None = None
    checkpoint_every: int = 25
    resume: str | os.PathLike | None = None
    progress: bool | None = None
    callback: Callable[[int, np.ndarray], None] | None = None
    client: Any = None
    starts_per_task: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy", check_strategy(self.strategy))
        if not isinstance(self.refine, bool | np.bool_):
            raise TypeError(f"refine must be True or False; got {self.refine!r}")
        for name in ("checkpoint", "resume"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str | os.PathLike):
                raise TypeError(f"{name} must be a file path (str or os.PathLike) or None; got {value!r}")
        if not _whole(self.checkpoint_every):  # 0 would never write the checkpoint the user asked for
            raise ValueError(f"checkpoint_every must be a whole number of steps >= 1; got {self.checkpoint_every!r}")
        if self.progress is not None and not isinstance(self.progress, bool | np.bool_):
            raise TypeError(f"progress must be True, False or None; got {self.progress!r}")
        if self.callback is not None and not callable(self.callback):
            raise TypeError(
                f"callback must be a function callback(step, losses) or None; got {type(self.callback).__name__}"
            )
        self._check_cluster()
        if isinstance(self.strategy, GrowingWindows) and (self.checkpoint is not None or self.resume is not None):
            raise ValueError(
                "checkpoint/resume is not available with GrowingWindows (a stage's state is not resumable); "
                "run the windows without a checkpoint, or use strategy='multistart' from their result"
            )

    def _check_cluster(self) -> None:
        if self.client is not None and (self.checkpoint, self.resume, self.callback) != (None, None, None):
            raise ValueError(
                "client: checkpoint, resume and callback are not available on a cluster (the blocks of starts run "
                "in other processes); fit without them, or locally"
            )
        if self.starts_per_task is not None and not _whole(self.starts_per_task):
            raise ValueError(f"starts_per_task must be a whole number >= 1; got {self.starts_per_task!r}")

    def replace(self, **changes: Any) -> RunOptions:
        """A copy with `changes` (field names), checked again."""
        return dataclasses.replace(self, **changes)


def _whole(value) -> bool:
    """A whole number >= 1 (not a bool)."""
    return bool(not isinstance(value, bool) and isinstance(value, int | np.integer) and value >= 1)
