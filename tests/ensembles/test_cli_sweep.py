"""``difflab sweep CONFIG.toml``: a small HH grid from TOML, written per chunk, rerun skips chunks."""

from pathlib import Path

import numpy as np
import xarray as xr
from typer.testing import CliRunner

from difflab.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sweep_hh.toml"


def test_sweep_from_toml(tmp_path):
    text = EXAMPLE.read_text().replace("num = 41", "num = 3").replace("chunk_size = 256", "chunk_size = 4")
    config = tmp_path / "sweep.toml"
    config.write_text(text)
    runner = CliRunner()
    result = runner.invoke(app, ["sweep", str(config)])
    assert result.exit_code == 0, result.output
    files = sorted((tmp_path / "sweep_hh").glob("chunk_*.nc"))
    assert len(files) == 3  # 9 points in chunks of 4
    ds = xr.open_mfdataset(files, combine="nested", concat_dim="sample").load()
    standard = ds.where((ds["gNa"] == 120.0) & (ds["gK"] == 36.0), drop=True)
    assert standard["spikes"].item() == 7  # NEURON: 7 spikes for the 10 µA/cm² step
    assert standard["rate"].item() == 70.0  # 7 spikes in 100 ms
    assert "wrote 3 chunk file(s) and reused 0" in result.output
    # progress off a terminal: a plain line per chunk, the last one for chunk 3 of 3
    lines = [line for line in result.output.splitlines() if line.startswith("sweep: ")]
    assert lines and lines[-1].startswith("sweep: 3/3 [") and "\r" not in result.output
    again = runner.invoke(app, ["sweep", str(config), "--quiet"])
    assert again.exit_code == 0, again.output
    assert "sweep: " not in again.output
    assert "wrote 0 chunk file(s) and reused 3" in again.output  # a rerun says it skipped them


def test_sweep_refuses_unknown_observable(tmp_path):
    text = EXAMPLE.read_text().replace('kind = "max"', 'kind = "median"')
    config = tmp_path / "sweep.toml"
    config.write_text(text)
    result = CliRunner().invoke(app, ["sweep", str(config)])
    assert result.exit_code == 2 and "kind must be" in result.output


def test_sweep_refuses_a_typo_in_an_observable(tmp_path):
    text = EXAMPLE.read_text().replace("window = [10.0, 110.0]", "windw = [10.0, 110.0]")
    config = tmp_path / "sweep.toml"
    config.write_text(text)
    result = CliRunner().invoke(app, ["sweep", str(config)])
    assert (
        result.exit_code == 2
        and "[observables.rate] has an unknown key 'windw'; did you mean 'window'?" in result.output
    )
    assert not (tmp_path / "sweep_hh").exists()


def test_sweep_names_the_field_of_a_malformed_grid(tmp_path):
    config = tmp_path / "sweep.toml"
    for old, new, message in [
        (", num = 41 }\ngK", " }\ngK", "[design.parameters.gNa] needs 'num'"),
        ("num = 41 }\ngK", "num = 2.7 }\ngK", "[design.parameters.gNa] num must be a whole number; got 2.7"),
        ("stop = 180.0,", "stpo = 180.0,", "[design.parameters.gNa] has an unknown key 'stpo'; did you mean 'stop'?"),
    ]:
        config.write_text(EXAMPLE.read_text().replace(old, new, 1))
        result = CliRunner().invoke(app, ["sweep", str(config)])
        assert result.exit_code == 2 and message in result.output, (new, result.output)


SENSITIVITY = EXAMPLE.parent / "sensitivity_hh.toml"


def test_sensitivity_table_runs_morris_through_the_chunks(tmp_path):
    from difflab.sensitivity import Morris, morris_analyze

    text = SENSITIVITY.read_text().replace('method = "sobol"', 'method = "morris"\nr = 2').replace("n = 256", "")
    text = text.replace("gL = [0.24, 0.36]\n", "").replace("chunk_size = 256", "chunk_size = 4")
    config = tmp_path / "sens.toml"
    config.write_text(text)
    result = CliRunner().invoke(app, ["sweep", str(config)])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "sensitivity_hh"
    files = sorted(folder.glob("chunk_*.nc"))
    assert len(files) == 2  # r (d + 1) = 6 points in chunks of 4
    written = xr.open_dataset(folder / "indices.nc").load()
    chunks = xr.open_mfdataset(files, combine="nested", concat_dim="sample").load()
    design = Morris(2, {"gNa": (96.0, 144.0), "gK": (28.8, 43.2)})
    np.testing.assert_allclose(chunks["gNa"], design.points()["gNa"])  # the design the table describes
    xr.testing.assert_allclose(written, morris_analyze(chunks, design))
    again = CliRunner().invoke(app, ["sweep", str(config)])
    assert again.exit_code == 0 and "wrote 0 chunk file(s) and reused 2" in again.output


def test_sensitivity_and_design_tables_exclude_each_other(tmp_path):
    config = tmp_path / "both.toml"
    config.write_text(SENSITIVITY.read_text() + '\n[design]\ntype = "sobol"\n')
    result = CliRunner().invoke(app, ["sweep", str(config)])
    assert result.exit_code == 2 and "either [design] (a parameter study) or [sensitivity]" in result.output
