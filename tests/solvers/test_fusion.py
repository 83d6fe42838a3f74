"""`materialise` and `materialise_tangent`: the value passes through unchanged, under jit, vmap and both
differentiation modes."""

import jax
import jax.numpy as jnp
import numpy as np

from difflab.solvers._fusion import materialise, materialise_tangent


def f(x, h, barrier=materialise):
    value = x + h * jnp.sin(x)  # equals x when h = 0
    return barrier(value, x, h) ** 2


def test_value_and_derivatives_are_those_of_the_value():
    x = jnp.linspace(-1.0, 1.0, 5)
    for h in (0.0, 0.3):
        want = (x + h * jnp.sin(x)) ** 2
        np.testing.assert_allclose(jax.jit(f)(x, h), want, rtol=1e-15)
        # d/dx (x + h sin x)^2 = 2 (x + h sin x)(1 + h cos x), elementwise
        d_want = 2 * (x + h * jnp.sin(x)) * (1 + h * jnp.cos(x))
        d_rev = jax.grad(lambda x, h=h: f(x, h).sum())(x)
        _, d_fwd = jax.jvp(lambda x, h=h: f(x, h), (x,), (jnp.ones_like(x),))
        np.testing.assert_allclose(d_rev, d_want, rtol=1e-14)
        np.testing.assert_allclose(d_fwd, d_want, rtol=1e-14)


def test_vmapped_over_steps_including_a_zero_step():
    x = jnp.linspace(-1.0, 1.0, 5)
    hs = jnp.asarray([0.0, 0.1, 0.5])
    got = jax.vmap(f, in_axes=(None, 0))(x, hs)
    want = (x[None, :] + hs[:, None] * jnp.sin(x)[None, :]) ** 2
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_tangent_barrier_keeps_values_and_derivatives_with_several_tangents():
    """Forward mode with three tangents at once (vmap over jvp, as sensitivities run), reverse mode, h = 0 too."""
    x = jnp.linspace(-1.0, 1.0, 3)
    tangents = jnp.eye(3)
    for h in (0.0, 0.3):
        g = lambda x, h=h: f(x, h, materialise_tangent)  # noqa: E731
        np.testing.assert_allclose(jax.jit(g)(x), (x + h * jnp.sin(x)) ** 2, rtol=1e-15)
        jac = np.diag(2 * (x + h * jnp.sin(x)) * (1 + h * jnp.cos(x)))
        _, fwd = jax.vmap(lambda t, g=g: jax.jvp(g, (x,), (t,)), out_axes=(None, 0))(tangents)
        np.testing.assert_allclose(fwd, jac.T, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(jax.jacrev(g)(x), jac, rtol=1e-14, atol=1e-15)


def test_materialise_at_passes_the_value_and_its_derivatives_through():
    """`materialise_at(value, t)` is `value` for every time, under jit, vmap over times, and both modes."""
    from difflab.solvers._fusion import materialise_at

    def g(x, t):
        return materialise_at(x * jnp.cos(t), t) ** 2

    x, t = jnp.linspace(-1.0, 1.0, 4), 0.7
    want = (x * np.cos(t)) ** 2
    np.testing.assert_allclose(jax.jit(g)(x, t), want, rtol=1e-15)
    ts = jnp.asarray([0.0, 0.7, 2.0])
    np.testing.assert_allclose(jax.vmap(g, in_axes=(None, 0))(x, ts), (x[None] * np.cos(ts)[:, None]) ** 2, rtol=1e-15)
    # d/dt (x cos t)^2 = -2 x^2 cos t sin t; d/dx = 2 x cos^2 t
    np.testing.assert_allclose(jax.grad(lambda t: g(x, t).sum())(t), -2 * np.sum(x**2) * np.cos(t) * np.sin(t),
                               rtol=1e-14)  # fmt: skip
    _, dx = jax.jvp(lambda x: g(x, t), (x,), (jnp.ones_like(x),))
    np.testing.assert_allclose(dx, 2 * x * np.cos(t) ** 2, rtol=1e-14)
    # a NaN time is the one case the other branch serves: NaN, not a silent value
    assert np.isnan(np.asarray(g(x, jnp.nan))).all()
