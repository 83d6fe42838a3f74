"""SWC reading: Import3d's sections (names, parents, 3-D points, lengths, areas) and clear errors on bad files."""

import numpy as np
import pytest

import difflab
from difflab.neuron import SWCError, read_swc


@pytest.mark.parametrize("stem", ["soma_one_point", "soma_three_point", "da1_lpn_722817260"])
def test_sections_are_import3ds(stem):
    """Every section's parent, attachment, 3-D point count and length, and every segment's area, as NEURON's.

    NEURON keeps 3-D points in single precision: areas agree to 3e-4 on the 1289-section skeleton (exactly on the
    small synthetic files, whose coordinates are whole numbers).
    """
    morph = read_swc(difflab.datasets.path(f"neuron/{stem}.swc"))
    ref = difflab.datasets.load(f"neuron/{stem}_import3d")
    names = [str(n) for n in ref["section"].values]
    assert sorted(names) == sorted(morph.names)
    for i, name in enumerate(names):
        sec = morph.sections[morph.index[name]]
        parent = str(ref["parent"].values[i]) or None
        assert sec.parent == parent, name
        if parent is not None:
            assert sec.parent_x == float(ref["parent_x"].values[i]), name
        assert len(sec.points) == int(ref["n3d"].values[i]), name
        assert sec.L == pytest.approx(float(ref["L"].values[i]), rel=1e-5, abs=1e-4), name
    area = np.array([morph.area[morph.node(str(s))] for s in ref["segment"].values])
    np.testing.assert_allclose(area, ref["area"].values, rtol=5e-4 if stem.startswith("da1") else 1e-7)


def test_one_point_soma_is_a_cylinder_of_the_spheres_area():
    morph = read_swc(difflab.datasets.path("neuron/soma_one_point.swc"))
    soma = morph.sections[morph.index["soma[0]"]]
    assert soma.L == pytest.approx(20.0) and soma.points[0][3] == 20.0
    assert morph.area[morph.node("soma[0](0.5)")] == pytest.approx(4 * np.pi * 10.0**2)
    assert morph.sections[morph.index["dend[0]"]].parent_x == 0.5


def _write(tmp_path, lines):
    file = tmp_path / "cell.swc"
    file.write_text("\n".join(lines) + "\n")
    return file


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["1 1 0 0 0 5 -1", "2 3 10 0 0 1 7"], "line 2: point 2 has parent 7, which is not in the file"),
        (["1 1 0 0 0 5 -1", "2 3 10 0 0 1 3", "3 3 20 0 0 1 2"], "points form a cycle: 2 -> 3 -> 2"),
        (["1 1 0 0 0 5 -1", "2 3 10 0 0 0 1"], "line 2: point 2 needs a finite radius > 0 µm; got 0.0"),
        (["1 1 nan 0 0 5 -1", "2 3 10 0 0 1 1"], "line 1: point 1 needs a finite x (µm); got nan"),
        (["1 1 0 0 0 5 -1", "2 3 10 0 inf 1 1"], "line 2: point 2 needs a finite z (µm); got inf"),
        (["1 1 0 0 0 5 -1", "2 3 10 0 0 1"], "line 2: expected 'id type x y z radius parent'"),
        (["1 1 0 0 0 5 -1", "1 3 10 0 0 1 1"], "line 2: point 1 is defined twice"),
        (["1 1 0 0 0 5 -1", "2 3 10 0 0 1 -1"], "exactly one root point"),
    ],
)
def test_malformed_files_are_refused(tmp_path, lines, message):
    with pytest.raises(SWCError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_swc(_write(tmp_path, lines))


def test_unknown_section_names_are_refused():
    morph = read_swc(difflab.datasets.path("neuron/soma_three_point.swc"))
    with pytest.raises(KeyError, match="unknown section 'dend\\[7\\]'; sections: soma\\[0\\], dend\\[0\\]"):
        morph.node("dend[7](0.5)")
