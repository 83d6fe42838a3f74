r"""Residuals and their Jacobian in one forward pass, and residuals whose linearisation is that Jacobian.

A least-squares step needs the residuals $r(\theta)$ and the Jacobian $J = \partial r / \partial\theta$ at the
same point. `value_and_jacfwd` gets both from one forward-mode pass: the $n$ columns of $J$ are $n$ tangents
carried through the solve together, and the primal solve, on which no tangent depends, runs once beside them.

`linearised_residuals` is $r$ with a custom JVP that does exactly that and then applies $J$ to the incoming
tangent, $\dot r = J\dot\theta$. Optimistix's Gauss–Newton solvers take $J$ as `jax.linearize(r)` and
materialise it with one Jacobian–vector product per column. A simulator's time loop is a `while_loop`, which
`linearize` cannot split into a stored forward part and a linear part, so its linear function reruns the whole
solve, primal included: every step of Levenberg–Marquardt then cost one primal solve for the residuals plus one
primal solve with $n$ tangents for $J$ (and a rejected step paid for $J$ again). With the custom JVP a step costs
the one pass with $n$ tangents, and $J$ is a stored $m\times n$ matrix (the L5PC fit, six densities, ten starts:
see `benchmarks/l5pc_fit.py`).
"""

from __future__ import annotations

from collections.abc import Callable

import equinox as eqx
import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree


def value_and_jacfwd(fn: Callable, x):
    """`(fn(x), J)` from one forward pass.

    `fn` maps the pytree `x` to a pytree of arrays; `J` has its structure, each leaf of shape `(*leaf.shape, n)`
    with the `n` columns in the order of `jax.flatten_util.ravel_pytree(x)`.
    """
    flat, unravel = ravel_pytree(x)

    def value_twice(v):  # the value as its own aux: jacfwd computes the primal once, beside all the tangents
        value = fn(unravel(v))
        return value, value

    columns, value = jax.jacfwd(value_twice, has_aux=True)(flat)
    return value, columns


@eqx.filter_custom_jvp
def linearised_residuals(theta, *, residuals: Callable, args):
    """`residuals(theta, args)`, differentiated by its Jacobian from one forward pass (module docstring).

    Only `theta` is differentiated; `residuals` (a function) and `args` (a pytree: the model, data, protocol)
    are held fixed.
    """
    return residuals(theta, args)


@eqx.filter_jit
def _value_and_jacfwd_of(theta, args, residuals: Callable):
    """`value_and_jacfwd` of `residuals(·, args)` at `theta`, as one jitted function.

    A least-squares step traces its residuals' linearisation several times (the solver's init, which a jitted step
    calls again for the state's structure, and the step itself): as a jitted function of a `residuals` that compares
    equal across them (a module-level function or an `equinox.Module`), JAX traces the pass with its tangents once
    and reuses the jaxpr (the HH and feature fits of `tests/calibration/test_global.py` and
    `tests/neuron/test_efeatures.py`: 0.7 s of tracing each time).
    """
    return value_and_jacfwd(lambda th: residuals(th, args), theta)


@linearised_residuals.def_jvp
def _linearised_residuals_jvp(primals, tangents, *, residuals: Callable, args):
    (theta,), (theta_dot,) = primals, tangents
    value, jac = _value_and_jacfwd_of(theta, args, residuals)
    if theta_dot is None:  # no tangent reaches theta
        return value, jnp.zeros_like(value)
    # a tangent may leave some leaves symbolic (None): they carry zero
    theta_dot = jax.tree.map(lambda t, x: jnp.zeros_like(x) if t is None else t, theta_dot, theta,
                             is_leaf=lambda t: t is None)  # fmt: skip
    flat_dot, _ = ravel_pytree(theta_dot)
    return value, jac @ flat_dot.astype(jac.dtype)
