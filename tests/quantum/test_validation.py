"""The shipped quantum validation cases parse, run and pass (the Rabi case; JC runs in `difflab validate`)."""

from pathlib import Path

import difflab.validation as dv
from difflab.validation._runner import prepare_case

CASES = Path(__file__).resolve().parents[2] / "validation"


def test_quantum_cases_are_registered_and_parse():
    assert {"quantum.rabi", "quantum.jaynes_cummings"} <= set(dv.runner_kinds())
    for name in ("quantum_rabi.toml", "quantum_jaynes_cummings.toml"):
        spec, runner = prepare_case(CASES / name)
        assert set(spec.tolerances) <= set(runner.metrics)


def test_rabi_case_passes():
    spec, runner = prepare_case(CASES / "quantum_rabi.toml")
    result = dv.run_case(spec, runner)
    assert result.status == "passed", result.error
    errors = {m.where: m.value for m in result.outcome.metrics if m.name == "expect_max_abs_error"}
    assert set(errors) == {"sx", "sy", "sz"} and max(errors.values()) < 1e-8


def test_case_with_a_negative_tolerance_is_refused_by_its_field(tmp_path):
    # diffrax ran PIDController(rtol=-1) and the case compared a wrong solve with the reference
    text = (CASES / "quantum_rabi.toml").read_text().replace("rtol = 1e-10", "rtol = -1.0")
    (tmp_path / "case.toml").write_text(text)
    spec, runner = prepare_case(tmp_path / "case.toml")
    result = dv.run_case(spec, runner)
    assert result.outcome is None
    assert result.error.startswith("ValueError: simulation.rtol must be a finite number >= 0; got -1.0")
