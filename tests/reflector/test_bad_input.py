"""Bad reflector input is refused with a message naming the argument (concrete values, before tracing)."""

import numpy as np
import openpyxl
import pytest
from typer.testing import CliRunner

from difflab import reflector as rf
from difflab.cli import app


@pytest.mark.parametrize("depth", [np.nan, -300.8, 0.0, 100.0])
def test_depth_without_a_paraboloid_is_refused(geometry, q2, depth):
    with pytest.raises(ValueError, match=r"depth \(vertex depth \|V\|, m\) must be finite and > 0.534 R = 160.4136"):
        rf.ideal_extensions(geometry, q2.s, depth)
    with pytest.raises(ValueError, match="depth"):
        rf.vertex(q2.s, depth)


@pytest.mark.parametrize("factor", [2.0, 0.0, np.nan, -300.8])
def test_non_unit_direction_is_refused(geometry, q2, factor):
    with pytest.raises(ValueError, match=r"s must be a unit vector towards the source .*source_direction"):
        rf.ideal_extensions(geometry, factor * q2.s, 300.8)
    with pytest.raises(ValueError, match="s must be a unit vector"):
        rf.feed_position(factor * q2.s)


def test_rounded_published_direction_is_accepted(geometry, q2):
    s = np.round(np.asarray(q2.s), 6)  # as the published Q2 direction (0.164181, 0.122801, 0.978757)
    np.testing.assert_allclose(rf.vertex(s, 300.8), rf.vertex(q2.s, 300.8), atol=1e-3)


def test_nan_extension_is_refused(geometry, q2):
    e = np.zeros(geometry.n_nodes)
    e[5] = np.nan
    with pytest.raises(ValueError, match=r"e must be finite .* first e\[5\] = nan"):
        rf.receiving_ratio(geometry, e, q2, n=4)
    with pytest.raises(ValueError, match=r"e must have shape \(2226,\)"):
        rf.node_positions(geometry, np.zeros(3))


def test_horizon_pointing_is_refused_not_nan(geometry):
    with pytest.raises(ValueError, match=r"beta \(elevation\) = 0 degrees .*no panel.*zenith is beta = 90"):
        rf.Pointing.from_angles(geometry, 0.0, 0.0)
    low = rf.Pointing.from_angles(geometry, 0.0, 10.0)  # a few panels: a number, not NaN
    assert np.isfinite(float(rf.receiving_ratio(geometry, np.zeros(geometry.n_nodes), low, n=4)))


def _book(path, rows):
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "促动器顶端伸缩量"
    ws.append(["对应主索节点编号", "伸缩量（米）"])
    for row in rows:
        ws.append(list(row))
    book.save(path)
    return path


def test_boolean_cell_is_refused_naming_the_cell(tmp_path, geometry):
    path = _book(tmp_path / "bool.xlsx", [("A0", 0.1), ("B1", False)])
    with pytest.raises(ValueError, match="cell B3: extension of node 'B1' must be a number of metres; got the boolean"):
        rf.read_result_extensions(path, geometry)


def test_cli_check_unreadable_files(tmp_path):
    good = _book(tmp_path / "good.xlsx", [("A0", 0.1)])
    csv = tmp_path / "r.csv"
    csv.write_text("A0,0.1\n")
    empty = tmp_path / "empty.xlsx"
    empty.write_bytes(b"")
    truncated = tmp_path / "cut.xlsx"
    truncated.write_bytes(good.read_bytes()[:1000])
    for path, message in [(csv, "not a readable .xlsx"), (empty, "is empty"), (truncated, "not a readable .xlsx")]:
        res = CliRunner().invoke(app, ["fast", "check", str(path)])
        assert res.exit_code == 2, res.output
        assert f"error: {str(path)!r}" in res.output and message in res.output
        assert res.exception is None or isinstance(res.exception, SystemExit)
    res = CliRunner().invoke(app, ["fast", "check", str(good), "--beta", "0"])
    assert res.exit_code == 2 and "--beta (elevation) = 0 degrees" in res.output and "nan" not in res.output
