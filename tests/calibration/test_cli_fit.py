"""``difflab fit CONFIG.toml``: a short HH fit from TOML, resume, and refusals of bad configs."""

from pathlib import Path

import pytest
import xarray as xr
from typer.testing import CliRunner

from difflab.cli import app

# The fit below solves stage 1 of test_hh_fit.py (same window, sampling, starts and transforms): on one worker
# the second of the two reuses the first one's compiled optimiser step.
pytestmark = pytest.mark.xdist_group("hh_step_fit")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fit_hh.toml"


def short_config(tmp_path, **replace):
    text = EXAMPLE.read_text()
    # every 10th sample: 0.25 ms, the coarsest the linear estimate takes (coarser data start from the given values)
    text = text.replace("time = [0.0, 45.0]", "time = [0.0, 15.0]").replace("stride = 5", "stride = 10")
    text = text.replace("steps = 25", "steps = 3").replace("checkpoint_every = 5", "checkpoint_every = 1")
    for old, new in replace.items():
        text = text.replace(old, new)
    path = tmp_path / "fit.toml"
    path.write_text(text)
    return path


@pytest.mark.slow
def test_fit_writes_estimates_and_resumes(tmp_path):
    # the example's own window and sampling, all three conductances log-transformed, as in test_hh_fit.py
    stage_one = {"time = [0.0, 15.0]": "time = [0.0, 45.0]", "stride = 10": "stride = 5"}
    stage_one["gL = [0.05, 1.0]"] = 'gL = "log"'
    config = short_config(tmp_path, **stage_one)
    runner = CliRunner()
    result = runner.invoke(app, ["fit", str(config)])
    assert result.exit_code == 0, result.output
    # progress off a terminal: plain lines, the last of the fit with its step count and loss
    lines = [line for line in result.output.splitlines() if line.startswith("calibrate: ")]
    assert lines and "\r" not in result.output and lines[-1].startswith("calibrate: 3/3 [") and "loss " in lines[-1]
    ds = xr.open_dataset(tmp_path / "fit_hh.nc")
    assert {"gNa", "gNa_stderr", "final_loss", "history_loss"} <= set(ds.data_vars)
    assert ds["gNa"].attrs["units"] == "mS/cm^2"
    assert ds.sizes["step"] == 3 and ds.sizes["start"] == 2
    ds.close()
    again = runner.invoke(app, ["fit", str(config)])
    assert again.exit_code == 2 and "exists" in again.output
    config.write_text(config.read_text().replace("steps = 3", "steps = 4"))
    resumed = runner.invoke(app, ["fit", str(config), "--resume", "--overwrite", "--quiet"])
    assert resumed.exit_code == 0, resumed.output
    assert "calibrate: " not in resumed.output  # --quiet
    with xr.open_dataset(tmp_path / "fit_hh.nc") as ds:
        assert ds.sizes["step"] == 4


def test_fit_refuses_bad_configs(tmp_path):
    runner = CliRunner()
    bad_name = runner.invoke(app, ["fit", str(short_config(tmp_path, **{"gL = [0.05, 1.0]": "gX = [0.05, 1.0]"}))])
    assert bad_name.exit_code == 2 and "unknown parameter 'gX'" in bad_name.output
    bad_bounds = runner.invoke(app, ["fit", str(short_config(tmp_path, **{"gL = [0.05, 1.0]": "gL = [1.0, 0.05]"}))])
    assert bad_bounds.exit_code == 2 and "lo < hi" in bad_bounds.output
    missing = runner.invoke(app, ["fit", str(tmp_path / "nope.toml")])
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_typos_and_malformed_numbers_in_the_config_are_refused_by_field(tmp_path):
    runner = CliRunner()
    cases = {
        "steps = 3": ("stpes = 3", "[fit] has an unknown key 'stpes'; did you mean 'steps'?"),
        "stride = 10": ("stride = 2.7", "[data] stride must be a whole number; got 2.7"),
        'loss = "mse"': ('loss = "mse"\nwindw = 3', "[fit] has an unknown key 'windw'"),
        "checkpoint_every = 1": ('checkpoint_every = "three"', "[fit] checkpoint_every must be a whole number"),
    }
    for old, (new, message) in cases.items():
        result = runner.invoke(app, ["fit", str(short_config(tmp_path, **{old: new}))])
        assert result.exit_code == 2 and message in result.output, (new, result.output)
    assert not (tmp_path / "fit_hh.nc").exists()  # refused before any work


def test_data_windows_selections_noise_bounds_and_protocols_are_refused_by_field(tmp_path):
    runner = CliRunner()
    cases = {
        "amplitude = 10.0": ("amplitude = 99.0", "[data] select: amplitude = 99.0 is not in the data; its values"),
        "time = [0.0, 15.0]": ("time = [500.0, 600.0]", "[data] time = [500.0, 600.0] holds 0 sample(s)"),
        "time = [0.0, 15.0] ": ("time = [15.0, 0.0]", "[data] time must be [t0, t1] with t0 < t1"),
        "noise = 1.0": ("noise = -1.0", "[data] noise must be a standard deviation >= 0"),
        "gL = [0.05, 1.0]": ("gL = [1.0, 0.05]", "[fit.params] gL = [1.0, 0.05]: Bounded needs lo < hi"),
    }
    for old, (new, message) in cases.items():
        result = runner.invoke(app, ["fit", str(short_config(tmp_path, **{old.strip(): new}))])
        assert result.exit_code == 2 and message in result.output, (new, result.output)
    folder = tmp_path / "out"
    folder.mkdir()
    result = runner.invoke(app, ["fit", str(short_config(tmp_path)), "-o", str(folder), "--overwrite"])
    assert result.exit_code == 2 and "is a folder; give a file name" in result.output and folder.is_dir()


def test_unreadable_configs_and_unwritable_outputs_are_refused_before_the_fit(tmp_path):
    runner = CliRunner()
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes('# température\nprotocol = "none"\n'.encode("latin-1"))
    result = runner.invoke(app, ["fit", str(latin1)])
    assert result.exit_code == 2 and "is not UTF-8 text" in result.output
    blocker = tmp_path / "a_file"
    blocker.write_text("mine")
    config = short_config(tmp_path)
    for out, message in ((blocker / "fit.nc", "cannot be written there"), (tmp_path, "is a folder")):
        result = runner.invoke(app, ["fit", str(config), "-o", str(out), "--overwrite"])
        assert result.exit_code == 2 and message in result.output, result.output
    assert blocker.read_text() == "mine"
    assert not (tmp_path / "fit_hh.ckpt.nc").exists()  # refused before the first step


def test_resume_without_a_checkpoint_and_a_missing_variable_are_refused_before_the_fit(tmp_path):
    import xarray as xr

    runner = CliRunner()
    config = short_config(tmp_path, **{'checkpoint = "fit_hh.ckpt.nc"': ""})
    result = runner.invoke(app, ["fit", str(config), "--resume"])  # used to start a new fit silently
    assert result.exit_code == 2 and "--resume needs a checkpoint file" in result.output, result.output
    xr.Dataset().to_netcdf(tmp_path / "empty.nc")  # readable, but holds nothing
    config = short_config(tmp_path, **{'dataset = "hh/hh_step_10uA"': 'file = "empty.nc"', "select = ": "# "})
    result = runner.invoke(app, ["fit", str(config)])
    assert (
        result.exit_code == 2 and "[data] variable 'V' is not in file 'empty.nc' (its variables: none)" in result.output
    )
    assert not (tmp_path / "fit_hh.nc").exists()
