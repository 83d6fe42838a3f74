import jax
import numpy as np
import pytest

from difflab import reflector as rf


def test_q2_vertex(q2):
    np.testing.assert_allclose(rf.vertex(q2.s, 300.8), [-49.3857, -36.9385, -294.4100], atol=1e-4)
    assert float(rf.focal_length(300.8)) == pytest.approx(300.8 - 160.4136)


@pytest.mark.parametrize("kinematics", ["cable", "rigid"])
def test_nodes_land_on_paraboloid(geometry, q2, kinematics):
    mu = rf.ideal_extensions(geometry, q2.s, 300.8, kinematics)
    n = rf.node_positions(geometry, mu, kinematics)
    near = np.linalg.norm(np.cross(np.asarray(geometry.nodes), np.asarray(q2.s)), axis=1) < 170.0
    assert np.abs(np.asarray(rf.paraboloid_height(n, q2.s, 300.8)))[near].max() < 1e-9


def test_zenith_profile(geometry, zenith):
    mu = np.asarray(rf.ideal_extensions(geometry, zenith.s, 300.8))
    inside = np.asarray(zenith.nodes_inside)
    assert mu[0] == pytest.approx(-0.4, abs=1e-9)  # A0, the vertex node, moves 0.4 m outward
    assert mu[inside].max() == pytest.approx(0.2674, abs=1e-3)


def test_sphere_depth_keeps_vertex(geometry, zenith):
    mu = rf.ideal_extensions(geometry, zenith.s, 300.4)
    assert abs(float(mu[0])) < 1e-9


def test_ideal_paraboloid_breaks_edge_limit(geometry, q2, paraboloid_q2):
    report = rf.check_constraints(geometry, paraboloid_q2)
    assert not report.feasible
    assert 0.0013 < report.max_abs_strain < 0.0015
    assert 950 < report.n_strain_violations < 990


def test_depth_derivative_matches_finite_difference(geometry, q2):
    def f(h):
        return rf.ideal_extensions(geometry, q2.s, h)[100]

    g = jax.grad(f)(300.8)
    fd = (f(300.8 + 1e-5) - f(300.8 - 1e-5)) / 2e-5
    assert float(g) == pytest.approx(float(fd), rel=1e-6)
