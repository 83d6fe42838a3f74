"""``difflab simulate``: a preset under a protocol to netCDF; bad input refused, files kept."""

import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import difflab
import difflab.datasets
from difflab.cli import app

runner = CliRunner()


def _simulate(*args):
    return runner.invoke(app, ["simulate", *map(str, args)])


@pytest.mark.slow
def test_step_writes_netcdf_and_summary(tmp_path):
    out = tmp_path / "hh.nc"
    result = _simulate("hodgkin_huxley/squid_axon", "--protocol", "step:10,10,30", "--t-end", 40, "-o", out)
    assert result.exit_code == 0, result.output
    match = re.search(r"spikes \(upward 0 mV crossings\): 2 \(first at ([0-9.]+) ms\)", result.output)
    assert match, result.output
    first_neuron = difflab.datasets.load("hh/hh_step_10uA").spike_times.values[0][0]  # same step from t = 10 ms
    assert abs(float(match.group(1)) - first_neuron) < 0.05
    ds = difflab.read_netcdf(out, required={"V": "mV", "m": "1"})
    assert ds.sizes["time"] == 1601
    np.testing.assert_allclose(ds["time"].values[-1], 40.0)
    assert ds.attrs["preset"] == "hodgkin_huxley/squid_axon"
    assert ds.attrs["protocol"] == "Step(amplitude=10, start=10, stop=30)"

    before = out.read_bytes()
    result = _simulate("squid_axon", "--amplitude", 5, "--t-end", 5, "-o", out)
    assert result.exit_code == 2
    assert "exists; pass --overwrite to replace it" in result.output
    assert out.read_bytes() == before
    result = _simulate("squid_axon", "--amplitude", 5, "--start", 1, "--t-end", 40, "-o", out, "--overwrite")
    assert result.exit_code == 0, result.output  # same shapes: the compiled solve is reused
    assert difflab.read_netcdf(out).attrs["protocol"] == "Step(amplitude=5, start=1, stop=inf)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no_such_model", "--protocol", "none"], "unknown model preset 'no_such_model'; available: hodgkin_huxley/"),
        (["squid_axon", "--protocol", "pulse:3"], "expected step:AMPLITUDE"),
        (["squid_axon", "--protocol", "step:1", "--amplitude", "2"], "either --protocol or --amplitude"),
        (["squid_axon"], "give the input with --protocol"),
        (["squid_axon", "--protocol", "none", "--t-end", "-1"], "--t-end must be a positive number"),
        (["squid_axon", "--protocol", "none", "--dt-save", "0"], "--dt-save must be in (0, t_end = 150.0]"),
        (["squid_axon", "--protocol", "step:1,5,2"], "stop must be > start"),
    ],
)
def test_bad_input(tmp_path, args, message):
    result = _simulate(*args, "-o", tmp_path / "x.nc")
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "x.nc").exists()


def test_output_that_is_a_folder_or_under_a_file(tmp_path):
    result = _simulate("squid_axon", "--protocol", "none", "-o", tmp_path)
    assert result.exit_code == 2 and "is a folder" in result.output
    (tmp_path / "f").write_text("mine")
    result = _simulate("squid_axon", "--protocol", "none", "-o", tmp_path / "f" / "x.nc")
    assert result.exit_code == 2 and "a parent folder is a file" in result.output
    assert (tmp_path / "f").read_text() == "mine"


def test_list_and_help():
    result = runner.invoke(app, ["simulate", "--list"])
    assert result.exit_code == 0 and "hodgkin_huxley/squid_axon" in result.output
    for command in ("validate", "simulate"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0
        assert "Usage: difflab " + command in result.output


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc, where no file can be created")
def test_unwritable_output_folder_is_refused_before_the_run():
    result = _simulate("squid_axon", "--protocol", "step:10,1,3", "--t-end", 5, "-o", "/proc/difflab-out.nc")
    assert result.exit_code == 2
    assert "error: --output '/proc/difflab-out.nc' cannot be written" in result.output
    assert "spikes" not in result.output  # refused before the simulation


@pytest.mark.parametrize("text", ["'step:10,1,3'", '"step:10,1,3"'])
def test_stray_quotes_in_protocol(tmp_path, text):
    result = _simulate("squid_axon", "--protocol", text, "-o", tmp_path / "x.nc")
    assert result.exit_code == 2
    assert f"--protocol {text!r} has stray quotes; write it without them" in result.output


def test_a_solve_that_blows_up_is_an_error_not_a_traceback(tmp_path):
    # 1e5 µA/cm² drives V past any float within a few steps: the run fails cleanly and writes nothing
    result = _simulate("squid_axon", "--protocol", "step:1e5,1,3", "--t-end", 5, "-o", tmp_path / "x.nc")
    assert result.exit_code == 2, result.output
    assert "the simulation of 'squid_axon' failed: the solution became non-finite: V is nan" in result.output
    assert not (tmp_path / "x.nc").exists()
