"""`SolveOptions`: how a model is solved (solver, tolerances, steps, adjoint), one object for every entry point.

`simulate`, `run_ensemble`, `sweep`, `calibrate`, `profile`, `sesolve` and `mesolve` all take
`options=SolveOptions(...)`. Its fields are also accepted as keywords by the solving calls (`simulate(model, protocol,
ts, dt0=0.01)` is short for `options=SolveOptions(dt0=0.01)`), and both spellings meet the same checks, here, when
the options are made: a wrong value is refused by the name of its field before anything compiles.

The tolerances are one keyword away, as QuTiP's `options={"rtol": ...}` and dynamiqs' `method=Tsit5(rtol=...)` have
them: `SolveOptions(rtol=1e-8, atol=1e-10)` tightens the model's own adaptive controller (keeping its other
settings, such as the quantum models' maximum step of half the shortest pulse feature). A full
`stepsize_controller` replaces that controller instead; giving both is refused.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from typing import Any

import diffrax
import equinox as eqx
import numpy as np

from ._checks import check_numeric, check_solve_options, is_concrete

__all__ = ["DEFAULT_MAX_STEPS", "SOLVE_FIELDS", "SolveOptions", "merge_options", "split_solve_keywords"]

#: Default bound on the number of solver steps (enough for 1.1 s of HH at 0.025 ms steps).
DEFAULT_MAX_STEPS = 2**17


@dataclasses.dataclass(frozen=True)
class SolveOptions:
    """How to solve: every field `None` (or its default) leaves the model's own choice.

    Attributes:
        solver: a `diffrax.AbstractSolver`; default `model.default_solver()`.
        rtol: relative tolerance of the model's adaptive step controller (> 0).
        atol: absolute tolerance of that controller (≥ 0; `rtol` and `atol` not both 0).
        stepsize_controller: a `diffrax.AbstractStepSizeController` replacing the model's controller (not together
            with `rtol`/`atol`).
        dt0: initial or fixed step, > 0, in the model's time units; default `model.default_dt0()`.
        max_steps: bound on the number of steps (a positive integer, or `None` for no bound).
        adjoint: a `diffrax.AbstractAdjoint`: how gradients are taken; default diffrax's recursive checkpointing.
        throw: raise on a solver failure (`False`: the member fails, its values NaN, `succeeded` false).

    Example:
        ```python
        opts = difflab.SolveOptions(rtol=1e-8, atol=1e-10, max_steps=2**20)
        traj = difflab.simulate(model, protocol, ts, options=opts)
        ```
    """

    solver: diffrax.AbstractSolver | None = None
    rtol: float | None = None
    atol: float | None = None
    stepsize_controller: diffrax.AbstractStepSizeController | None = None
    dt0: float | Any | None = None
    max_steps: int | None = DEFAULT_MAX_STEPS
    adjoint: diffrax.AbstractAdjoint | None = None
    throw: bool = True

    def __post_init__(self):
        check_solve_options(self.solver, self.stepsize_controller, self.adjoint, self.max_steps)
        for name in ("rtol", "atol"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{name} must be a finite number >= 0; got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
        if self.rtol == 0 and self.atol == 0:
            raise ValueError("rtol and atol must not both be 0: no step can meet a zero tolerance; got 0, 0")
        if (self.rtol is not None or self.atol is not None) and self.stepsize_controller is not None:
            raise ValueError(
                "rtol/atol tighten the model's own step controller; with stepsize_controller given, set the tolerances "
                f"on it instead; got rtol={self.rtol!r}, atol={self.atol!r} and {self.stepsize_controller!r}"
            )
        if self.dt0 is not None and is_concrete(self.dt0):
            check_numeric(self.dt0, "dt0")
            step = np.asarray(self.dt0, dtype=float)
            if step.ndim != 0 or not np.isfinite(step) or step <= 0:
                raise ValueError(f"dt0 must be a finite step > 0 (model time units) or None; got {self.dt0!r}")
        if not isinstance(self.throw, bool | np.bool_):
            raise TypeError(f"throw must be True or False; got {self.throw!r}")

    def replace(self, **changes: Any) -> SolveOptions:
        """A copy with `changes` (field names), checked again."""
        unknown = sorted(set(changes) - SOLVE_FIELDS)
        if unknown:
            raise TypeError(
                f"SolveOptions has no field {unknown[0]!r}; its fields are {', '.join(sorted(SOLVE_FIELDS))}"
            )
        return dataclasses.replace(self, **changes)

    def controller(self, default: diffrax.AbstractStepSizeController) -> diffrax.AbstractStepSizeController:
        """The step controller to use, given the model's `default`: ours, or the default with our tolerances."""
        if self.stepsize_controller is not None:
            return self.stepsize_controller
        if self.rtol is None and self.atol is None:
            return default
        inner = default.controller if isinstance(default, diffrax.ClipStepSizeController) else default
        if not isinstance(inner, diffrax.PIDController):
            raise ValueError(
                f"rtol/atol tighten an adaptive step controller, but the model takes fixed steps "
                f"({type(inner).__name__}); set dt0 for its step, or pass an adaptive solver with "
                "stepsize_controller=diffrax.PIDController(rtol=..., atol=...)"
            )
        changed = inner
        if self.rtol is not None:
            changed = eqx.tree_at(lambda c: c.rtol, changed, self.rtol)
        if self.atol is not None:
            changed = eqx.tree_at(lambda c: c.atol, changed, self.atol)
        if inner is default:
            return changed
        return eqx.tree_at(lambda c: c.controller, default, changed)

    def keywords(self) -> dict[str, Any]:
        """The fields that differ from their defaults, as keywords of `simulate`."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if _differs(self, f.name)}


SOLVE_FIELDS = frozenset(f.name for f in dataclasses.fields(SolveOptions))


def _differs(options: SolveOptions, name: str) -> bool:
    """Whether field `name` is set to other than its default (`is` for the `None` defaults: arrays and modules)."""
    value, default = getattr(options, name), getattr(SolveOptions, name)
    if default is None:
        return value is not None
    return bool(value != default)


def merge_options(options: SolveOptions | None, keywords: Mapping[str, Any], where: str) -> SolveOptions:
    """`options` with the solve keywords given to `where` (a function's name) applied; unknown keywords refused.

    A keyword that `options` also sets is refused rather than silently preferring one of them.
    """
    if options is not None and not isinstance(options, SolveOptions):
        shown = "a dict (use difflab.SolveOptions(**...))" if isinstance(options, Mapping) else repr(options)
        raise TypeError(f"options must be a difflab.SolveOptions or None; got {shown}")
    unknown = sorted(set(keywords) - SOLVE_FIELDS)
    if unknown:
        raise TypeError(
            f"{where}() got an unexpected keyword argument {unknown[0]!r}; the solve keywords are the fields of "
            f"difflab.SolveOptions: {', '.join(sorted(SOLVE_FIELDS))}"
        )
    if options is None:
        return SolveOptions(**keywords)
    both = sorted(name for name in keywords if _differs(options, name))
    if both:
        raise ValueError(f"{where}(): {both[0]} is given both as a keyword and in options; give it once")
    return options.replace(**keywords) if keywords else options


def split_solve_keywords(keywords: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """`(the fields of SolveOptions, everything else)` among `keywords`."""
    solve = {k: v for k, v in keywords.items() if k in SOLVE_FIELDS}
    return solve, {k: v for k, v in keywords.items() if k not in SOLVE_FIELDS}
