"""Bad reflector input is refused with a message naming the argument (concrete values, before tracing)."""

import numpy as np
import openpyxl
import pytest
from typer.testing import CliRunner

from difflab import reflector as rf
from difflab.cli import app


@pytest.mark.parametrize("depth", [np.nan, -300.8, 0.0, 100.0])
def test_depth_without_a_paraboloid_is_refused(geometry, q2, depth):
    with pytest.raises(ValueError, match=r"depth \(vertex depth \|V\|, m\) must be finite and > 0.534 R = 160.4136"):
        rf.ideal_extensions(geometry, q2.s, depth)
    with pytest.raises(ValueError, match="depth"):
        rf.vertex(q2.s, depth)


@pytest.mark.parametrize("factor", [2.0, 0.0, np.nan, -300.8])
def test_non_unit_direction_is_refused(geometry, q2, factor):
    with pytest.raises(ValueError, match=r"s must be a unit vector towards the source .*source_direction"):
        rf.ideal_extensions(geometry, factor * q2.s, 300.8)
    with pytest.raises(ValueError, match="s must be a unit vector"):
        rf.feed_position(factor * q2.s)


def test_rounded_published_direction_is_accepted(geometry, q2):
    s = np.round(np.asarray(q2.s), 6)  # as the published Q2 direction (0.164181, 0.122801, 0.978757)
    np.testing.assert_allclose(rf.vertex(s, 300.8), rf.vertex(q2.s, 300.8), atol=1e-3)


def test_nan_extension_is_refused(geometry, q2):
    e = np.zeros(geometry.n_nodes)
    e[5] = np.nan
    with pytest.raises(ValueError, match=r"e must be finite .* first e\[5\] = nan"):
        rf.receiving_ratio(geometry, e, q2, n=4)
    with pytest.raises(ValueError, match=r"e must have shape \(2226,\)"):
        rf.node_positions(geometry, np.zeros(3))


def test_horizon_pointing_is_refused_not_nan(geometry):
    with pytest.raises(ValueError, match=r"beta \(elevation\) = 0 degrees .*no panel.*zenith is beta = 90"):
        rf.Pointing.from_angles(geometry, 0.0, 0.0)
    low = rf.Pointing.from_angles(geometry, 0.0, 10.0)  # a few panels: a number, not NaN
    assert np.isfinite(float(rf.receiving_ratio(geometry, np.zeros(geometry.n_nodes), low, n=4)))


def _book(path, rows):
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "促动器顶端伸缩量"
    ws.append(["对应主索节点编号", "伸缩量（米）"])
    for row in rows:
        ws.append(list(row))
    book.save(path)
    return path


def test_boolean_cell_is_refused_naming_the_cell(tmp_path, geometry):
    path = _book(tmp_path / "bool.xlsx", [("A0", 0.1), ("B1", False)])
    with pytest.raises(ValueError, match="cell B3: extension of node 'B1' must be a number of metres; got the boolean"):
        rf.read_result_extensions(path, geometry)


def test_cli_check_unreadable_files(tmp_path):
    good = _book(tmp_path / "good.xlsx", [("A0", 0.1)])
    csv = tmp_path / "r.csv"
    csv.write_text("A0,0.1\n")
    empty = tmp_path / "empty.xlsx"
    empty.write_bytes(b"")
    truncated = tmp_path / "cut.xlsx"
    truncated.write_bytes(good.read_bytes()[:1000])
    for path, message in [(csv, "not a readable .xlsx"), (empty, "is empty"), (truncated, "not a readable .xlsx")]:
        res = CliRunner().invoke(app, ["fast", "check", str(path)])
        assert res.exit_code == 2, res.output
        assert f"error: {str(path)!r}" in res.output and message in res.output
        assert res.exception is None or isinstance(res.exception, SystemExit)
    res = CliRunner().invoke(app, ["fast", "check", str(good), "--beta", "0"])
    assert res.exit_code == 2 and "--beta (elevation) = 0 degrees" in res.output and "nan" not in res.output


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"time_constant": 0.0}, r"time_constant must be > 0 s; got 0.0"),
        ({"time_constant": -1.0}, r"time_constant must be > 0 s; got -1.0"),
        ({"max_speed": 0.0}, r"max_speed must be > 0 m/s; got 0.0"),
        ({"max_speed": np.nan}, r"max_speed must be finite; got nan"),
    ],
)
def test_servo_without_a_positive_time_constant_or_speed_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rf.ActuatorServo(np.zeros(3), **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dt": 0.0}, r"dt \(sampling interval, s\) must be a finite number > 0; got 0.0"),
        ({"noise": -1.0}, r"noise \(standard deviation, m\) must be a finite number >= 0; got -1.0"),
        ({"duration": np.nan}, r"duration \(s\) must be a finite number > 0; got nan"),
    ],
)
def test_step_response_recording_settings_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rf.synthetic_step_response(**kwargs)


def test_servo_fit_start_outside_its_bounds_is_refused():
    with pytest.raises(ValueError, match=r"time_constant0 must be a start inside the bounds \[0.1, 30\] s; got 50.0"):
        rf.fit_servo(None, time_constant0=50.0)


def test_angles_out_of_range_are_refused_by_source_direction():
    """β = 95° is azimuth α + 180° at elevation 85°: refused, as Pointing.from_angles refuses it."""
    with pytest.raises(ValueError, match=r"beta \(elevation\) must be a finite angle in \[0, 90\] degrees, got 95.0"):
        rf.source_direction(0.0, 95.0)
    with pytest.raises(ValueError, match=r"alpha \(azimuth\) must be a finite angle in \[0, 360\] degrees, got nan"):
        rf.source_direction(np.array([10.0, np.nan]), 60.0)


def test_tracking_settings_are_checked(geometry, q2):
    with pytest.raises(ValueError, match=r"latitude must be a finite angle in \[-90, 90\] degrees"):
        rf.sky_track(q2.s, np.array([0.0, 10.0]), latitude=100.0)
    with pytest.raises(ValueError, match=r"t must be finite; found 1 NaN/inf"):
        rf.sky_track(q2.s, np.array([0.0, np.nan]))
    with pytest.raises(ValueError, match=r"taper \(width of the aperture-edge window, m\) must be a finite number > 0"):
        rf.TrackingTarget(geometry, q2.s, taper=-1.0)
    with pytest.raises(ValueError, match=r"dt_save \(interval between saved times, s\) must be a finite number > 0"):
        rf.simulate_tracking(geometry, duration=10.0, dt_save=0.0)
    with pytest.raises(ValueError, match=r"dt_save must be <= duration to save at least two times; got 60.0 > 10.0 s"):
        rf.simulate_tracking(geometry, duration=10.0)


def test_limits_and_smoothing_length_must_be_positive(geometry, q2):
    e = np.zeros(geometry.n_nodes)
    with pytest.raises(ValueError, match=r"max_strain \(relative edge-length change, 1\) must be a finite number > 0"):
        rf.check_constraints(geometry, e, max_strain=-1.0)
    with pytest.raises(ValueError, match=r"max_extension \(actuator travel, m\) must be a finite number > 0; got nan"):
        rf.check_constraints(geometry, e, max_extension=np.nan)
    with pytest.raises(ValueError, match=r"temperature \(smoothing length of the hit indicator, m\) must be a finite"):
        rf.receiving_ratio(geometry, e, q2, n=2, temperature=-1.0)
