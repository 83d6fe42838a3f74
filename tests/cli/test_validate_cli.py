"""``difflab validate``: exit codes, report files, and refusal of bad input."""

import json

from typer.testing import CliRunner
from validation._exact import CASE_TOML, write_case

from difflab.cli import app

runner = CliRunner()


def _invoke(*args):
    return runner.invoke(app, ["validate", "--no-progress", *map(str, args)])


def test_passing_case_exits_0_and_writes_the_report(tmp_path):
    case = write_case(tmp_path)
    result = _invoke(case, "--out", tmp_path / "r")
    assert result.exit_code == 0, result.output
    assert "PASSED  relaxation" in result.output
    assert "1 of 1 case(s) passed" in result.output
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["passed"] is True
    assert (tmp_path / "r" / "index.html").stat().st_size > 10_000  # holds an embedded figure


def test_failing_case_exits_1(tmp_path):
    good, tight = write_case(tmp_path, name="good"), write_case(tmp_path, name="tight", rms=1e-14)
    result = _invoke(good, tight, "-o", tmp_path / "r")
    assert result.exit_code == 1, result.output
    assert "FAILED  tight" in result.output
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["counts"]["failed"] == 1


def test_out_that_is_a_file_is_refused_and_kept(tmp_path):
    out = tmp_path / "report.txt"
    out.write_text("mine")
    result = _invoke(write_case(tmp_path), "--out", out)
    assert result.exit_code == 2
    assert "is a file, not a folder" in result.output
    assert out.read_text() == "mine"


def test_unknown_case(tmp_path):
    result = _invoke("no_such_case", "--out", tmp_path / "r")
    assert result.exit_code == 2
    assert "error: unknown case 'no_such_case'; available:" in result.output
    assert not (tmp_path / "r").exists()


def test_spec_with_missing_field(tmp_path):
    case = write_case(tmp_path, text=CASE_TOML.format(rms=1e-5).replace('title = "Relaxation, step response"\n', ""))
    result = _invoke(case, "--out", tmp_path / "r")
    assert result.exit_code == 2
    assert f"{case}: missing field 'title'" in result.output
    assert not (tmp_path / "r").exists()


def test_missing_and_corrupt_dataset(tmp_path):
    case = write_case(tmp_path)
    (tmp_path / "relaxation.nc").write_bytes(b"CDF\x01 this is not netCDF")
    result = _invoke(case, "--out", tmp_path / "r")
    assert result.exit_code == 2
    assert "is not a readable netCDF file" in result.output
    (tmp_path / "relaxation.nc").unlink()
    result = _invoke(case, "--out", tmp_path / "r")
    assert result.exit_code == 2
    assert "field 'dataset_file'" in result.output and "does not exist" in result.output
    assert not (tmp_path / "r").exists()


def test_list_shows_the_shipped_cases():
    result = runner.invoke(app, ["validate", "--list"])
    assert result.exit_code == 0
    assert "hh_step_10uA" in result.output and "neuron.fi_curve" in result.output


def test_altered_shipped_dataset_is_refused_before_running(tmp_path, monkeypatch):
    import shutil

    import difflab.datasets
    from difflab.data import _registry

    root = tmp_path / "datasets"
    shutil.copytree(difflab.datasets.path("hh/hh_step_10uA").parent, root / "hh")
    monkeypatch.setattr(_registry, "resource_dir", lambda kind: root)
    with open(root / "hh" / "hh_step_10uA.nc", "r+b") as fh:
        fh.seek(-10, 2)
        fh.write(b"0123456789")
    result = _invoke("hh_step_10uA", "--out", tmp_path / "r")
    assert result.exit_code == 2
    assert "field 'dataset': dataset 'hh/hh_step_10uA' is corrupt or altered" in result.output
    assert not (tmp_path / "r").exists()


def test_progress_bar_goes_to_stderr(tmp_path):
    result = runner.invoke(app, ["validate", str(write_case(tmp_path)), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "1/1" in result.stderr


def test_nan_tolerance_is_refused_before_running(tmp_path):
    case = write_case(tmp_path, text=CASE_TOML.format(rms=1e-5).replace("tolerance = 1e-05", "tolerance = nan"))
    result = _invoke(case, "--out", tmp_path / "r")
    assert result.exit_code == 2
    assert f"{case}: field 'metrics.y_rms_error.tolerance' must be a finite number >= 0; got nan" in result.output
    assert not (tmp_path / "r").exists()
