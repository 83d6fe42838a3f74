"""plot.reflector on a shipped FAST answer; plot.populations and plot.bloch on a resonant Rabi oscillation."""

import numpy as np
import pytest
import xarray as xr
from matplotlib.figure import Figure

import difflab.quantum as q
from difflab import datasets, plot

from ._render import render

OMEGA = 2.0  # rad/ns: H = (Ω/2) σx flips |0⟩ to |1⟩ in π/Ω ns
TS = np.linspace(0.0, np.pi / OMEGA, 9)


@pytest.fixture(scope="module")
def solution():
    return datasets.load("fast/solution_q1")


def test_reflector_colours_every_aperture_node_by_its_extension(solution):
    ax = plot.reflector(solution)
    render(ax.figure)
    (points,) = ax.collections
    inside = solution["inside_aperture"].values.astype(bool)
    np.testing.assert_array_equal(points.get_array(), solution["extension"].values[inside])
    # the aperture (radius 150 m) seen along the source direction is a disc of that radius
    radius = np.hypot(*points.get_offsets().T)
    assert 145.0 < radius.max() < 152.0
    assert ax.figure.axes[1].get_ylabel() == "extension (m)"


def test_reflector_relative_to_another_surface(solution):
    ax = plot.reflector(solution, relative_to="extension_fit", aperture_only=False)
    (points,) = ax.collections
    expected = solution["extension"].values - solution["extension_fit"].values
    np.testing.assert_allclose(points.get_array(), expected)
    assert ax.figure.axes[1].get_ylabel() == "extension − extension_fit (m)"
    assert points.get_clim() == (-np.abs(expected).max(), np.abs(expected).max())
    assert plot.reflector(solution, limit=0.45).collections[0].get_clim() == (-0.45, 0.45)
    named = xr.DataArray(np.zeros(solution.sizes["node"]), name="μ")
    assert plot.reflector(solution, relative_to=named).figure.axes[1].get_ylabel() == "extension − μ (m)"


def test_reflector_bad_input_is_named(solution):
    with pytest.raises(KeyError, match="variable 'offset' is not a variable of the data"):
        plot.reflector(solution, "offset")
    with pytest.raises(TypeError, match=r"solution must be the Dataset of difflab\.reflector\.solution_dataset"):
        plot.reflector(np.zeros(3))
    with pytest.raises(ValueError, match=r"relative_to must hold one value per node, shape \(2226,\); got shape"):
        plot.reflector(solution, relative_to=np.zeros(5))
    with pytest.raises(ValueError, match="limit must be a positive colour range in metres; got 0"):
        plot.reflector(solution, limit=0)


@pytest.fixture(scope="module")
def rabi():
    ops = {"x": q.sigmax(), "y": q.sigmay(), "z": q.sigmaz()}
    return q.sesolve(OMEGA / 2 * q.sigmax(), q.basis(2, 0), TS, exp_ops=ops, save_states=True, rtol=1e-10, atol=1e-10)


def test_populations_follow_the_exact_rabi_oscillation(rabi):
    ax = plot.populations(rabi)
    render(ax.figure)
    ground, excited = ax.lines
    np.testing.assert_allclose(ground.get_ydata(), np.cos(OMEGA * TS / 2) ** 2, atol=1e-8)
    np.testing.assert_allclose(excited.get_ydata(), np.sin(OMEGA * TS / 2) ** 2, atol=1e-8)
    assert [ground.get_label(), excited.get_label()] == ["|0⟩", "|1⟩"]
    assert ax.get_xlabel() == "time (ns)" and ax.get_ylabel() == "population (1)"


def test_bloch_path_is_the_expectation_of_the_pauli_operators(rabi):
    ax = plot.bloch(rabi)
    render(ax.figure)
    (path,) = [line for line in ax.lines if line.get_label() == "trajectory"]
    expected = np.real(np.asarray(rabi.expects)).T  # (x, y, z) over time
    np.testing.assert_allclose(np.asarray(path.get_data_3d()), expected, atol=1e-8)
    # exact: rotation about x from the north pole to the south pole through -y
    np.testing.assert_allclose(expected[1], -np.sin(OMEGA * TS), atol=1e-8)
    assert ax.get_zlabel() == "⟨σz⟩ (1)"


def test_quantum_bad_input_is_named(rabi):
    with pytest.raises(ValueError, match="result holds no states: solve with save_states=True"):
        plot.populations(q.sesolve(q.sigmax(), q.basis(2, 0), TS[:3], exp_ops=[q.sigmaz()]))
    with pytest.raises(ValueError, match="result must be a qubit"):
        plot.bloch(q.sesolve(q.number(3), q.basis(3, 0), TS[:3], save_states=True))
    both = q.sesolve(q.sigmax(), [q.basis(2, 0), q.basis(2, 1)], TS[:3], save_states=True)
    with pytest.raises(ValueError, match=r"result holds a batch over \['initial_state'\]; select one member first"):
        plot.populations(both)
    with pytest.raises(ValueError, match=r"ax must be a '3d' axes"):
        plot.bloch(rabi, ax=Figure().add_subplot())
    with pytest.raises(TypeError, match=r"result must be a difflab\.quantum\.QuantumResult"):
        plot.populations([1.0, 0.0])
