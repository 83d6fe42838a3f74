"""plot.trajectory and plot.overlay: lines equal to the data, names and units on the axes, bad input named."""

import numpy as np
import pytest
import xarray as xr
from _systems import Relaxation, step_response
from matplotlib.figure import Figure

import difflab
from difflab import plot

from ._render import render

TS = np.linspace(0.0, 6.0, 13)


@pytest.fixture(scope="module")
def traj():
    return difflab.simulate(Relaxation(tau=2.0, y_init=1.0), difflab.Step(3.0, 1.0, 4.0), TS, rtol=1e-8, atol=1e-8)


def test_trajectory_draws_the_saved_values(traj):
    fig = plot.trajectory(traj)
    render(fig)
    (ax,) = fig.axes
    (line,) = ax.lines
    np.testing.assert_array_equal(line.get_xdata(), TS)
    np.testing.assert_array_equal(line.get_ydata(), np.asarray(traj["y"]))
    # and the saved values are the exact solution, so the figure shows the right curve
    np.testing.assert_allclose(line.get_ydata(), step_response(TS, 2.0, 1.0, 3.0, 1.0, 4.0), atol=1e-6)
    assert ax.get_ylabel() == "y (mV)" and ax.get_xlabel() == "time (ms)"


def _hh_like():
    t = np.linspace(0.0, 1.0, 5)
    return xr.Dataset(
        {
            "V": ("time", -65.0 + t, {"units": "mV", "long_name": "membrane potential"}),
            "m": ("time", 0.05 + 0.1 * t, {"units": "1"}),
            "h": ("time", 0.6 - 0.1 * t, {"units": "1"}),
            "I": (("member", "time"), np.stack([t, 2 * t]), {"units": "µA/cm²"}),
        },
        coords={"time": ("time", t, {"units": "ms"})},
    )


def test_one_panel_per_unit_and_one_line_per_member():
    ds = _hh_like()
    fig = plot.trajectory(ds)
    render(fig)
    assert [ax.get_ylabel() for ax in fig.axes] == ["V (mV)", "m, h (1)", "I (µA/cm²)"]
    assert [len(ax.lines) for ax in fig.axes] == [1, 2, 2]
    np.testing.assert_array_equal(fig.axes[2].lines[1].get_ydata(), ds["I"].values[1])
    assert fig.axes[-1].get_xlabel() == "time (ms)"


def test_draws_into_a_given_axes():
    ax = Figure().add_subplot()
    fig = plot.trajectory(_hh_like(), ["m", "h"], ax=ax)
    assert fig is ax.figure and [line.get_label() for line in ax.lines] == ["m", "h"]


def test_bad_input_is_named(traj):
    with pytest.raises(KeyError, match=r"variables entry 'W' is not a variable of the data; its variables: y"):
        plot.trajectory(traj, ["W"])
    with pytest.raises(TypeError, match="traj must be a difflab Trajectory or its to_xarray"):
        plot.trajectory(np.zeros(3))
    with pytest.raises(ValueError, match=r"ax: one axes takes variables of one unit; these have 3"):
        plot.trajectory(_hh_like(), ax=Figure().add_subplot())
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        plot.trajectory(traj, ax="axes")
    with pytest.raises(TypeError, match=r"variables must be a list of names; got the string 'y'"):
        plot.trajectory(traj, "y")


def test_overlay_shows_model_reference_and_residual():
    x = np.linspace(0, 1, 6)
    fig = plot.overlay(x, x**2, x, xlabel="time (ms)", ylabel="V (mV)")
    render(fig)
    top, bottom = fig.axes
    np.testing.assert_array_equal(bottom.lines[0].get_ydata(), x**2 - x)
    assert top.get_ylabel() == "V (mV)" and bottom.get_xlabel() == "time (ms)"
    assert [t.get_text() for t in top.get_legend().get_texts()] == ["reference", "difflab"]
    fig = plot.overlay(x, x, x, xlabel="t", ylabel="y", model_label="scan", reference_label="while")
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["while", "scan"]
    with pytest.raises(ValueError, match="x, model and reference must be 1-D arrays of one length"):
        plot.overlay(x, x[:3], x, xlabel="t", ylabel="y")


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"pip install 'difflab\[plot\]'"):
        plot.fi_curve([1.0, 2.0], [0.0, 50.0])
