"""The reflector validation runners on the shipped cases, and their verdict on a broken answer."""

from pathlib import Path

import numpy as np
import pytest

from difflab import validation as dv

CASES = Path(__file__).resolve().parents[2] / "validation"


def _run(file):
    runner = dv.get_runner("reflector.aperture" if "aperture" in file.name else "reflector.answer", file)
    case = dv.load_case(file, required=runner.required, optional=runner.optional)
    return dv.run_case(case, runner)


@pytest.mark.parametrize("name", ["fast_aperture_q2", "fast_answer_q2"])
def test_shipped_cases_pass(name):
    result = _run(CASES / f"{name}.toml")
    assert result.status == "passed", [(m.name, m.value, m.detail) for m in result.outcome.metrics]


def test_answer_runner_fails_an_infeasible_answer(tmp_path, geometry, paraboloid_q2):
    import difflab
    from difflab import datasets

    ds = datasets.load("fast/solution_q2")
    ds["extension"].values[:] = paraboloid_q2  # the ideal paraboloid: breaks ~970 edges
    difflab.write_netcdf(ds, tmp_path / "ideal.nc")
    text = (
        (CASES / "fast_answer_q2.toml").read_text().replace('dataset = "fast/solution_q2"', 'dataset_file = "ideal.nc"')
    )
    (tmp_path / "case.toml").write_text(text)
    result = _run(tmp_path / "case.toml")
    metrics = {m.name: m for m in result.outcome.metrics}
    assert result.status == "failed"
    assert not metrics["strain_excess"].passed and metrics["strain_excess"].value > 5e-4
    assert not metrics["ratio_recompute_error"].passed  # the stored η belongs to another surface
    assert np.isfinite(metrics["ratio_below_anchor"].value)
