"""Residuals and their Jacobian from one forward pass (`calibration._jacobian`), against closed forms.

`f(θ) = (a sin(p x), q²)` with θ = {p, q[2]} has J = [[a x cos(p x), 0, 0], [0, diag(2 q)]].
A Levenberg–Marquardt step on dy/dt = −k y solves the ODE once, with its tangents: its program holds one time
loop, as one forward-mode pass does.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _systems import Decay, decay_data

from difflab.calibration import Bounded, Comparison, Positive
from difflab.calibration._jacobian import linearised_residuals, value_and_jacfwd
from difflab.calibration._objective import LeastSquaresAdapter
from difflab.calibration._optimizers import as_adapter
from difflab.calibration.internal import build_problem, fit_members

X = jnp.linspace(0.0, 1.0, 5)
THETA = {"p": jnp.asarray(1.3), "q": jnp.asarray([0.5, -2.0])}


def residuals(theta, args):
    a, x = args
    return jnp.concatenate([a * jnp.sin(theta["p"] * x), theta["q"] ** 2])


def exact_jacobian(theta, a=0.7, x=X):
    jac = np.zeros((x.size + 2, 3))
    jac[: x.size, 0] = a * x * np.cos(theta["p"] * x)
    jac[x.size :, 1:] = np.diag(2 * np.asarray(theta["q"]))
    return jac


def test_value_and_jacfwd_equals_closed_form():
    value, jac = value_and_jacfwd(lambda th: residuals(th, (0.7, X)), THETA)
    np.testing.assert_allclose(value, residuals(THETA, (0.7, X)), rtol=0, atol=1e-15)
    np.testing.assert_allclose(jac, exact_jacobian(THETA), rtol=0, atol=1e-15)
    # a pytree output: each leaf gets its columns on the last axis
    (first, second), (d_first, d_second) = value_and_jacfwd(lambda th: (th["p"] ** 3, th["q"] * th["p"]), THETA)
    np.testing.assert_allclose([first, *second], [1.3**3, 0.65, -2.6], rtol=1e-15)
    np.testing.assert_allclose(d_first, [3 * 1.3**2, 0, 0], rtol=1e-15)
    np.testing.assert_allclose(d_second, [[0.5, 1.3, 0], [-2.0, 0, 1.3]], rtol=1e-15)


@pytest.mark.parametrize("mode", ["jvp", "linearize", "jacrev", "vmap"])
def test_linearised_residuals_differentiate_as_the_function(mode):
    args = (jnp.asarray(0.7), X)
    fn = lambda th: linearised_residuals(th, residuals=residuals, args=args)  # noqa: E731
    np.testing.assert_allclose(fn(THETA), residuals(THETA, args), rtol=0, atol=1e-15)
    exact = exact_jacobian(THETA)
    tangent = {"p": jnp.asarray(0.3), "q": jnp.asarray([1.0, -0.5])}
    flat_tangent = np.array([0.3, 1.0, -0.5])
    if mode == "jvp":
        np.testing.assert_allclose(jax.jvp(fn, (THETA,), (tangent,))[1], exact @ flat_tangent, atol=1e-15)
        # a tangent on one leaf only: the other leaf's is a symbolic zero
        only_p = jax.jvp(lambda p: fn({"p": p, "q": THETA["q"]}), (THETA["p"],), (jnp.asarray(1.0),))[1]
        np.testing.assert_allclose(only_p, exact[:, 0], atol=1e-15)
    elif mode == "linearize":
        _, lin = jax.linearize(fn, THETA)
        np.testing.assert_allclose(lin(tangent), exact @ flat_tangent, atol=1e-15)
    elif mode == "jacrev":  # the tangent map J·θ̇ transposes
        jac = jax.jacrev(fn)(THETA)
        np.testing.assert_allclose(np.column_stack([jac["p"], jac["q"]]), exact, atol=1e-15)
    else:
        batch = {"p": jnp.asarray([1.3, 0.4]), "q": jnp.asarray([[0.5, -2.0], [1.0, 3.0]])}
        jac = jax.jit(jax.vmap(jax.jacfwd(fn)))(batch)
        second = {"p": batch["p"][1], "q": batch["q"][1]}
        np.testing.assert_allclose(np.column_stack([jac["p"][1], jac["q"][1]]), exact_jacobian(second), atol=1e-15)


def _loops(jaxpr) -> int:
    """The number of `while` loops in a jaxpr, nested ones included."""
    count = 0
    for eqn in jaxpr.eqns:
        count += eqn.primitive.name == "while"
        for value in eqn.params.values():
            for sub in value if isinstance(value, tuple | list) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    count += _loops(inner)
    return count


def test_a_levenberg_marquardt_step_solves_once():
    data = decay_data(noise=0.01, seed=1)
    problem, fit = build_problem(Decay(k=1.0, y0=1.0), data, {"k": Positive(), "y0": Bounded(0.1, 10.0)}, "mse",
                                 Comparison(), None)  # fmt: skip
    member = jax.tree.map(lambda x: x[0], fit_members(None, fit))
    adapter = as_adapter("lm", problem.loss)
    assert isinstance(adapter, LeastSquaresAdapter)
    theta = {"k": jnp.asarray(0.0), "y0": jnp.asarray(0.0)}
    state = adapter.init(problem, theta, member)
    one_pass = jax.make_jaxpr(lambda th: jax.jvp(lambda t: problem.residuals(t, member, adapter.adjoint), (th,),
                                                 (th,)))(theta)  # fmt: skip
    step = jax.make_jaxpr(lambda th: adapter.step(problem, th, member, state)[::2])(theta)  # theta, loss
    assert _loops(one_pass.jaxpr) >= 1
    assert _loops(step.jaxpr) == _loops(one_pass.jaxpr)
