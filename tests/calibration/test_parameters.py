"""Bijective transforms: forward and inverse undo each other, domains hold, bad bounds are refused."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from difflab.calibration import Bounded, Identity, Log, Positive
from difflab.calibration._transforms import as_transform

TRANSFORMS = [Identity(), Positive(), Log(), Bounded(-2.0, 3.0), Bounded(50.0, 200.0)]


@pytest.mark.parametrize("transform", TRANSFORMS, ids=lambda t: repr(t)[:20])
def test_inverse_undoes_forward(transform):
    u = jnp.linspace(-6.0, 6.0, 25)
    np.testing.assert_allclose(transform.inverse(transform.forward(u)), u, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    ("transform", "x"),
    [
        (Positive(), [1e-3, 0.3, 36.0, 120.0]),
        (Log(), [1e-3, 0.3, 36.0, 120.0]),
        (Bounded(50.0, 200.0), [50.5, 120.0, 199.0]),
        (Identity(), [-5.0, 0.0, 3.0]),
    ],
)
def test_forward_undoes_inverse(transform, x):
    x = jnp.asarray(x)
    np.testing.assert_allclose(transform.forward(transform.inverse(x)), x, rtol=1e-12)


def test_forward_stays_in_domain_and_has_finite_gradient():
    u = jnp.asarray([-30.0, 0.0, 30.0])
    assert bool(jnp.all(Positive().forward(u) > 0))
    b = Bounded(1.0, 2.0).forward(u)
    assert bool(jnp.all((b >= 1.0) & (b <= 2.0)))
    for t in TRANSFORMS:
        g = jax.vmap(jax.grad(t.forward))(u)
        assert bool(jnp.all(jnp.isfinite(g)))


def test_samples_lie_inside_the_domain():
    key = jax.random.key(0)
    x0 = jnp.asarray(120.0)
    s = Bounded(50.0, 200.0).sample(key, x0, (1000,))
    assert s.shape == (1000,) and float(s.min()) > 50.0 and float(s.max()) < 200.0
    p = Log().sample(key, x0, (1000,))
    assert float(p.min()) >= 60.0 - 1e-9 and float(p.max()) <= 240.0 + 1e-9


@pytest.mark.parametrize(("lo", "hi"), [(1.0, 1.0), (2.0, 1.0)])
def test_bounded_refuses_lo_not_below_hi(lo, hi):
    with pytest.raises(ValueError, match="lo < hi"):
        Bounded(lo, hi)


def test_as_transform():
    assert isinstance(as_transform((0.0, 1.0), "x"), Bounded)
    assert isinstance(as_transform(None, "x"), Identity)
    with pytest.raises(TypeError, match="params\\['x'\\]"):
        as_transform("positive", "x")


def test_initial_value_outside_domain_is_refused():
    with pytest.raises(ValueError, match=r"'gNa'.*outside"):
        Bounded(50.0, 100.0).check(jnp.asarray(120.0), "gNa")
