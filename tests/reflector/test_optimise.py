"""Pieces of the optimisation: zone starts, the augmented-Lagrangian step, projection, best-feasible snapshot."""

import jax.numpy as jnp
import numpy as np
import pytest

from difflab import reflector as rf
from difflab.reflector._augmented import inner_minimise, update_multipliers
from difflab.reflector._fit import WORK_EXTENSION, WORK_STRAIN, zone_index
from difflab.reflector._maximise import RatioProblem


@pytest.fixture(scope="module")
def stepped(geometry, q2):
    return rf.stepped_start(geometry, q2, (45.0, 146.0))


def test_zone_index(geometry, q2):
    zone = zone_index(geometry, q2, (45.0, 146.0))
    assert np.all(zone[~np.asarray(q2.nodes_inside)] == -1)
    assert set(np.unique(zone)) == {-1, 0, 1, 2}
    assert zone[0] == 0 or zone[0] == 1  # A0 is 49.7 m from the Q2 axis


def test_stepped_start_zones_on_own_paraboloids(geometry, q2, stepped):
    e, depths = stepped
    zone = zone_index(geometry, q2, (45.0, 146.0))
    assert np.all(e[zone == -1] == 0.0)
    n = rf.node_positions(geometry, e)
    for z, h in enumerate(depths):
        height = np.asarray(rf.paraboloid_height(n, q2.s, h))[zone == z]
        assert np.abs(height).max() < 1e-9
        mid = 0.5 * (e[zone == z].max() + e[zone == z].min())
        assert abs(mid) < 2e-3  # each zone's extensions are centred
    assert np.ptp(depths) > 0.2  # the zones sit on distinctly different paraboloids


def test_stepped_start_beats_smooth_ideal_but_breaks_edges(geometry, q2, stepped):
    e, _ = stepped
    eta = float(rf.receiving_ratio(geometry, e, q2, n=16))
    assert eta > 0.60
    assert not rf.check_constraints(geometry, e).feasible


def test_one_augmented_step_improves_lagrangian(geometry, q2, stepped):
    e0 = jnp.asarray(stepped[0])
    problem = RatioProblem(
        geometry, q2, jnp.asarray(0.05), jnp.asarray(10.0), jnp.asarray(WORK_EXTENSION), jnp.asarray(WORK_STRAIN), 4
    )
    lam = jnp.zeros_like(problem.constraints(e0))
    rho = jnp.asarray(1.0)

    def lagrangian(x):
        c = problem.constraints(x)
        return float(problem.objective(x) + 0.5 / rho * jnp.sum(jnp.maximum(0.0, lam + rho * c) ** 2 - lam**2))

    x = inner_minimise(problem, e0, lam, rho, 20, jnp.asarray(1e-3))
    assert lagrangian(x) < lagrangian(e0) - 1e-3
    lam2, worst = update_multipliers(problem, x, lam, rho)
    assert float(worst) < float(jnp.max(problem.constraints(e0)))
    assert float(jnp.min(lam2)) >= 0.0


def test_projection_makes_a_bump_feasible(geometry):
    e = np.zeros(geometry.n_nodes)
    e[:7] = 0.45  # A0 and its ring pushed 0.45 m inward: edges shorten by up to 0.15 %
    assert not rf.check_constraints(geometry, e).feasible
    p = np.asarray(rf.project_feasible(geometry, e, outer=8, inner=60))
    report = rf.check_constraints(geometry, p)
    assert report.feasible, str(report)
    assert 0.15 < p[0] < 0.45  # moved back only as far as needed


def test_maximise_keeps_a_feasible_snapshot(geometry, zenith):
    e0 = np.zeros(geometry.n_nodes)
    method = rf.AugmentedLagrangian(outer=1, inner=10)
    snap = rf.maximise_ratio(geometry, zenith, e0, temperatures=(0.05,), method=method, samples=3, eval_samples=8)
    assert rf.check_constraints(geometry, snap.e).feasible
    assert snap.eta >= float(rf.receiving_ratio(geometry, e0, zenith, n=8))
    with pytest.warns(DeprecationWarning) as caught:  # the old keywords: the same run, with a warning each
        old = rf.maximise_ratio(geometry, zenith, e0, temperatures=(0.05,), outer=1, inner=10, samples=3,
                                eval_samples=8)  # fmt: skip
    assert [str(w.message) for w in caught] == [
        f"maximise_ratio({name}=...) is deprecated and goes at 0.3: pass "
        f"method=difflab.reflector.AugmentedLagrangian({name}=...)"
        for name in ("outer", "inner")
    ]
    assert old.eta == snap.eta and old.where == snap.where
    np.testing.assert_array_equal(old.e, snap.e)


def test_augmented_lagrangian_settings_are_refused_by_name():
    for field, value, message in [
        ("outer", 0, "outer must be a whole number >= 1; got 0"),
        ("inner", 2.5, "inner must be a whole number >= 1; got 2.5"),
        ("learning_rate", 0.0, "learning_rate must be a finite number > 0; got 0.0"),
        ("rho", float("nan"), "rho must be a finite number > 0; got nan"),
        ("rho_growth", 0.5, "rho_growth must be a finite number >= 1; got 0.5"),
    ]:
        with pytest.raises(ValueError, match=message):
            rf.AugmentedLagrangian(**{field: value})
