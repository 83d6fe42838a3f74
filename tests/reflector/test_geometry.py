import numpy as np
import pytest

from difflab import reflector as rf


def test_counts(geometry):
    assert geometry.n_nodes == 2226
    assert geometry.panels.shape == (4300, 3)
    assert geometry.edges.shape == (6525, 2)


def test_edges_unique_and_lengths(geometry):
    edges = np.asarray(geometry.edges)
    assert np.all(edges[:, 0] < edges[:, 1])
    assert len({tuple(e) for e in edges}) == 6525
    length = np.asarray(geometry.edge_length)
    assert length.min() == pytest.approx(10.392, abs=1e-3)
    assert length.max() == pytest.approx(12.418, abs=1e-3)
    assert length.mean() == pytest.approx(11.391, abs=1e-3)


def test_nodes_on_base_sphere(geometry):
    r = np.linalg.norm(np.asarray(geometry.nodes), axis=1)
    assert np.abs(r - 300.4).max() < 1e-3
    assert geometry.node_ids[0] == "A0"


def test_actuators_point_outward(geometry):
    cos = np.sum(np.asarray(geometry.actuator_direction) * np.asarray(geometry.node_direction), axis=1)
    assert cos.min() > 0.99
    lengths = np.linalg.norm(np.asarray(geometry.actuator_upper - geometry.actuator_lower), axis=1)
    assert np.abs(lengths - 1.98).max() < 2e-4
    cable = np.asarray(geometry.cable_length)
    assert 1.23 < cable.min() < 1.24 and 49.4 < cable.max() < 49.5


def test_ten_off_line_nodes(geometry):
    off = geometry.off_line_distance()
    names = {geometry.node_ids[i] for i in np.flatnonzero(off > 0.5)}
    assert names == {"D69", "A132", "E140", "D155", "B284", "B285", "B286", "B287", "B288", "A385"}
    assert off[off > 0.5].min() > 1.2 and off[off > 0.5].max() < 5.0


def test_unique_edges_small_mesh():
    edges = rf.unique_edges(np.array([[0, 1, 2], [2, 1, 3]]))
    assert edges.tolist() == [[0, 1], [0, 2], [1, 2], [1, 3], [2, 3]]


def test_index_unknown_id(geometry):
    assert geometry.index(["A0", "B1"]).tolist() == [0, 1]
    with pytest.raises(KeyError, match="Z99"):
        geometry.index(["A0", "Z99"])
