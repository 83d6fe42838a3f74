"""The shipped L5PC cases (`neuron.l5pc`): registered, checked eagerly, and the bAP case end to end."""

import pytest

import difflab.neuron
import difflab.validation
from difflab.validation import CaseError, _runner

# with tests/neuron/test_l5pc.py: both relax the cell to rest with one compiled solve
pytestmark = pytest.mark.xdist_group("l5pc")


@pytest.mark.parametrize("name", ["neuron_l5pc_bap", "neuron_l5pc_step3"])
def test_cases_are_shipped_and_prepared(name):
    spec, runner = _runner.prepare_case(difflab.validation.shipped_cases()[name])
    assert runner is _runner._RUNNERS["neuron.l5pc"]
    assert spec.tolerances["spike_time_max_error"] == 0.05 and spec.tolerances["spike_count_error"] == 0


def test_unknown_protocol_and_bad_window_are_refused(tmp_path):
    text = difflab.validation.shipped_cases()["neuron_l5pc_bap"].read_text()
    for old, new, message in [
        ('protocol = "bAP"', 'protocol = "Step4"', r"field 'protocol': 'Step4' is not one of"),
        ("window = [290.0, 330.0]", "window = [330.0, 290.0]", r"field 'window' must be"),
    ]:
        (tmp_path / "case.toml").write_text(text.replace(old, new))
        with pytest.raises(CaseError, match=message):
            _runner.prepare_case(tmp_path / "case.toml")


@pytest.mark.slow
def test_bap_case_matches_neuron():
    """The somatic spike within 0.05 ms (measured 0.0020 against NEURON's NetCon time), the bAP's amplitude at the
    apical sites 654 and 810 µm from the soma within 1 mV (measured 0.003 mV), at the cell's default step."""
    spec, runner = _runner.prepare_case(difflab.validation.shipped_cases()["neuron_l5pc_bap"])
    result = _runner.run_case(spec, runner)
    assert result.status == "passed", (result.error, result.outcome and result.outcome.metrics)
    values = {m.name: m.value for m in result.outcome.metrics}
    assert values["spike_count_error"] == 0
    assert values["spike_time_max_error"] < 0.01
    assert values["bap_amplitude_error"] < 0.05
    assert float(result.outcome.provenance["dt0"]) == difflab.neuron.l5pc().default_dt0() == 0.003125
