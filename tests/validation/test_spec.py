"""Case specs: every malformed file gets an error that names the file and the field."""

import re

import pytest

from difflab.validation import CaseError, prepare_cases, shipped_cases
from difflab.validation._runner import prepare_case

from ._exact import CASE_TOML, write_case


def _bad(tmp_path, old, new, match):
    text = CASE_TOML.format(rms=1e-5)
    assert old in text
    file = write_case(tmp_path, text=text.replace(old, new))
    with pytest.raises(CaseError, match=re.escape(str(file)) + ".*" + match):
        prepare_case(file)


def test_good_case_is_accepted(tmp_path):
    spec, runner = prepare_case(write_case(tmp_path))
    assert spec.name == "relaxation"
    assert spec.tolerances == {"y_rms_error": 1e-5, "y_max_abs_error": 1e-4}
    assert spec.get("protocol.amplitude", float) == 3.0
    assert runner.required == {"protocol": dict}


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        ('title = "Relaxation, step response"\n', "", "missing field 'title'"),
        ('kind = "test.relaxation"\n', "", "missing field 'kind'"),
        ('kind = "test.relaxation"', 'kind = "nope"', "field 'kind': unknown kind 'nope'; registered: .*neuron.trace"),
        ('kind = "test.relaxation"', 'kind = "os:system"', "unknown kind 'os:system'"),
        ('kind = "test.relaxation"', "kind = 3", "field 'kind' must be a string"),
        ('model = "relaxation"', "model = 3", "field 'model' must be a string; got 3"),
        ("y_rms_error = { tolerance = 1e-05 }", "y_rms_error = { }", "missing field 'metrics.y_rms_error.tolerance'"),
        ("tolerance = 1e-05", 'tolerance = "small"', "'metrics.y_rms_error.tolerance' must be a number"),
        (
            "tolerance = 1e-05",
            "tolerance = nan",
            "tolerance' must be a finite number >= 0; got nan",
        ),
        (
            "tolerance = 1e-05",
            "tolerance = -1",
            "tolerance' must be a finite number >= 0; got -1",
        ),
        ("tolerance = 1e-05", "tolerance = 1e-05, tol = 2", r"unknown field\(s\) \['tol'\] in 'metrics.y_rms_error'"),
        ("y_rms_error =", "v_rms_error =", r"unknown metric\(s\) \['v_rms_error'\] for kind 'test.relaxation'"),
        ("[protocol]", "[protocl]", "missing field 'protocol'"),
        ('description = "', 'colour = "red"\ndescription = "', r"unknown field\(s\) \['colour'\]"),
        ('dataset_file = "relaxation.nc"', 'dataset = "hh/nope"', "field 'dataset': unknown dataset 'hh/nope'"),
        ('dataset_file = "relaxation.nc"', 'dataset_file = "gone.nc"', "field 'dataset_file': .*gone.nc.* not exist"),
        ('dataset_file = "relaxation.nc"', "", "exactly one of the fields 'dataset'"),
        ("[metrics]\n", "[extra]\nx = 1\n[metrics]\n", r"unknown field\(s\) \['extra'\]"),
        ("title = ", "title = = ", "not valid TOML"),
    ],
)
def test_bad_case_names_file_and_field(tmp_path, old, new, match):
    _bad(tmp_path, old, new, match)


def test_empty_metrics_are_refused(tmp_path):
    text = CASE_TOML.format(rms=1e-5)
    text = text[: text.index("[metrics]")] + "[metrics]\n"
    file = write_case(tmp_path, text=text)
    with pytest.raises(CaseError, match="field 'metrics' is empty"):
        prepare_case(file)


def test_unknown_case_name_lists_the_shipped_ones():
    with pytest.raises(CaseError, match="unknown case 'no_such_case'; available: "):
        prepare_cases(["no_such_case"])
    with pytest.raises(CaseError, match=r"case file 'missing\.toml' does not exist"):
        prepare_cases(["missing.toml"])


def test_shipped_cases_are_valid():
    for name in shipped_cases():
        spec, runner = prepare_cases([name])[0]
        assert set(spec.tolerances) <= set(runner.metrics)


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        ('model = "hodgkin_huxley/squid_axon"', 'model = "hodgkin_huxley/nope"', "field 'model': unknown model preset"),
        ('model = "hodgkin_huxley/squid_axon"\n', "", "missing field 'model' \\(a preset in models/"),
        ('solver = "default"', 'solver = "Euler"', "field 'simulation.solver': 'Euler' is not one of default, Tsit5"),
        ('solver = "default"', 'solver = "default"\ndt0 = "small"', "field 'simulation.dt0' must be a number"),
        (
            'solver = "default"',
            'solver = "default"\nsolverr = "x"',
            r"unknown field\(s\) 'simulation.solverr'; allowed in",
        ),
        ("[protocol]", "[protocol_]", "missing field 'protocol'"),
    ],
)
def test_bad_neuron_case(tmp_path, old, new, match):
    text = shipped_cases()["hh_step_10uA"].read_text(encoding="utf-8")
    assert old in text
    file = tmp_path / "case.toml"
    file.write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(CaseError, match=re.escape(str(file)) + ": " + match):
        prepare_case(file)
