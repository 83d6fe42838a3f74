"""Profile likelihood on an exponential decay: the interval matches ±1.96 standard errors where the model is
nearly linear in the parameter, and bad arguments are refused."""

import numpy as np
import pytest
from _systems import Decay, decay_data

import difflab

PARAMS = {"k": difflab.Positive(), "y0": difflab.Positive()}
DATA = decay_data(n=201, noise=0.02, seed=8)


@pytest.mark.slow
def test_profile_interval_agrees_with_the_standard_error_interval():
    fit = difflab.calibrate(Decay(), None, DATA, params=PARAMS, steps=30)
    k, se = float(fit.best["k"]), float(fit.stderr["k"])
    prof = difflab.profile(fit.model, None, DATA, params=PARAMS, name="k", values=k + se * np.linspace(-3, 3, 13),
                           steps=30)  # fmt: skip
    assert float(prof.statistic.min()) == pytest.approx(0.0, abs=0.05)
    # near-linear model: the profile interval is the ±1.96 se interval to within a few percent of its width
    assert prof.attrs["interval_lo"] == pytest.approx(k - 1.96 * se, abs=0.1 * se)
    assert prof.attrs["interval_hi"] == pytest.approx(k + 1.96 * se, abs=0.1 * se)
    assert np.all(np.diff(prof.y0.values) > 0)  # a faster decay needs a larger start: y0 is refitted along k


def test_bad_profile_arguments_are_refused():
    with pytest.raises(ValueError, match="name must be one of the fitted params"):
        difflab.profile(Decay(), None, DATA, params=PARAMS, name="rate", values=[0.4, 0.5, 0.6])
    with pytest.raises(ValueError, match="values must be at least 3 finite, increasing numbers"):
        difflab.profile(Decay(), None, DATA, params=PARAMS, name="k", values=[0.5, 0.4, 0.6])
    with pytest.raises(ValueError, match="at least one other fitted parameter"):
        difflab.profile(Decay(), None, DATA, params={"k": difflab.Positive()}, name="k", values=[0.4, 0.5, 0.6])
