"""Neurolucida reading: Import3d's sections and soma, nseg rules and BluePyOpt's axon stub against NEURON 9.

NEURON keeps 3-D points in single precision, and read_asc rounds them the same way, so the soma's 3-D points
are NEURON's exactly. NEURON also *subtracts* them in single precision when it measures arc length, difflab
exactly: that alone leaves lengths and areas 2.4e-8 (relative) apart on C060114A7 (below 2e-9 on the small
files), so those are compared to 3e-8, and `test_the_residual_is_neurons_single_precision_arc` shows that with
NEURON's subtraction the lengths agree to 1e-12.
"""

import numpy as np
import pytest

import difflab
from difflab.neuron import ASCError, read_asc, read_swc, replace_axon, with_nseg
from difflab.neuron._axon import segment_diameter

STEMS = ["C060114A7", "asc_syntax", "asc_soma_stack"]
RTOL = 3e-8  # NEURON's single-precision arc lengths (module docstring)
CM = {"soma": 1.0, "axon": 1.0, "dend": 2.0, "apic": 2.0, "dend_0": 1.0}  # uF/cm2, as generate_asc.py


@pytest.fixture(scope="module")
def cells():
    return {stem: read_asc(difflab.datasets.path(f"neuron/{stem}.asc")) for stem in STEMS}


def _ref(stem):
    return difflab.datasets.load(f"neuron/{stem}_import3d")


def _segment_values(morph, ref, fn):
    out = []
    for seg in ref["segment"].values:
        name, x = morph.location(str(seg))
        out.append(fn(morph, name, x))
    return np.array(out)


@pytest.mark.parametrize("stem", STEMS)
def test_sections_are_import3ds(cells, stem):
    """Every section's name, parent, attachment, point count and length; every segment's area and diameter."""
    morph, ref = cells[stem], _ref(stem)
    names = [str(n) for n in ref["section"].values]
    assert sorted(names) == sorted(morph.names)
    for i, name in enumerate(names):
        sec = morph.sections[morph.index[name]]
        assert sec.parent == (str(ref["parent"].values[i]) or None), name
        if sec.parent is not None:
            assert sec.parent_x == float(ref["parent_x"].values[i]), name
        assert len(sec.points) == int(ref["n3d"].values[i]), name
        assert sec.L == pytest.approx(float(ref["L"].values[i]), rel=RTOL), name
    area = _segment_values(morph, ref, lambda m, n, x: m.area[m.node((n, x))])
    np.testing.assert_allclose(area, ref["area"].values, rtol=RTOL)
    diam = _segment_values(morph, ref, lambda m, n, x: segment_diameter(m.sections[m.index[n]], x))
    np.testing.assert_allclose(diam, ref["diam"].values, rtol=RTOL)


@pytest.mark.parametrize("stem", STEMS)
def test_soma_is_neurons_contour2centroid(cells, stem):
    """The soma's 3-D points (21 along the outline's axis, or one per outline of a stack) are NEURON's exactly."""
    morph, ref = cells[stem], _ref(stem)
    soma = morph.sections[morph.index["soma[0]"]]
    np.testing.assert_array_equal(np.array(soma.points), ref["soma_points"].values)
    i = [str(n) for n in ref["section"].values].index("soma[0]")
    assert soma.L == pytest.approx(float(ref["L"].values[i]), rel=RTOL)
    assert morph.area[morph.node("soma[0](0.5)")] == pytest.approx(float(ref["area"].sel(segment="soma[0](0.5)")),
                                                                   rel=RTOL)  # fmt: skip


def test_the_residual_is_neurons_single_precision_arc(cells):
    ref = _ref("C060114A7")
    for i, name in enumerate(ref["section"].values):
        pts = np.asarray(cells["C060114A7"].sections[cells["C060114A7"].index[str(name)]].points, np.float32)
        step = (pts[1:, :3] - pts[:-1, :3]).astype(float)  # NEURON: float - float, then double
        assert np.sqrt((step**2).sum(axis=1)).sum() == pytest.approx(float(ref["L"].values[i]), rel=1e-12)


def test_syntax_file_sections_and_types(cells):
    """Ending labels, markers, spines, texts, sets and a non-soma contour make no sections; types follow the
    tree's last property (a tree ending its properties with (Color ...) is dend_0, as in NEURON)."""
    morph = cells["asc_syntax"]
    assert sorted(morph.names) == sorted(
        ["soma[0]", *(f"dend[{i}]" for i in range(6)), "axon[0]", "axon[1]", "axon[2]", "apic[0]", "dend_0[0]"]
    )
    # dend[2] starts at its parent's end (no extra point), dend[3] gets one there with its own diameter
    assert morph.sections[morph.index["dend[2]"]].points[0][3] == pytest.approx(0.8)
    assert len(morph.sections[morph.index["dend[3]"]].points) == 3


@pytest.mark.parametrize(("rule", "variable", "kwargs"), [
    ("d_lambda", "nseg_d_lambda", {"Ra": 100.0, "cm": CM}),
    (("length", 40.0), "nseg_length_40", {}),
])  # fmt: skip
def test_nseg_rules_are_neurons(cells, rule, variable, kwargs):
    ref = _ref("C060114A7")
    morph = with_nseg(cells["C060114A7"], rule, **kwargs)
    got = [morph.sections[morph.index[str(n)]].nseg for n in ref["section"].values]
    np.testing.assert_array_equal(got, ref[variable].values)
    assert int(ref[variable].values.sum()) == morph.n_segments > 1000


def test_axon_replacement_is_bluepyopts(cells):
    ref = difflab.datasets.load("neuron/C060114A7_bluepyopt")
    morph = replace_axon(with_nseg(cells["C060114A7"], ("length", 40.0)))
    names = [str(n) for n in ref["section"].values]
    assert sorted(names) == sorted(morph.names)
    for i, name in enumerate(names):
        sec = morph.sections[morph.index[name]]
        assert (sec.parent, sec.nseg) == (str(ref["parent"].values[i]) or None, int(ref["nseg"].values[i])), name
        if sec.parent is not None:
            assert sec.parent_x == float(ref["parent_x"].values[i]), name
        assert sec.L == pytest.approx(float(ref["L"].values[i]), rel=RTOL), name
    assert [morph.sections[morph.index[f"axon[{k}]"]].points[0][3] for k in (0, 1)] == pytest.approx(
        [float(ref["diam"].sel(segment=f"axon[{k}](0.5)")) for k in (0, 1)], rel=1e-7
    )
    area = _segment_values(morph, ref, lambda m, n, x: m.area[m.node((n, x))])
    np.testing.assert_allclose(area, ref["area"].values, rtol=RTOL)
    same = read_asc(difflab.datasets.path("neuron/C060114A7.asc"), nseg=("length", 40.0), replace_axon=True)
    assert same == morph


def test_read_swc_takes_the_nseg_rules():
    morph = read_swc(difflab.datasets.path("neuron/soma_one_point.swc"), nseg=("length", 5.0))
    assert [s.nseg for s in morph.sections] == [1 + 2 * int(s.L / 5.0) for s in morph.sections]
    with pytest.raises(ValueError, match="nseg='d_lambda' needs Ra"):
        read_swc(difflab.datasets.path("neuron/soma_one_point.swc"), nseg="d_lambda")


SOMA = '("CellBody" (CellBody) (0 0 0 0) (4 2 0 0) (6 6 0 0) (1 5 0 0))\n'
DEND = "( (Dendrite) (5 5 0 1) (20 5 0 1) Normal )\n"


@pytest.mark.parametrize(("text", "message"), [
    (DEND, r"cell\.asc: no soma: expected a contour named \"CellBody\""),
    ('("CellBody" (CellBody) (0 0 0 0) (4 2 0 0)\n' + DEND, r"line 1: the contour 'CellBody' opened here is not"),
    (SOMA + "( (Dendrite)\n (5 5 0 1) (20 5 0 1)\n", r"line 2: the '\(' opened here is not closed"),
    (SOMA + "( (Dendrite) (5 5 0 1)\n (20 5 0 -1) Normal )\n", r"line 3: a point's diameter must be > 0 µm; got -1"),
    (SOMA + "( (Dendrite) (5 5 0 1)\n (20 5 0 0) Normal )\n", r"line 3: a point's diameter must be > 0 µm; got 0"),
    (SOMA + "\n(12 5 0 1)\n", r"line 3: unknown construct '\( 12\.0'"),
    (SOMA + "( (Dendrite) (5 5 0 1) (20 5 0 1) Normal ))\n", r"line 2: '\)' closes no '\('"),
    (SOMA + "( (Dendrite) (5 5 0 1) # (20 5 0 1) )\n", r"line 2: unknown character '#'"),
    (SOMA + '("CellBody" (5 0 0 0) (9 2 0 0) (9 6 0 0))' + "\n" + '("Soma" (90 90 0 0) (94 92 0 0) (91 95 0 0))\n'
     + DEND, r"2 soma contours that do not overlap \(lines 1, 3\)"),
    (SOMA + "( (Dendrite) (5 5 0 1) (Dot (1 2 3 4)) (20 5 0 1) )\n", r"line 2: expected '\(' starting a point"),
])  # fmt: skip
def test_malformed_files_are_refused(tmp_path, text, message):
    file = tmp_path / "cell.asc"
    file.write_text(text)
    with pytest.raises(ASCError, match=message):
        read_asc(file)


def test_bad_nseg_rules_are_refused(cells):
    with pytest.raises(ValueError, match="cm has no value for region 'dend_0'"):
        with_nseg(cells["asc_syntax"], "d_lambda", Ra=100.0, cm={"soma": 1.0, "axon": 1.0, "dend": 2.0, "apic": 2.0})
    with pytest.raises(ValueError, match=r"nseg must be a number, .* got 'lambda'"):
        with_nseg(cells["asc_syntax"], "lambda")
    with pytest.raises(ValueError, match=r"expected 'length' and 1 positive number"):
        with_nseg(cells["asc_syntax"], ("length", -3.0))
