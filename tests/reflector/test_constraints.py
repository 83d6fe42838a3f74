import numpy as np
import pytest

from difflab import reflector as rf


def test_base_sphere_is_feasible(geometry):
    report = rf.check_constraints(geometry, np.zeros(geometry.n_nodes))
    assert report.feasible and report.max_abs_strain < 1e-12


def test_uniform_move_limit(geometry):
    # a uniform radial move δ scales every edge by (R - δ)/R: 0.20 m passes, 0.22 m fails (limit 0.21 m)
    ok = rf.check_constraints(geometry, np.full(geometry.n_nodes, 0.20))
    bad = rf.check_constraints(geometry, np.full(geometry.n_nodes, 0.22))
    assert ok.feasible and ok.max_abs_strain == pytest.approx(0.20 / 300.4, rel=1e-2)
    assert not bad.feasible and bad.n_strain_violations == 6525


def test_travel_violation_counted(geometry):
    e = np.zeros(geometry.n_nodes)
    e[[5, 9]] = [0.61, -0.7]
    report = rf.check_constraints(geometry, e)
    assert report.n_extension_violations == 2 and report.max_abs_extension == pytest.approx(0.7)
    assert "INFEASIBLE" in str(report)


def test_single_node_bump(geometry):
    e = np.zeros(geometry.n_nodes)
    e[0] = 0.3  # A0 alone: its six edges shorten by about 0.3 * 0.3 / 300 / 2 ... plus the tilt
    report = rf.check_constraints(geometry, e)
    assert report.worst_edge[0] == "A0"
    assert report.n_strain_violations == 0 or report.n_strain_violations <= 6


def test_bad_shape_and_nan(geometry):
    with pytest.raises(ValueError, match="shape"):
        rf.check_constraints(geometry, np.zeros(10))
    e = np.zeros(geometry.n_nodes)
    e[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        rf.check_constraints(geometry, e)
