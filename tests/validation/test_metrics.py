"""Metrics: exact values on small hand-made inputs."""

import math

import numpy as np
import pytest

from difflab import validation as dv
from difflab.validation import MetricResult


def test_rms_and_max_abs():
    assert dv.rms_error([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 2.0]) == pytest.approx(1.0)
    assert dv.max_abs_error([[0.0, -3.0]], [[0.5, 1.0]]) == 4.0
    with pytest.raises(ValueError, match=r"same shape; got \(2,\) and \(3,\)"):
        dv.rms_error([1.0, 2.0], [1.0, 2.0, 3.0])


def test_event_times_pair_in_order_and_punish_count_mismatch():
    model = [1.0, 2.1, np.nan]
    ref = [1.05, 2.0, np.nan, np.nan]
    np.testing.assert_allclose(dv.event_time_errors(model, ref), [0.05, 0.1])
    assert dv.event_time_max_error(model, ref) == pytest.approx(0.1)
    assert dv.event_time_max_error([1.0, 2.0, 3.0], ref) == math.inf
    assert dv.event_time_max_error([], [np.nan]) == 0.0
    assert dv.count_error(6, 7) == 1.0


def test_metric_verdicts():
    assert MetricResult("a", 0.05, 0.05).passed
    assert not MetricResult("a", 0.0500001, 0.05).passed
    assert not MetricResult("a", math.nan, 1.0).passed
    assert not MetricResult("a", math.inf, 1.0).passed
    assert MetricResult("a", 123.0, None).passed  # reported only


def test_protocol_parsing():
    step = dv.parse_protocol("step:10,10,110")
    assert (float(step.amplitude), float(step.start), float(step.stop)) == (10.0, 10.0, 110.0)
    assert float(dv.parse_protocol("step:5").stop) == math.inf
    assert float(dv.parse_protocol("constant:2.5").value) == 2.5
    assert dv.parse_protocol("none") is None
    with pytest.raises(ValueError, match="expected step:AMPLITUDE"):
        dv.parse_protocol("pulse:1,2")
    with pytest.raises(ValueError, match="'1,x' is not a comma-separated list of numbers"):
        dv.parse_protocol("step:1,x")
    with pytest.raises(ValueError, match="a 'ramp' protocol takes amplitude, start, stop"):
        dv.parse_protocol("ramp:1")
    with pytest.raises(ValueError, match=r"protocol: missing field protocol.amplitude"):
        dv.protocol_from_table({"type": "step"})
    with pytest.raises(ValueError, match=r"unknown field\(s\) \['amp'\]"):
        dv.protocol_from_table({"type": "step", "amp": 1.0})
