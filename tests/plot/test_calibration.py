"""plot.calibration on a tiny fit of dy/dt = -k y: data, fitted trace, residuals and history as drawn."""

import numpy as np
import pytest
from _systems import Decay, decay_data

import difflab
from difflab import plot

from ._render import render


@pytest.fixture(scope="module")
def fit():
    data = decay_data(k=0.5, y0=2.0, n=21, noise=0.05)
    result = difflab.calibrate(Decay(k=0.3), None, data, params={"k": difflab.Positive()}, steps=20)
    return result, data


def test_panels_hold_data_fit_residuals_and_history(fit):
    result, data = fit
    fig = plot.calibration(result, None, data)
    render(fig)
    top, residual, loss, k = fig.axes
    measured, fitted = top.lines
    np.testing.assert_array_equal(measured.get_ydata(), data["y"])
    k_fit = float(result.best["k"])
    np.testing.assert_allclose(fitted.get_ydata(), 2.0 * np.exp(-k_fit * data["time"]), rtol=1e-5)
    np.testing.assert_allclose(residual.lines[0].get_ydata(), data["y"] - fitted.get_ydata(), atol=1e-12)
    np.testing.assert_array_equal(k.lines[0].get_ydata(), result.history["k"].values[:, 0])
    np.testing.assert_array_equal(loss.lines[0].get_ydata(), result.history["loss"].values[:, 0])
    assert abs(k_fit - 0.5) < 0.03
    assert top.get_ylabel() == "y (mV)" and residual.get_xlabel() == "time (ms)"
    assert k.get_ylabel() == "k (1/ms)" and k.get_xlabel() == "optimiser step"
    assert loss.get_ylabel() == "loss (mV^2)"  # a mean squared error of a variable in mV
    assert result.losses.attrs["units"] == "mV^2" and result.history["loss"].attrs["units"] == "mV^2"


def test_bad_input_is_named(fit):
    result, data = fit
    with pytest.raises(TypeError, match=r"result must be the Calibration that difflab\.calibrate returns; got dict"):
        plot.calibration({"k": 0.5}, None, data)
    with pytest.raises(KeyError, match="variable 'V' is not a fitted variable of the data; these are: y"):
        plot.calibration(result, None, data, variable="V")
    with pytest.raises(IndexError, match="recording must index one of the fit's 1 recording"):
        plot.calibration(result, None, data, recording=3)
