"""plot.sensitivity: bars at the indices, error bars at the bootstrap intervals, one group per parameter."""

import numpy as np
import pytest
import xarray as xr
from matplotlib.container import BarContainer

from difflab import plot
from difflab.sensitivity import Saltelli, sobol_analyze

from ._render import render


@pytest.fixture(scope="module")
def indices():
    design = Saltelli(64, {"x1": (0.0, 1.0), "x2": (0.0, 1.0), "x3": (0.0, 1.0)})
    p = design.points()
    ds = xr.Dataset({"g": ("sample", p["x1"] + 2 * p["x2"] + p["x1"] * p["x3"])}, attrs={"observables": "g"})
    return sobol_analyze(ds, design)


def test_bars_and_error_bars_are_the_indices_and_their_intervals(indices):
    ax = plot.sensitivity(indices)
    render(ax.figure)
    first, total = [c for c in ax.containers if isinstance(c, BarContainer)]
    bars = list(ax.patches)
    assert len(bars) == 6
    np.testing.assert_allclose([b.get_height() for b in bars[:3]], indices["first_order"].sel(output="g"))
    np.testing.assert_allclose([b.get_height() for b in bars[3:]], indices["total"].sel(output="g"))
    segments = first.errorbar.lines[2][0].get_segments()
    ci = indices["first_order_ci"].sel(output="g")
    np.testing.assert_allclose([s[:, 1] for s in segments], ci.values)
    assert total.errorbar is not None
    assert [t.get_text() for t in ax.get_xticklabels()] == ["x1", "x2", "x3"]


def test_bad_names_are_refused(indices):
    with pytest.raises(KeyError, match="output 'h' is not in the Dataset; its outputs: g"):
        plot.sensitivity(indices, output="h")
    with pytest.raises(KeyError, match="indices 'mu' is not a variable"):
        plot.sensitivity(indices, indices="mu")
    with pytest.raises(TypeError, match="ds must be the Dataset of a sensitivity method"):
        plot.sensitivity(xr.Dataset())
