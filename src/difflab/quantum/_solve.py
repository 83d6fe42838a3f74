r"""Solve a quantum model and keep what is asked: expectation values, optionally the states.

`solve_model` is the differentiable core (pure JAX, works under `jax.jit` / `jax.grad`): it calls
`difflab.simulate` with an `observe` function, so that only $\langle E_m\rangle(t)$ is saved unless states are asked
for. Expectation values are returned as real and imaginary parts, shape (time, observable).
"""

from __future__ import annotations

from collections.abc import Sequence

import diffrax
import jax.numpy as jnp
from jaxtyping import Array, Float

from ..core._model import StateInfo
from ..core._simulate import simulate
from ..core._trajectory import Trajectory
from ..solvers._tsit5 import UnrolledTsit5
from ._base import max_step
from ._lindblad import LindbladModel
from ._observables import expect_state
from ._operator import Operator, as_operator
from ._schrodinger import SchrodingerModel

__all__ = ["DEFAULT_MAX_STEPS", "controller_for", "solve_model"]

#: Default bound on solver steps: enough for rtol = atol = 1e-10 over ~100 oscillations; raise it for longer runs.
#: (Reverse-mode checkpointing and compile time grow with it.)
DEFAULT_MAX_STEPS = 16_384

QuantumModel = SchrodingerModel | LindbladModel


def controller_for(model: QuantumModel, rtol: float, atol: float, dtmax: float | None = None) -> diffrax.PIDController:
    """PID step-size control with `rtol`, `atol` and a maximum step: `dtmax`, or half the shortest pulse feature.

    The pulse features are read from concrete protocol values; when the protocols are traced (inside `jax.jit`),
    compute `max_step(model.drives)` outside and pass it as `dtmax`.
    """
    return diffrax.PIDController(rtol=rtol, atol=atol, dtmax=max_step(model.drives) if dtmax is None else dtmax)


def solve_model(
    model: QuantumModel,
    ts: Float[Array, " time"],
    *,
    exp_ops: Sequence[Operator] = (),
    y0: dict[str, Array] | None = None,
    save_states: bool = False,
    solver: diffrax.AbstractSolver | None = None,
    rtol: float = 1e-6,
    atol: float = 1e-8,
    dtmax: float | None = None,
    adjoint: diffrax.AbstractAdjoint | None = None,
    max_steps: int | None = DEFAULT_MAX_STEPS,
    throw: bool = True,
) -> Trajectory:
    r"""Evolve `model` over `ts` and save $\langle E_m\rangle(t)$ (and the states if `save_states`).

    Returns a `difflab.Trajectory` whose `ys` holds `expect_re` and `expect_im` (time, observable) and, with
    `save_states`, the state (`psi`, shape (time, 2, n), or `rho`, (time, 2, n, n): [real, imaginary]
    parts). Default solver `difflab.UnrolledTsit5` (Tsit5's method), PID step control
    at `rtol`/`atol`, maximum step `dtmax` (default: half the shortest drive feature, see `controller_for`); time
    in the model's `time_units`.
    """
    ops = tuple(as_operator(E, name=f"exp_ops[{m}]") for m, E in enumerate(exp_ops))
    state_names = tuple(s.name for s in model.states) if save_states else ()

    def observe(t, y, args):
        out = {name: y[name] for name in state_names}
        if ops:
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
        solver=UnrolledTsit5() if solver is None else solver,
        stepsize_controller=controller_for(model, rtol, atol, dtmax),
        adjoint=adjoint,
        max_steps=max_steps,
        throw=throw,
        observe=observe,
        observe_info=info,
    )
