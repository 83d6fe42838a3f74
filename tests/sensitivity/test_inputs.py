"""Bad input to the sensitivity methods is refused by name, before anything runs or naming the points."""

import re

import jax.numpy as jnp
import numpy as np
import pytest
import xarray as xr
from _systems import ISHIGAMI_BOUNDS as BOUNDS
from _systems import Ishigami

from difflab.sensitivity import Morris, Saltelli, dgsm, dgsm_analyze, morris, sobol_analyze, sobol_indices

TS = np.array([0.0, 1.0])


def f(traj):
    return traj.ys["y"][-1]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Saltelli(8, BOUNDS), "n must be a whole number >= 16"),
        (lambda: Saltelli(48, BOUNDS), "n must be a power of 2"),
        (lambda: Morris(1, BOUNDS), "r must be a whole number >= 2"),
        (lambda: Morris(4, BOUNDS, levels=5), "levels must be even"),
        (lambda: Morris(4, BOUNDS, candidates=3), "candidates must be a whole number >= 4"),
        (lambda: Saltelli(16, {"x1": (1.0, 1.0)}), "bounds['x1'] needs finite low < high; got (1.0, 1.0)"),
        (lambda: Saltelli(16, {"x1": (2.0, -1.0)}), "bounds['x1'] needs finite low < high; got (2.0, -1.0)"),
        (lambda: Saltelli(16, {"x1": (0.0, np.inf)}), "bounds['x1'] needs finite low < high"),
        (lambda: Saltelli(16, {}), "bounds must map at least one parameter"),
    ],
)
def test_designs_refuse_bad_sizes_and_bounds(make, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()


@pytest.mark.parametrize("method", [sobol_indices, morris, dgsm])
def test_an_unknown_parameter_is_refused_before_any_solve(method):
    with pytest.raises(KeyError, match=r"bounds: unknown parameter 'x4' for Ishigami; valid names: a, b, x1"):
        method(Ishigami(), None, TS, {"x1": (0.0, 1.0), "x4": (0.0, 1.0)}, {"f": f})


def test_dgsm_refuses_a_sample_too_small_for_a_variance():
    with pytest.raises(ValueError, match=r"n must be a whole number >= 2"):
        dgsm(Ishigami(), None, TS, BOUNDS, {"f": f}, n=1)


def test_non_finite_outputs_are_reported_by_point_not_averaged():
    # log f is NaN wherever the Ishigami function is negative
    with pytest.raises(ValueError, match=r"observable 'log_f': it is not finite at \d+ of 80 points: point \d+ \(x1="):
        sobol_indices(Ishigami(), None, TS, BOUNDS, {"log_f": lambda t: jnp.log(f(t))}, n=16, progress=False)


def test_analysis_checks_its_design_and_outputs():
    design = Saltelli(16, {"x1": (0.0, 1.0)})
    ds = xr.Dataset({"g": ("sample", np.ones(48))}, attrs={"observables": "g"})
    with pytest.raises(ValueError, match="resamples must be a whole number >= 100"):
        sobol_analyze(ds, design, resamples=10)
    with pytest.raises(TypeError, match="design must be the Saltelli design"):
        sobol_analyze(ds, Morris(2, {"x1": (0.0, 1.0)}))
    with pytest.raises(ValueError, match="outputs hold 40 points; this Saltelli design has 48"):
        sobol_analyze(ds.isel(sample=slice(0, 40)), design)
    with pytest.raises(ValueError, match="confidence must lie strictly between 0 and 1"):
        sobol_analyze(ds, design, confidence=95)
    with pytest.raises(ValueError, match="result has no 'd_g': run the sweep with derivatives=True"):
        dgsm_analyze(ds, {"x1": (0.0, 1.0)})
