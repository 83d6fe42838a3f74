"""plot.wigner on a Fock state: the image holds (−1)ⁿ/π · Lₙ(2r²) · e^{−r²}, on a colour scale centred at zero."""

import numpy as np
import pytest
from scipy.special import eval_laguerre

import difflab.quantum as q
from difflab import plot

from ._render import render


def test_wigner_image_is_the_exact_fock_wigner_function():
    x, y = np.linspace(-3.0, 3.0, 25), np.linspace(-2.0, 2.0, 17)
    ax = plot.wigner(q.wigner(q.fock(6, 1), x, y), x, y)
    render(ax.figure)
    mesh = ax.collections[0]
    xx, yy = np.meshgrid(x, y)
    r2 = xx**2 + yy**2
    exact = -eval_laguerre(1, 2 * r2) * np.exp(-r2) / np.pi  # W(0) = −1/π
    data = np.asarray(mesh.get_array()).reshape(y.size, x.size)
    assert np.abs(data - exact).max() <= 1e-12
    assert mesh.norm.vmin == -mesh.norm.vmax == pytest.approx(-1 / np.pi, abs=1e-12)
    assert ax.get_xlabel() == "x (1)" and ax.get_ylabel() == "y (1)"
    assert len(ax.figure.axes) == 2  # the colour bar


def test_wigner_bad_input_is_named():
    x = np.linspace(-1.0, 1.0, 5)
    ax = plot.wigner(np.zeros((5, 5)), x, x, colorbar=False)
    assert len(ax.figure.axes) == 1 and ax.collections[0].norm.vmax == 1.0  # all zero: limits ±1
    with pytest.raises(ValueError, match=r"values must be a real Wigner function of shape .* = \(3, 5\)"):
        plot.wigner(np.zeros((5, 3)), x, x[:3])
    with pytest.raises(ValueError, match=r"values must be finite; found 1 NaN/inf"):
        plot.wigner(np.diag([np.nan, 0, 0, 0, 0]), x, x)
    with pytest.raises(ValueError, match=r"xvec and yvec must be 1-D"):
        plot.wigner(np.zeros((5, 5)), x[:, None], x)
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        plot.wigner(np.zeros((5, 5)), x, x, ax="axes")
