"""Sobol' indices of the Ishigami function against their closed forms; bootstrap intervals; resumable chunks."""

import numpy as np
import pytest
import xarray as xr
from _systems import ISHIGAMI_BOUNDS as BOUNDS
from _systems import ISHIGAMI_FIRST as FIRST
from _systems import ISHIGAMI_TOTAL as TOTAL
from _systems import Ishigami

from difflab.sensitivity import Saltelli, sobol_analyze, sobol_indices

TS = np.array([0.0, 1.0])


def f(traj):
    """y(1): the Ishigami function of the model's parameters."""
    return traj.ys["y"][-1]


N = 2**12  # 20480 solves of a one-step problem: about two seconds after the compile


@pytest.fixture(scope="module")
def indices():
    return sobol_indices(Ishigami(), None, TS, BOUNDS, {"f": f}, n=N, chunk_size=N * 5, progress=False)


def test_indices_match_the_closed_forms_within_0_01(indices):
    np.testing.assert_allclose(indices["first_order"].sel(output="f"), FIRST, atol=0.01)
    np.testing.assert_allclose(indices["total"].sel(output="f"), TOTAL, atol=0.01)
    assert list(indices["parameter"].values) == ["x1", "x2", "x3"]


def test_bootstrap_intervals_cover_the_truth_and_are_not_vacuous(indices):
    for name, truth in (("first_order", FIRST), ("total", TOTAL)):
        low, high = (
            indices[f"{name}_ci"].sel(output="f", bound="low"),
            indices[f"{name}_ci"].sel(output="f", bound="high"),
        )
        assert np.all(low <= truth) and np.all(truth <= high), (name, low.values, high.values, truth)
        assert np.all(high - low < 0.15) and np.all(high - low > 0)


def test_saltelli_blocks_share_all_but_one_column():
    design = Saltelli(16, BOUNDS, seed=3)
    u = design.unit()
    a, b, ab = u[:16], u[16:32], u[32:].reshape(3, 16, 3)
    for i in range(3):
        np.testing.assert_array_equal(ab[i][:, i], b[:, i])
        np.testing.assert_array_equal(np.delete(ab[i], i, axis=1), np.delete(a, i, axis=1))
    assert len(design) == 16 * 5 and np.all((u >= 0) & (u < 1))


def test_a_run_written_in_chunks_resumes_and_gives_the_same_indices(tmp_path, indices):
    kwargs = {"n": N, "chunk_size": N * 5, "progress": False, "directory": tmp_path}
    first = sobol_indices(Ishigami(), None, TS, BOUNDS, {"f": f}, **kwargs)
    (mtime,) = [p.stat().st_mtime_ns for p in tmp_path.glob("chunk_*.nc")]
    again = sobol_indices(Ishigami(), None, TS, BOUNDS, {"f": f}, **kwargs)
    assert [p.stat().st_mtime_ns for p in tmp_path.glob("chunk_*.nc")] == [mtime]  # reused, not recomputed
    xr.testing.assert_allclose(first, again)
    xr.testing.assert_allclose(first, indices)


def test_analysis_of_outputs_computed_elsewhere_equals_the_closed_form_of_a_sum():
    # f = x1 + 2 x2 on the unit square: S = ST = (1, 4) / 5, with no interaction
    design = Saltelli(2**10, {"x1": (0, 1), "x2": (0, 1)})
    p = design.points()
    ds = xr.Dataset({"g": ("sample", p["x1"] + 2 * p["x2"])}, attrs={"observables": "g"})
    out = sobol_analyze(ds, design)
    # QMC means of squares of the uniform columns: errors of O(1/n), far below the Ishigami test's 0.01
    np.testing.assert_allclose(out["total"].sel(output="g"), [0.2, 0.8], atol=1e-4)
    np.testing.assert_allclose(out["first_order"].sel(output="g"), [0.2, 0.8], atol=1e-3)
