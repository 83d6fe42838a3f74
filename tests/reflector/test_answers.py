"""Answer files: the solution Dataset, result.xlsx round trip, and the checks on a result file."""

import numpy as np
import openpyxl
import pytest
from typer.testing import CliRunner

from difflab import reflector as rf
from difflab.cli import app


@pytest.fixture(scope="module")
def solution(geometry, q2):
    e = np.zeros(geometry.n_nodes)
    inside = np.asarray(q2.nodes_inside)
    e[inside] = np.linspace(-0.1, 0.1, inside.sum())  # any values: the writers do not judge them
    return rf.Solution(
        pointing=q2,
        depth=300.8,
        vertex=np.asarray(rf.vertex(q2.s, 300.8)),
        e_fit=e,
        e=e,
        objective="fit",
        zone_radii=(),
        zone_depths=(),
        eta=0.5,
        eta_fit=0.5,
        eta_base=0.056,
        report=rf.check_constraints(geometry, e),
    )


def test_solution_dataset(geometry, solution):
    ds = rf.solution_dataset(geometry, solution)
    assert ds.sizes == {"node": 2226, "xyz": 3}
    assert ds["extension"].attrs["units"] == "m"
    assert int(ds["inside_aperture"].sum()) == 692
    np.testing.assert_allclose(rf.extensions_from_dataset(geometry, ds), solution.e)
    np.testing.assert_allclose(ds["position"].values, rf.node_positions(geometry, solution.e))


def test_xlsx_round_trip(tmp_path, geometry, q2, solution):
    path = rf.write_solution_xlsx(tmp_path / "result.xlsx", geometry, solution)
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["理想抛物面顶点坐标", "调整后主索节点编号及坐标", "促动器顶端伸缩量"]
    assert [c.value for c in book["促动器顶端伸缩量"][1]] == ["对应主索节点编号", "伸缩量（米）"]
    assert book["调整后主索节点编号及坐标"].max_row == 1 + 692
    np.testing.assert_allclose([c.value for c in book["理想抛物面顶点坐标"][2]], [-49.3857, -36.9385, -294.41])
    e = rf.read_result_extensions(path, geometry, required_ids=q2.inside_ids(geometry))
    np.testing.assert_allclose(e, solution.e, atol=5e-5)
    with pytest.raises(FileExistsError, match="overwrite"):
        rf.write_solution_xlsx(path, geometry, solution)


def _write(path, rows):
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "促动器顶端伸缩量"
    ws.append(["对应主索节点编号", "伸缩量（米）"])
    for row in rows:
        ws.append(list(row))
    book.save(path)
    return path


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("A0", 0.1), ("Q7", 0.2)], "unknown node id 'Q7'"),
        ([("A0", 0.1), ("A0", 0.2)], "listed twice"),
        ([("A0", 0.75)], "beyond the ±0.6 m travel"),
        ([("A0", "abc")], "not a number"),
        ([("A0", 0.1)], "required node ids missing"),
    ],
)
def test_bad_result_files(tmp_path, geometry, q2, rows, message):
    path = _write(tmp_path / "bad.xlsx", rows)
    with pytest.raises(ValueError, match=message):
        rf.read_result_extensions(path, geometry, required_ids=q2.inside_ids(geometry))


def test_cli_bad_angles_and_existing_output(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["fast", "solve", "--alpha", "-5", "-o", str(tmp_path)])
    assert res.exit_code == 2 and "--alpha" in res.output
    (tmp_path / "result.xlsx").write_text("keep me")
    res = runner.invoke(app, ["fast", "solve", "-o", str(tmp_path)])
    assert res.exit_code == 2 and "--overwrite" in res.output
    assert (tmp_path / "result.xlsx").read_text() == "keep me"


def test_cli_check_reports_feasibility(tmp_path, geometry, q2, solution):
    path = rf.write_solution_xlsx(tmp_path / "result.xlsx", geometry, solution)
    res = CliRunner().invoke(app, ["fast", "check", str(path)])
    assert res.exit_code == 0 and "feasible" in res.output and "receiving ratio" in res.output
    moved = np.asarray(solution.e) != 0
    inside = np.asarray(q2.nodes_inside, bool)
    assert f"nodes adjusted: {moved.sum()}, of which {(moved & inside).sum()} of the 692 in the aperture" in res.output
    book = openpyxl.load_workbook(path)
    book["促动器顶端伸缩量"]["B2"] = 0.55  # A0 pushed 0.55 m inward: its six edges shorten too much
    book.save(path)
    res = CliRunner().invoke(app, ["fast", "check", str(path)])
    assert res.exit_code == 1 and "INFEASIBLE" in res.output
    bad = _write(tmp_path / "bad.xlsx", [("A0", 0.1), ("ZZ1", 0.0)])
    res = CliRunner().invoke(app, ["fast", "check", str(bad)])
    assert res.exit_code == 2 and "ZZ1" in res.output
