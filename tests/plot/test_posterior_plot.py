"""plot.posterior: the marginals are the draws' densities, the pairs their scatter, truth and divergences marked."""

import numpy as np
import pytest
import xarray as xr

from difflab import plot

from ._render import render

CHAINS, DRAWS = 3, 400


@pytest.fixture(scope="module")
def draws():
    """A Dataset shaped as difflab.posterior's: two scalar parameters, one vector one, diagnostics, divergences."""
    rng = np.random.default_rng(0)
    a = rng.normal(0.7, 0.05, (CHAINS, DRAWS))
    b = 0.3 - 0.5 * (a - 0.7) + rng.normal(0.0, 0.02, (CHAINS, DRAWS))
    divergent = np.zeros((CHAINS, DRAWS), dtype=bool)
    divergent[1, [5, 17]] = True
    return xr.Dataset(
        {
            "a": (("chain", "draw"), a, {"units": "mV/ms"}),
            "b": (("chain", "draw"), b, {"units": "mV"}),
            "w": (("chain", "draw", "w_dim_0"), rng.normal(size=(CHAINS, DRAWS, 2)), {"units": "1"}),
            "rhat": ("parameter", [1.001, 1.002, 1.0]),
            "ess_bulk": ("parameter", [950.0, 870.0, 900.0]),
            "divergent": (("chain", "draw"), divergent),
        },
        coords={"parameter": ["a", "b", "w"]},
        attrs={"divergences": 2},
    )


def test_marginals_pairs_truth_and_divergences(draws):
    fig = plot.posterior(draws, ["a", "b"], truth={"a": 0.7, "b": 0.3}, bins=20)
    render(fig)
    axes = np.array(fig.axes).reshape(2, 2)
    assert not axes[0, 1].get_visible()
    # the marginal of a: 20 bars whose heights are the normalised histogram of every draw (integral 1)
    heights = np.array([p.get_height() for p in axes[0, 0].patches])
    widths = np.array([p.get_width() for p in axes[0, 0].patches])
    want, _ = np.histogram(draws["a"].values.ravel(), bins=20, density=True)
    np.testing.assert_allclose(heights, want, rtol=1e-12)
    assert abs(np.sum(heights * widths) - 1.0) < 1e-12
    assert axes[0, 0].get_title() == "a: R-hat 1.001, ESS 950"
    assert axes[0, 0].lines[0].get_xdata()[0] == 0.7  # truth line
    # the pair (a, b): every draw, then the two divergent ones in red, then the truth's cross
    points, bad = (c.get_offsets() for c in axes[1, 0].collections)
    np.testing.assert_array_equal(points, np.column_stack([draws["a"].values.ravel(), draws["b"].values.ravel()]))
    np.testing.assert_array_equal(bad[:, 0], draws["a"].values[1, [5, 17]])
    assert axes[1, 0].lines[0].get_xydata().tolist() == [[0.7, 0.3]]
    assert axes[1, 0].get_xlabel() == "a (mV/ms)" and axes[1, 0].get_ylabel() == "b (mV)"
    assert axes[1, 1].get_xlabel() == "b (mV)"


def test_bad_inputs_are_refused(draws):
    with pytest.raises(TypeError, match=r"ds must be the Dataset of difflab\.posterior"):
        plot.posterior(draws["a"])
    with pytest.raises(ValueError, match=r"params: 'w' has dims \('chain', 'draw', 'w_dim_0'\)"):
        plot.posterior(draws)  # every parameter by default, and w is a vector
    with pytest.raises(KeyError, match="params 'c' is not a variable of the data"):
        plot.posterior(draws, ["a", "c"])
    with pytest.raises(KeyError, match="truth 'w' is not a parameter drawn here; drawn: a, b"):
        plot.posterior(draws, ["a", "b"], truth={"w": 1.0})
    with pytest.raises(ValueError, match=r"truth\['a'\] must be finite; got nan"):
        plot.posterior(draws, ["a"], truth={"a": float("nan")})
    with pytest.raises(ValueError, match="bins must be a whole number >= 1; got 0"):
        plot.posterior(draws, ["a"], bins=0)
    with pytest.raises(TypeError, match="fig must be a matplotlib Figure"):
        plot.posterior(draws, ["a"], fig="figure")
