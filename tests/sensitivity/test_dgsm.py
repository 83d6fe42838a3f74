"""DGSM of the Ishigami function from forward-mode derivatives: closed-form integrals of the squared partials."""

import numpy as np
import pytest
from _systems import ISHIGAMI_BOUNDS as BOUNDS
from _systems import ISHIGAMI_NU as NU
from _systems import ISHIGAMI_TOTAL as TOTAL
from _systems import Ishigami

from difflab.sensitivity import dgsm

N = 2**12


def f(traj):
    return traj.ys["y"][-1]


@pytest.fixture(scope="module")
def measures():
    return dgsm(Ishigami(), None, np.array([0.0, 1.0]), BOUNDS, {"f": f}, n=N, chunk_size=N, progress=False)


def test_mean_squared_partials_match_their_integrals(measures):
    # scrambled Sobol' means of smooth integrands at n = 4096: relative errors ~1e-4; 2e-3 leaves room
    np.testing.assert_allclose(measures["nu"].sel(output="f"), NU, rtol=2e-3)
    ci = measures["nu_ci"].sel(output="f")
    assert np.all(ci.sel(bound="low") <= NU) and np.all(NU <= ci.sel(bound="high"))


def test_the_bound_on_the_total_index_holds_and_is_tight_for_x2(measures):
    bound = measures["total_bound"].sel(output="f").values
    assert np.all(bound >= TOTAL)
    # x2 acts alone through 7 sin^2 x2: (2 pi)^2 nu_2 / (pi^2 V) = 4 a^2 / 2 / V against S_T2 = a^2 / 8 / V: 16
    assert bound[1] / TOTAL[1] == pytest.approx(16.0, rel=5e-3)
