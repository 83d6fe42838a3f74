"""plot.morphology and plot.bap on a small branched cell whose compartments and lengths are known."""

import jax.numpy as jnp
import numpy as np
import pytest
from matplotlib.figure import Figure

from difflab import plot
from difflab.core.internal import StateInfo, Trajectory
from difflab.neuron import Cell, LeakChannel, Morphology, Region, Section

from ._render import render

# a soma along x, a straight apical dendrite along y (3 compartments), a bent basal one (3 points, 2 compartments)
SOMA = Section.cylinder("soma", 20.0, 20.0, origin=(-10.0, 0.0, 0.0))
APIC = Section.cylinder("apic", 300.0, 2.0, parent="soma", parent_x=0.5, nseg=3, direction=(0.0, 1.0, 0.0))
DEND = Section(
    "dend", "dend", ((10.0, 0.0, 0.0, 3.0), (40.0, -40.0, 5.0, 2.0), (40.0, -100.0, 5.0, 1.0)), "soma", 1.0, 2
)
MORPH = Morphology([SOMA, APIC, DEND])
N = MORPH.n_segments  # 6
VALUES = np.array([-65.0, -20.0, 5.0, 30.0, -40.0, -10.0])


def trajectory(ts, V) -> Trajectory:
    variables = (StateInfo("V", "mV", "membrane potential"),)
    return Trajectory(jnp.asarray(ts), {"V": jnp.asarray(V)}, 0, {}, variables, ())


def test_one_line_per_compartment_on_its_stretch_of_cable():
    ax = plot.morphology(MORPH, VALUES)
    render(ax.figure)
    (lines,) = ax.collections
    pieces = lines.get_segments()
    assert len(pieces) == N == 6
    lengths = [np.sum(np.linalg.norm(np.diff(p, axis=0), axis=1)) for p in pieces]
    np.testing.assert_allclose(lengths[:4], [20.0, 100.0, 100.0, 100.0], rtol=1e-12)
    # the bent dendrite (110.2 µm of 3-D arc): its bend at 50.2 µm lies inside the first half, a point of its own
    assert len(pieces[4]) == 3 and len(pieces[5]) == 2
    np.testing.assert_allclose(pieces[1][0], [0.0, 0.0])  # the apical dendrite from soma(0.5)
    np.testing.assert_allclose(pieces[3][-1], [0.0, 300.0])
    np.testing.assert_allclose(pieces[5][-1], [40.0, -100.0])
    np.testing.assert_array_equal(lines.get_array(), VALUES)
    assert lines.get_clim() == (-65.0, 30.0)  # the data's range
    np.testing.assert_allclose(lines.get_linewidths()[:2], [7.0, 0.8])  # 0.35 pt/µm, within 0.8 to 7
    assert ax.figure.axes[1].get_ylabel() == "V (mV)"  # the colour bar
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x (µm)", "y (µm)")


def test_a_density_in_its_units_with_chosen_limits_and_plane():
    cell = Cell(MORPH, {r: Region({"leak": LeakChannel(0.1 * (k + 1))}) for k, r in enumerate(MORPH.regions)})
    ax = Figure().add_subplot()
    ((_, leak, _),) = cell.segment_channels()  # the leak's conductance per compartment
    got = plot.morphology(cell, leak.g, name="g_leak", units="mS/cm²", clim=(0.0, 0.5), plane="xz", ax=ax)
    assert got is ax
    (lines,) = ax.collections
    np.testing.assert_allclose(lines.get_array(), [0.1, 0.2, 0.2, 0.2, 0.3, 0.3])
    assert lines.get_clim() == (0.0, 0.5)
    assert ax.figure.axes[1].get_ylabel() == "g_leak (mS/cm²)" and ax.get_ylabel() == "z (µm)"
    np.testing.assert_allclose(lines.get_segments()[5][-1], [40.0, 5.0])


def test_panels_can_share_one_colour_bar():
    fig = Figure()
    axes = fig.subplots(1, 2)
    for ax, shift in zip(axes, (0.0, 10.0), strict=True):
        plot.morphology(MORPH, VALUES + shift, clim=(-80.0, 40.0), colorbar=False, ax=ax)
    assert len(fig.axes) == 2 and axes[1].collections[0].get_label() == "V (mV)"
    np.testing.assert_array_equal(axes[1].collections[0].get_array(), VALUES + 10.0)


def test_a_trajectory_is_drawn_at_the_nearest_saved_time():
    ts = np.array([0.0, 0.5, 1.0])
    ax = plot.morphology(MORPH, trajectory(ts, np.stack([VALUES, VALUES + 1.0, VALUES + 2.0])), time=0.6)
    np.testing.assert_array_equal(ax.collections[0].get_array(), VALUES + 1.0)
    assert ax.figure.axes[1].get_ylabel() == "V at t = 0.5 ms (mV)"


def test_without_values_the_regions_are_coloured_with_a_legend():
    ax = plot.morphology(MORPH)
    (lines,) = ax.collections
    assert lines.get_array() is None and len(ax.figure.axes) == 1  # no colour bar
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["soma", "apic", "dend"]
    colours = lines.get_colors()
    np.testing.assert_array_equal(colours[1], colours[3])
    assert not np.array_equal(colours[0], colours[1]) and not np.array_equal(colours[1], colours[4])


def test_morphology_bad_input_is_named():
    with pytest.raises(ValueError, match=r"values must hold one value per compartment, shape \(6,\); got shape \(5,\)"):
        plot.morphology(MORPH, VALUES[:5])
    with pytest.raises(ValueError, match=r"values must be finite; got NaN or inf at 1 compartments \(first 2\)"):
        plot.morphology(MORPH, np.where(np.arange(N) == 2, np.nan, VALUES))
    with pytest.raises(TypeError, match=r"cell must be a difflab\.neuron Cell .* or a Morphology; got dict"):
        plot.morphology({"soma": SOMA}, VALUES)
    with pytest.raises(TypeError, match="values must be an array of numbers or a Trajectory; got str"):
        plot.morphology(MORPH, "V")
    with pytest.raises(ValueError, match=r"clim must be \(low, high\) with low < high; got \(1.0, 1.0\)"):
        plot.morphology(MORPH, VALUES, clim=(1.0, 1.0))
    with pytest.raises(ValueError, match="plane must be one of 'xy', 'xz', 'yz'; got 'zx'"):
        plot.morphology(MORPH, VALUES, plane="zx")
    with pytest.raises(ValueError, match=r"time must be a time inside the trajectory, 0 to 1 ms, .*; got None"):
        plot.morphology(MORPH, trajectory([0.0, 1.0], np.stack([VALUES, VALUES])))


def test_bap_amplitude_is_the_peak_after_onset_over_the_potential_before_it():
    ts = np.arange(0.0, 10.0, 0.5)
    rest = np.linspace(-70.0, -60.0, N)
    bump = np.exp(-MORPH.path_distances() / 100.0) * 80.0  # the amplitude falls with distance
    V = rest + bump * np.exp(-(((ts[:, None] - 6.0) / 0.5) ** 2))
    V[ts < 5.0] = rest + 3.0 * (ts[ts < 5.0, None] - 4.5)  # a drift up to the last time before onset: rest there
    ax = plot.bap(MORPH, trajectory(ts, V), onset=5.0, reference=([150.0], [20.0]))
    render(ax.figure)
    soma, apic, dend, reference = ax.collections
    d = MORPH.path_distances()
    np.testing.assert_allclose(apic.get_offsets(), np.stack([d[1:4], bump[1:4]], axis=1), rtol=1e-12)
    np.testing.assert_allclose(dend.get_offsets()[:, 1], bump[4:], rtol=1e-12)
    np.testing.assert_allclose(soma.get_offsets(), [[0.0, 80.0]])
    np.testing.assert_array_equal(reference.get_offsets(), [[150.0, 20.0]])
    assert ax.get_xlabel() == "path distance from the soma (µm)"
    assert ax.get_ylabel() == "bAP amplitude (V peak − rest) (mV)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["soma", "apic", "dend", "reference"]


def test_bap_bad_input_is_named():
    ts = np.arange(0.0, 3.0)
    traj = trajectory(ts, np.zeros((3, N)))
    with pytest.raises(ValueError, match=r"onset must lie inside the saved times with one before it; got 0 for"):
        plot.bap(MORPH, traj, onset=0.0)
    with pytest.raises(ValueError, match=r"traj\['V'\] must be \(time, 6 compartments\); got shape \(3, 4\)"):
        plot.bap(MORPH, trajectory(ts, np.zeros((3, 4))), onset=1.0)
    with pytest.raises(ValueError, match=r"the amplitudes must be finite; got NaN or inf at 1 compartments"):
        plot.bap(MORPH, trajectory(ts, np.where(np.arange(N) == 3, np.nan, np.zeros((3, N)))), onset=1.0)
    with pytest.raises(TypeError, match="traj must be a difflab Trajectory of the cell; got ndarray"):
        plot.bap(MORPH, np.zeros((3, N)), onset=1.0)
    with pytest.raises(ValueError, match="traj must be one cell's trajectory, not a batch"):
        plot.bap(MORPH, trajectory(np.zeros((2, 3)), np.zeros((2, 3, N))), onset=1.0)
    with pytest.raises(
        ValueError, match=r"reference must be \(distances, amplitudes\), .* got shapes \(2,\) and \(1,\)"
    ):
        plot.bap(MORPH, traj, onset=1.0, reference=([1.0, 2.0], [3.0]))
