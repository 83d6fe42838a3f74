"""Receiving ratio: sampling, known surfaces, flat panels, the smooth variant and its gradient."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from difflab import reflector as rf


@pytest.mark.parametrize("n", [1, 2, 5, 16])
def test_barycentric_grid(n):
    w = rf.barycentric_grid(n)
    assert w.shape == (n * n, 3)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    assert np.all(w > 0)
    np.testing.assert_allclose(w.mean(axis=0), 1 / 3, atol=1e-12)  # equal cells: mean is the centroid


def test_barycentric_grid_rejects_bad_n():
    with pytest.raises(ValueError, match="n"):
        rf.barycentric_grid(0)


def test_base_sphere_caps_through_origin(geometry, q2):
    from difflab.reflector._raytrace import _cap_centres, aperture_vertices

    v = aperture_vertices(geometry, jnp.zeros(geometry.n_nodes), q2)
    centres, _ = _cap_centres(v, geometry.radius)
    assert np.abs(np.asarray(centres)).max() < 0.05  # node coordinates carry 4 decimals


def test_projected_area(q2):
    tri = jnp.array([[[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]])
    assert float(rf.projected_area(tri, jnp.array([0.0, 0, 1]))[0]) == pytest.approx(0.5)
    assert float(rf.projected_area(tri, jnp.array([1.0, 0, 0]))[0]) == pytest.approx(0.0)


@pytest.mark.parametrize(("pointing", "expected"), [("zenith", 0.05652), ("q2", 0.05618)])
def test_base_sphere_ratio(geometry, request, pointing, expected):
    # published spherical-panel studies: 5.26-5.72 %; converged value of this model ± 0.05 percentage points
    eta = float(rf.receiving_ratio(geometry, np.zeros(geometry.n_nodes), request.getfixturevalue(pointing), n=32))
    assert eta == pytest.approx(expected, abs=5e-4)


def test_ideal_paraboloid_ratio(geometry, q2, paraboloid_q2):
    # the unconstrained ideal paraboloid (vertex depth 300.8 m) gives ≈ 67.4 % for Q2
    eta = float(rf.receiving_ratio(geometry, paraboloid_q2, q2, n=32))
    assert eta == pytest.approx(0.6744, abs=1e-3)


def test_flat_panels_match_published_flat_model(geometry, q2, paraboloid_q2):
    # xyfJASON/CUMCM-2021-A (flat panels, Q2): base sphere 0.861 %, ideal paraboloid 1.1755 %
    base = float(rf.receiving_ratio(geometry, np.zeros(geometry.n_nodes), q2, n=32, shape="flat"))
    ideal = float(rf.receiving_ratio(geometry, paraboloid_q2, q2, n=32, shape="flat"))
    assert base == pytest.approx(0.00861, abs=1e-5)
    assert ideal == pytest.approx(0.011755, abs=1e-5)


def test_smooth_ratio_approaches_exact(geometry, q2, paraboloid_q2):
    exact = float(rf.receiving_ratio(geometry, paraboloid_q2, q2, n=12))
    smooth = float(rf.receiving_ratio(geometry, paraboloid_q2, q2, n=12, temperature=1e-4))
    assert smooth == pytest.approx(exact, abs=2e-3)


def test_smooth_ratio_gradient_matches_finite_differences(geometry, q2, paraboloid_q2):
    def eta(h):
        e = jnp.where(q2.nodes_inside, rf.ideal_extensions(geometry, q2.s, h), 0.0)
        return rf.receiving_ratio(geometry, e, q2, n=6, temperature=0.05)

    g = float(jax.grad(eta)(300.7))
    fd = float((eta(300.7 + 1e-4) - eta(300.7 - 1e-4)) / 2e-4)
    assert np.isfinite(g) and g == pytest.approx(fd, rel=1e-4)


def test_gradient_in_extensions_is_finite(geometry, q2, paraboloid_q2):
    g = jax.grad(lambda e: rf.receiving_ratio(geometry, e, q2, n=4, temperature=0.02))(jnp.asarray(paraboloid_q2))
    g = np.asarray(g)
    assert np.all(np.isfinite(g))
    assert np.abs(g[~np.asarray(q2.nodes_inside)]).max() == 0.0  # nodes outside the aperture do not matter
    assert np.abs(g).max() > 0


def test_bad_shape(geometry, q2):
    with pytest.raises(ValueError, match="shape"):
        rf.receiving_ratio(geometry, np.zeros(geometry.n_nodes), q2, shape="cone")


def test_no_recompilation_for_new_values(geometry, q2, paraboloid_q2):
    from difflab.reflector._raytrace import TRACES

    rf.receiving_ratio(geometry, paraboloid_q2, q2, n=3, temperature=0.05)
    before = TRACES["receiving_ratio"]
    rf.receiving_ratio(geometry, 0.5 * paraboloid_q2, q2, n=3, temperature=0.02)
    rf.receiving_ratio(geometry, np.zeros(geometry.n_nodes), q2, n=3, temperature=0.01)
    assert TRACES["receiving_ratio"] == before
