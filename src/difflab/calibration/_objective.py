"""The calibration problem as a pure function of unconstrained parameters, and the optimiser adapters.

`Problem` holds everything a fit needs except the parameters and the data of one member
(one recording × one start): the base model, the transforms, the simulation settings and the
loss. It is passed to the jitted step as an argument, so new data, new bounds or a new
initial model of the same shapes reuse the compiled step. The simulation's save times are the exception: they are
a constant of the program (`Problem.sim_grid`), because a fixed-step solve over concrete times runs as a scan with a
known trip count (`core._fixed_steps`), 12 % faster per Levenberg–Marquardt step than diffrax's `while_loop` over
traced times on the L5PC, and quicker to compile; a fit on other times compiles its own step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax
import optimistix as optx

from ..core.internal import AbstractModel, StaticArray, interp_rows, optax_update, set_paths, simulate
from ._jacobian import linearised_residuals
from ._losses import AbstractLoss
from ._transforms import AbstractTransform


class Problem(eqx.Module):
    """Model, fitted parameters, simulation settings and loss of a calibration."""

    model: AbstractModel
    transforms: dict[str, AbstractTransform]
    paths: tuple[tuple[str, str], ...] = eqx.field(static=True)
    #: the simulation's save times, concrete: the fixed-step solve runs as a scan whose trip count and save slots
    #: they set (traced times would run diffrax's `while_loop` instead, slower and longer to compile)
    sim_grid: StaticArray = eqx.field(static=True)
    data_ts: jax.Array
    interpolate: bool = eqx.field(static=True)
    names: tuple[str, ...] = eqx.field(static=True)
    loss: AbstractLoss
    sim_options: dict[str, Any]
    observe: Callable | None = eqx.field(static=True)
    #: the fixed step or the PID tolerances in `sim_options` were set by difflab (`resolve_default_step`,
    #: `traced_tolerances`), not chosen by the user
    step_resolved: bool = eqx.field(static=True, default=False)
    #: a joint fit of this many recordings (`Comparison(joint=True)`): every member's protocol carries them on a
    #: leading axis, and the prediction carries them after time, as the data do (`_measured.joined`); 0: not joint
    joined: int = eqx.field(static=True, default=0)
    #: solve only the first `until` save times and hold the state there for the later ones (a `GrowingWindows`
    #: stage, whose later samples the data mask out: the solve then costs the window, not the whole recording);
    #: `None`: all of them
    until: int | None = eqx.field(static=True, default=None)

    @property
    def sim_ts(self) -> np.ndarray:
        """The simulation's save times (numpy, concrete inside any trace)."""
        return self.sim_grid.array

    def physical(self, theta: dict[str, jax.Array]) -> dict[str, jax.Array]:
        """Physical parameter values from unconstrained ones."""
        return {name: self.transforms[name].forward(theta[name]) for name, _ in self.paths}

    def build(self, values: dict[str, jax.Array]) -> AbstractModel:
        """The model with fitted parameters replaced by physical `values`."""
        return set_paths(self.model, {path: values[name] for name, path in self.paths})

    def predict(self, values, protocol, adjoint=None):
        """Predicted outputs on the data times, and whether the solver succeeded."""
        return _predict(self, values, protocol, adjoint)

    def objective(self, theta, member, adjoint=None) -> jax.Array:
        """Scalar loss of one member `(protocol, data, mask)`."""
        protocol, data, mask = member
        pred, _ = self.predict(self.physical(theta), protocol, adjoint)
        return self.loss(pred, data, mask)

    def residuals(self, theta, member, adjoint=None) -> jax.Array:
        """Residual vector of one member (least-squares losses only); `sum(r**2)` is the loss."""
        protocol, data, mask = member
        pred, _ = self.predict(self.physical(theta), protocol, adjoint)
        return self.loss.residuals(pred, data, mask)


class OptaxAdapter(eqx.Module):
    """Gradient descent with any `optax.GradientTransformation` on the scalar loss."""

    optimizer: optax.GradientTransformation = eqx.field(static=True)
    name: str = eqx.field(static=True, default="optax")
    adjoint: Any = eqx.field(static=True, default=None)
    loss_at_input = True

    def describe(self) -> str:
        return self.name

    def init(self, problem, theta, member):
        return self.optimizer.init(theta)

    def step(self, problem, theta, member, state):
        """One update. Returns `(theta, state, loss at the incoming theta, done=False)`."""
        fn = lambda th: problem.objective(th, member, self.adjoint)  # noqa: E731
        loss, grad = jax.value_and_grad(fn)(theta)
        updates, state = optax_update(self.optimizer, grad, state, theta)
        return optax.apply_updates(theta, updates), state, loss, jnp.array(False)


class LeastSquaresAdapter(eqx.Module):
    """Gauss–Newton-type steps of an `optimistix` least-squares solver (e.g. Levenberg–Marquardt).

    The Jacobian is built in forward mode (one tangent per fitted scalar, all carried through one solve with the
    residuals: `_jacobian.linearised_residuals`), which is the cheap direction when few parameters are fitted to
    many samples.
    """

    solver: optx.AbstractLeastSquaresSolver
    adjoint: Any = eqx.field(static=True, default=diffrax.ForwardMode())
    loss_at_input = False

    def describe(self) -> str:
        return type(self.solver).__name__

    def _fn(self, problem):
        # the Jacobian from one forward pass per step, not a primal solve and then a linearisation that reruns it
        # (`_jacobian`)
        residuals = _MemberResiduals(self.adjoint)  # equal across traces: the Jacobian's pass is traced once
        return lambda th, member: (linearised_residuals(th, residuals=residuals, args=(problem, member)), None)

    def init(self, problem, theta, member):
        fn = self._fn(problem)
        f_struct = jax.eval_shape(lambda: fn(theta, member)[0])
        return self.solver.init(fn, theta, member, {}, f_struct, None, frozenset())

    def step(self, problem, theta, member, state):
        """One accepted-or-rejected LM step. Returns `(theta, state, loss at theta, done)`."""
        fn = self._fn(problem)
        theta, state, _ = self.solver.step(fn, theta, member, {}, state, frozenset())
        done, _ = self.solver.terminate(fn, theta, member, {}, state, frozenset())
        loss = jnp.sum(state.f_info.residual**2)
        return theta, state, loss, done


class _MemberResiduals(eqx.Module):
    """`problem.residuals(theta, member, adjoint)` of `(problem, member)`; equal for equal adjoints."""

    adjoint: Any = eqx.field(static=True)

    def __call__(self, theta, problem_and_member):
        problem, member = problem_and_member
        return problem.residuals(theta, member, self.adjoint)


@eqx.filter_jit
def _predict(problem: Problem, values, protocol, adjoint):
    """`Problem.predict`, as one jitted function: JAX traces it once per signature and reuses the jaxpr.

    An optimiser step evaluates the residuals several times while it is traced (the solver's init, its step and
    its termination test, the Jacobian's linearisation); each used to trace the whole solve again in Python, which
    took longer than compiling it. A call under `jit`, `vmap`, `jvp` or `linearize` finds the traced solve in
    `jit`'s cache and transforms its jaxpr instead; XLA inlines it, so the compiled program is the same.
    """
    options = dict(problem.sim_options)
    if adjoint is not None:
        options["adjoint"] = adjoint
    model = problem.build(values)

    n = problem.sim_ts.shape[0]
    until = n if problem.until is None else problem.until

    def solve(protocol):
        traj = simulate(model, protocol, problem.sim_ts[:until], throw=False, observe=problem.observe, **options)
        pred = {name: _held_from(traj.ys[name], n) for name in problem.names}
        if problem.interpolate:
            pred = {name: interp_rows(problem.data_ts, jnp.asarray(problem.sim_ts), y) for name, y in pred.items()}
        return pred, traj.succeeded

    if not problem.joined:
        return solve(protocol)
    # one model under every recording's protocol; a protocol without arrays is the same for all of them
    axis = 0 if jax.tree.leaves(protocol) else None
    pred, ok = jax.vmap(solve, in_axes=axis, axis_size=problem.joined)(protocol)
    return {name: jnp.moveaxis(y, 0, 1) for name, y in pred.items()}, jnp.all(ok)


def _held_from(y: jax.Array, n: int) -> jax.Array:
    """`y` `(time, ...)` extended to `n` times by holding its last value (masked samples: finite, no gradient)."""
    if y.shape[0] == n:
        return y
    return jnp.concatenate([y, jnp.broadcast_to(y[-1:], (n - y.shape[0], *y.shape[1:]))])


def carry_of(state):
    """The array part of an optimiser state (what crosses the jit boundary and goes to checkpoints)."""
    return eqx.filter(state, eqx.is_array)


def with_static(carry, template):
    """Re-attach the non-array part of a freshly initialised `template` state to `carry`."""
    return eqx.combine(carry, eqx.filter(template, eqx.is_array, inverse=True))
