"""A small augmented-Lagrangian solver for inequality-constrained problems, on optax's L-BFGS or Adam.

Problem: minimise f(x) subject to c(x) <= 0 (vector). The augmented Lagrangian (Powell-Hestenes-Rockafellar) is

    L_ρ(x, λ) = f(x) + 1/(2ρ) Σ_j [max(0, λ_j + ρ c_j(x))² - λ_j²],

minimised over x for fixed (λ, ρ) by a fixed number of optimiser steps (one jitted loop), followed by the
multiplier update λ ← max(0, λ + ρ c(x)) and ρ ← min(γρ, ρ_max).

Reference: J. Nocedal and S. J. Wright, Numerical Optimization, 2nd ed., Springer (2006), §17.4.
"""

from __future__ import annotations

import abc
from collections.abc import Callable

import equinox as eqx
import jax
import jax.numpy as jnp
import optax

from ..core.internal import optax_update


class AbstractConstrainedProblem(eqx.Module):
    """A problem min f(x) s.t. c(x) <= 0; x is any pytree of float arrays."""

    @abc.abstractmethod
    def objective(self, x):
        """Scalar objective f(x)."""

    @abc.abstractmethod
    def constraints(self, x):
        """Constraint values c(x), 1-D; feasible where all are <= 0."""


def _lagrangian(problem, x, lam, rho):
    c = problem.constraints(x)
    return problem.objective(x) + 0.5 / rho * jnp.sum(jnp.maximum(0.0, lam + rho * c) ** 2 - lam**2)


@eqx.filter_jit
def inner_minimise(problem, x, lam, rho, steps: int, learning_rate=None):
    """Run `steps` optimiser steps on L_ρ(·, λ): L-BFGS (zoom line search) or, with a learning rate, Adam."""

    def loss(x):
        return _lagrangian(problem, x, lam, rho)

    if learning_rate is None:
        opt = optax.lbfgs()
        value_and_grad = optax.value_and_grad_from_state(loss)

        def step(_, carry):
            x, state = carry
            value, grad = value_and_grad(x, state=state)
            updates, state = optax_update(opt, grad, state, x, value=value, grad=grad, value_fn=loss)
            return optax.apply_updates(x, updates), state

    else:
        opt = optax.adam(learning_rate)

        def step(_, carry):
            x, state = carry
            grad = jax.grad(loss)(x)
            updates, state = optax_update(opt, grad, state, x)
            return optax.apply_updates(x, updates), state

    x, _ = jax.lax.fori_loop(0, steps, step, (x, opt.init(x)))
    return x


@eqx.filter_jit
def update_multipliers(problem, x, lam, rho):
    """λ ← max(0, λ + ρ c(x)); also returns the largest constraint value max_j c_j(x)."""
    c = problem.constraints(x)
    return jnp.maximum(0.0, lam + rho * c), jnp.max(c)


def solve_augmented(
    problem: AbstractConstrainedProblem,
    x0,
    *,
    outer: int = 15,
    inner: int = 150,
    rho: float = 10.0,
    rho_growth: float = 2.0,
    rho_max: float = 1e5,
    learning_rate=None,
    callback: Callable | None = None,
):
    """Minimise `problem` from x0 by the augmented Lagrangian method; returns (x, λ, max c).

    `callback(k, x, max_c)` is called after every outer iteration (e.g. to keep the best feasible snapshot).
    """
    x = x0
    lam = jnp.zeros_like(problem.constraints(x0))
    rho_a = jnp.asarray(rho, dtype=float)
    lr = None if learning_rate is None else jnp.asarray(learning_rate, dtype=float)
    worst = jnp.inf
    for k in range(outer):
        x = inner_minimise(problem, x, lam, rho_a, inner, lr)
        lam, worst = update_multipliers(problem, x, lam, rho_a)
        if callback is not None:
            callback(k, x, float(worst))
        rho_a = jnp.minimum(rho_a * rho_growth, rho_max)
    return x, lam, float(worst)
