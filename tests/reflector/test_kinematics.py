import jax
import jax.numpy as jnp
import numpy as np
import pytest

from difflab import reflector as rf


@pytest.fixture(scope="module")
def off_line(geometry):
    return geometry.off_line_distance() > 0.5


@pytest.mark.parametrize("value", [-0.6, 0.3, 0.6])
def test_cable_model_on_line_nodes_follow_actuator(geometry, off_line, value):
    e = np.full(geometry.n_nodes, value)
    t = np.asarray(rf.node_displacement(geometry, e))
    assert np.abs(t - e)[~off_line].max() < 1e-7
    # the tilted cables of the 10 off-line nodes change the node's travel by 0.09-0.43 %
    ratio = t[off_line] / value
    assert np.all((ratio > 1.0005) & (ratio < 1.005))


def test_cable_length_is_kept(geometry):
    e = np.linspace(-0.6, 0.6, geometry.n_nodes)
    n = rf.node_positions(geometry, e)
    top = geometry.actuator_upper - e[:, None] * geometry.actuator_direction
    np.testing.assert_allclose(np.linalg.norm(n - top, axis=1), geometry.cable_length, atol=1e-10)
    np.testing.assert_allclose(np.cross(n, geometry.nodes), 0.0, atol=1e-9)


@pytest.mark.parametrize("kinematics", ["cable", "rigid"])
def test_inverse(geometry, kinematics):
    e = np.linspace(-0.6, 0.6, geometry.n_nodes)
    t = rf.node_displacement(geometry, e, kinematics)
    np.testing.assert_allclose(rf.extension_for_displacement(geometry, t, kinematics), e, atol=1e-12)


def test_rigid_moves_along_actuator(geometry):
    e = jnp.full(geometry.n_nodes, 0.5)
    n = rf.node_positions(geometry, e, "rigid")
    np.testing.assert_allclose(geometry.nodes - n, 0.5 * geometry.actuator_direction, atol=1e-12)


def test_gradient_finite_at_zero(geometry):
    g = jax.grad(lambda e: jnp.sum(rf.node_displacement(geometry, e)))(jnp.zeros(geometry.n_nodes))
    assert np.all(np.isfinite(g)) and np.abs(np.asarray(g) - 1.0).max() < 0.01


def test_bad_kinematics(geometry):
    with pytest.raises(ValueError, match="kinematics"):
        rf.node_positions(geometry, np.zeros(geometry.n_nodes), "elastic")
