r"""Solve a quantum model and keep what is asked: expectation values, optionally the states.

`solve_model` is the differentiable core (pure JAX, works under `jax.jit` / `jax.grad`): it calls
`difflab.simulate` with an `observe` function, so that only $\langle E_m\rangle(t)$ is saved unless states are asked
for. Expectation values are returned as real and imaginary parts, shape (time, observable).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import diffrax
import jax.numpy as jnp
from jaxtyping import Array, Float

from ..core.internal import SolveOptions, StateInfo, Trajectory, merge_options, simulate
from ..solvers.internal import materialise_at
from ._base import max_step
from ._lindblad import LindbladModel
from ._observables import expect_state
from ._operator import Operator, model_operator
from ._schrodinger import SchrodingerModel

QuantumModel = SchrodingerModel | LindbladModel


def controller_for(model: QuantumModel, rtol: float, atol: float, dtmax: float | None = None) -> diffrax.PIDController:
    """PID step-size control with `rtol`, `atol` and a maximum step: `dtmax`, or half the shortest pulse feature.

    The pulse features are read from concrete protocol values; when the protocols are traced (inside `jax.jit`),
    compute `max_step(model.drives)` outside and pass it as `dtmax`.
    """
    check_tolerances(rtol, atol)
    return diffrax.PIDController(rtol=rtol, atol=atol, dtmax=max_step(model.drives) if dtmax is None else dtmax)


def deprecated_dtmax(options: SolveOptions, dtmax, *, stacklevel: int = 3) -> SolveOptions:
    """`options` with the deprecated `dtmax` keyword folded into its step controller (with a `DeprecationWarning`)."""
    if dtmax is None:
        return options
    if options.stepsize_controller is not None:
        raise ValueError("pass stepsize_controller or the deprecated dtmax, not both")
    controller = options.controller(diffrax.PIDController(rtol=1e-6, atol=1e-8, dtmax=dtmax))
    warnings.warn(
        f"dtmax is deprecated; pass stepsize_controller=diffrax.PIDController(rtol=..., atol=..., dtmax={dtmax}) "
        "(the default controller sets dtmax to half the shortest drive feature)",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
    return options.replace(rtol=None, atol=None, stepsize_controller=controller)


def check_tolerances(rtol, atol, names: tuple[str, str] = ("rtol", "atol")) -> None:
    """Refuse tolerances given as keywords or fields (finite numbers >= 0, not both 0), naming them by `names`."""
    for name, value in zip(names, (rtol, atol)):
        if isinstance(value, bool) or not (_is_number(value) and math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    if rtol == 0 and atol == 0:
        raise ValueError(
            f"{names[0]} and {names[1]} must not both be 0: no step can meet a zero tolerance; got {rtol}, {atol}"
        )


def _is_number(value) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def solve_model(
    model: QuantumModel,
    ts: Float[Array, " time"],
    *,
    exp_ops: Sequence[Operator] = (),
    y0: dict[str, Array] | None = None,
    save_states: bool = False,
    options: SolveOptions | None = None,
    **solve_keywords: Any,
) -> Trajectory:
    r"""Evolve `model` over `ts` and save $\langle E_m\rangle(t)$ (and the states if `save_states`).

    Returns a `difflab.Trajectory` whose `ys` holds `expect_re` and `expect_im` (time, observable) and, with
    `save_states`, the state (`psi`, shape (time, 2, n), or `rho`, (time, 2, n, n): [real, imaginary]
    parts); time in the model's `time_units`. `options` (a [`SolveOptions`][difflab.SolveOptions], or its fields
    as keywords) are [`difflab.simulate`][]'s, with its defaults: the backend's solver (docs/backends.md) and the
    model's controller (PID at rtol 1e-6, atol 1e-8, maximum step half the shortest drive feature; `rtol` and
    `atol` tighten it). The keyword `dtmax` is deprecated: pass `stepsize_controller`.
    """
    dtmax = solve_keywords.pop("dtmax", None)
    opts = deprecated_dtmax(merge_options(options, solve_keywords, "solve_model"), dtmax)
    ops = tuple(model_operator(E, name=f"exp_ops[{m}]") for m, E in enumerate(exp_ops))
    state_names = tuple(s.name for s in model.states) if save_states else ()

    def observe(t, y, args):
        out = {name: y[name] for name in state_names}
        if ops:
            y = _shared_ket(t, y, len(ops))
            values = jnp.stack([expect_state(E, y) for E in ops], axis=1)
            out["expect_re"], out["expect_im"] = values[0], values[1]
        return out

    info = (
        StateInfo("expect_re", "1", "real part of the expectation value"),
        StateInfo("expect_im", "1", "imaginary part of the expectation value"),
        *(s for s in model.states if s.name in state_names),
    )
    return simulate(
        model,
        model.controls(),
        ts,
        y0=y0,
        options=opts,
        observe=observe,
        observe_info=info,
    )


def _shared_ket(t: Array, y: dict[str, Array], count: int) -> dict[str, Array]:
    """`y` with its ket written to memory once when `count` expectation values read it.

    At a save time the state is the solver's interpolant, a weighted sum of the step's slopes. Left to itself XLA
    fuses that sum into every expectation value, so each recomputes the whole ket from the eight arrays it is
    made of (10 observables of a 10-spin chain: ten times the interpolation, and the loop too large to run as one
    CPU kernel, `difflab.core._xla_cpu`). A density matrix is left as it is: its traces read only a few of its
    entries, which XLA then computes alone.
    """
    if "psi" not in y or count < 2:
        return y
    return {**y, "psi": materialise_at(y["psi"], t)}
