"""plot.sweep over grid and sampled designs of dy/dt = -k y, and plot.fi_curve."""

import numpy as np
import pytest
import xarray as xr
from _systems import Decay
from matplotlib.figure import Figure

from difflab import plot
from difflab.ensembles import Grid, RandomDesign, sweep

from ._render import render

TS = np.linspace(0.0, 2.0, 5)
OBS = {"final": (lambda traj: traj.ys["y"][-1], "mV")}


@pytest.fixture(scope="module")
def grid():
    return sweep(Decay(), None, TS, Grid(k=[0.1, 0.4, 0.7, 1.0], y0=[1.0, 2.0]), OBS)


@pytest.fixture(scope="module")
def sampled():
    return sweep(Decay(), None, TS, RandomDesign(8, {"k": (0.1, 1.0), "y0": (1.0, 3.0)}, seed=1), OBS)


def test_lines_over_one_parameter_one_per_value_of_the_other(grid):
    ax = plot.sweep(grid, x="k")
    render(ax.figure)
    assert len(ax.lines) == 2
    for line, y0 in zip(ax.lines, [1.0, 2.0]):
        np.testing.assert_array_equal(line.get_xdata(), [0.1, 0.4, 0.7, 1.0])
        np.testing.assert_allclose(line.get_ydata(), y0 * np.exp(-2.0 * line.get_xdata()), rtol=1e-5)
        assert line.get_label() == f"y0 = {y0:g} mV"
    assert ax.get_xlabel() == "k (1/ms)" and ax.get_ylabel() == "final (mV)"


def test_heat_map_over_a_grid(grid):
    ax = plot.sweep(grid, x="k", y="y0", variable="final")
    render(ax.figure)
    (mesh,) = ax.collections
    np.testing.assert_allclose(mesh.get_array().reshape(2, 4), grid["final"].values.T)
    assert ax.get_xlabel() == "k (1/ms)" and ax.get_ylabel() == "y0 (mV)"
    assert ax.figure.axes[1].get_ylabel() == "final (mV)"  # the colour bar


def test_sampled_design_gives_markers_and_refuses_a_heat_map(sampled):
    ax = plot.sweep(sampled, x="k")
    (line,) = ax.lines
    order = np.argsort(sampled["k"].values)
    np.testing.assert_array_equal(line.get_xdata(), sampled["k"].values[order])
    np.testing.assert_array_equal(line.get_ydata(), sampled["final"].values[order])
    assert line.get_linestyle() == "None"
    with pytest.raises(ValueError, match=r"a heat map needs a Grid design; this sweep's design \(RandomDesign\)"):
        plot.sweep(sampled, x="k", y="y0")


def test_sweep_bad_input_is_named(grid):
    with pytest.raises(KeyError, match="x 'tau' is not a parameter of the sweep; its parameters: k, y0"):
        plot.sweep(grid, x="tau")
    with pytest.raises(KeyError, match="variable 'peak' is not a variable of the data"):
        plot.sweep(grid, x="k", variable="peak")
    with pytest.raises(TypeError, match=r"ds must be the xarray Dataset that difflab\.sweep returns; got dict"):
        plot.sweep({"final": [1.0]}, x="k")
    with pytest.raises(ValueError, match=r"a heat map needs 'final' over exactly \('k', 'k'\)"):
        plot.sweep(grid, x="k", y="k")


def test_a_dataset_made_by_hand_plots_its_only_variable():
    """A study assembled outside `sweep` (no `observables` attribute): its one data variable is the default."""
    ds = xr.Dataset({"error": ("dt", [0.5, 0.2, 0.1], {"units": "ms"})}, coords={"dt": ("dt", [0.1, 0.05, 0.025])})
    ax = plot.sweep(ds, x="dt")
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), [0.5, 0.2, 0.1])
    assert ax.get_ylabel() == "error (ms)"
    with pytest.raises(ValueError, match="variable: name the observable to plot; this sweep has error, bound"):
        plot.sweep(ds.assign(bound=ds["error"] * 2), x="dt")


def test_fi_curve_with_a_reference():
    currents, rates = np.array([0.0, 5.0, 10.0]), np.array([0.0, 0.0, 68.0])
    ax = Figure().add_subplot()
    assert plot.fi_curve(currents, rates, reference=(currents, rates + 1.0), ax=ax) is ax
    render(ax.figure)
    reference, model = ax.lines
    np.testing.assert_array_equal(model.get_xdata(), currents)
    np.testing.assert_array_equal(model.get_ydata(), rates)
    np.testing.assert_array_equal(reference.get_ydata(), rates + 1.0)
    assert ax.get_xlabel() == "current (µA/cm²)" and ax.get_ylabel() == "firing rate (Hz)"


def test_fi_curve_bad_input_is_named():
    with pytest.raises(ValueError, match=r"currents and rates must be 1-D arrays of one length; got shapes \(3,\) and"):
        plot.fi_curve([1.0, 2.0, 3.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="reference currents and reference rates must be finite"):
        plot.fi_curve([1.0], [0.0], reference=([np.nan], [0.0]))
