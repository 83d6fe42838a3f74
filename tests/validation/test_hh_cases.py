"""The shipped Hodgkin–Huxley cases against the NEURON reference (the real runners, end to end)."""

import json

import pytest
from typer.testing import CliRunner

import difflab.datasets
import difflab.neuron
import difflab.validation
from difflab.cli import app
from difflab.validation import _runner


@pytest.mark.slow
def test_step_case_matches_neuron(tmp_path):
    result = CliRunner().invoke(app, ["validate", "hh_step_10uA", "--no-progress", "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    case = json.loads((tmp_path / "r" / "summary.json").read_text())["cases"][0]
    values = {m["name"]: m["value"] for m in case["metrics"]}
    assert values["spike_count_error"] == 0
    assert values["spike_time_max_error"] <= 0.05
    assert values["v_rms_error"] <= 0.8
    assert case["provenance"]["solver"] == "RushLarsenCN"
    assert float(case["provenance"]["dt0"]) == difflab.neuron.HodgkinHuxley.squid_axon().default_dt0()
    assert case["dataset_sha256"] == difflab.datasets.sha256(difflab.datasets.path("hh/hh_step_10uA"))


@pytest.mark.slow
def test_fi_runner_on_three_currents(tmp_path):
    """The F-I runner on a subset (silent, onset, fastest) of the reference, to keep the test short."""
    subset = difflab.datasets.load("hh/hh_fi_curve_coarse").isel(current=[0, 2, 10])
    subset.to_netcdf(tmp_path / "fi.nc")
    text = (difflab.validation.shipped_cases()["hh_fi_curve_coarse"]).read_text()
    text = text.replace('dataset = "hh/hh_fi_curve_coarse"', 'dataset_file = "fi.nc"')
    (tmp_path / "fi.toml").write_text(text)
    spec, runner = _runner.prepare_case(tmp_path / "fi.toml")
    result = _runner.run_case(spec, runner)
    assert result.status == "passed", result.error
    details = [m.detail for m in result.outcome.metrics]
    assert details == [
        "model 0 Hz, reference 0 Hz",
        "model 69 Hz, reference 69 Hz",
        "model 117 Hz, reference 117 Hz",
    ]


@pytest.mark.parametrize("name", ["neuron_network_exp", "neuron_network_exp2"])
def test_network_cases_match_neuron(name):
    """The network runner end to end on both shipped networks (ExpSyn; Exp2Syn with one ExpSyn): every spike of
    the five cells within the case's 0.05 ms (measured 0.011 and 0.013 ms), counts exact."""
    spec, runner = _runner.prepare_case(difflab.validation.shipped_cases()[name])
    result = _runner.run_case(spec, runner)
    assert result.status == "passed", (result.error, result.outcome and result.outcome.metrics)
    values = {m.name: m.value for m in result.outcome.metrics}
    assert values["spike_count_error"] == 0
    assert values["spike_time_max_error"] < 0.02
    assert result.outcome.provenance["solver"] == "NetworkRushLarsenCN"


def test_network_case_refuses_a_clamp_on_no_cell(tmp_path):
    text = difflab.validation.shipped_cases()["neuron_network_exp"].read_text().replace("[stimuli.2]", "[stimuli.x2]")
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(difflab.validation.CaseError, match=r"field 'stimuli.x2': expected a cell index"):
        _runner.prepare_case(tmp_path / "bad.toml")


def test_cell_network_case_matches_neuron():
    """Four multi-compartment cells, dendritic Exp2Syn/ExpSyn/NMDA synapses and a gap junction, 200 ms: every spike
    within the case's 0.05 ms and the potentials at every soma and dendritic site within 1 mV RMS of NEURON."""
    spec, runner = _runner.prepare_case(difflab.validation.shipped_cases()["neuron_cell_network"])
    result = _runner.run_case(spec, runner)
    assert result.status == "passed", (result.error, result.outcome and result.outcome.metrics)
    values = {m.name: m.value for m in result.outcome.metrics}
    assert values["spike_count_error"] == 0
    assert values["spike_time_max_error"] < 0.05
    assert values["v_rms_error"] < 1.0
    assert result.outcome.provenance["solver"] == "CellNetworkRushLarsenCN"


def test_cell_network_case_refuses_a_clamp_without_a_cell(tmp_path):
    text = difflab.validation.shipped_cases()["neuron_cell_network"].read_text()
    (tmp_path / "bad.toml").write_text(text.replace('[stimuli."cell0.soma(0.5)"]', '[stimuli."soma(0.5)"]'))
    with pytest.raises(difflab.validation.CaseError, match=r"field 'stimuli.soma\(0.5\)': expected a cell and a place"):
        _runner.prepare_case(tmp_path / "bad.toml")
