"""The one progress helper: a bar on a terminal, a plain line per stage in a log, nothing when asked."""

import io

import pytest

from difflab.core.internal import Progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_one_plain_line_per_stage_when_stderr_is_not_a_terminal(capsys):
    with Progress(3, "solve", progress=True) as bar:
        bar.advance("fit: depth 0.3385 m")
        bar.advance()
        bar.advance("done", n=1)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3
    assert err[0].startswith("solve: 1/3 [") and err[0].endswith("s] fit: depth 0.3385 m")
    assert err[1].startswith("solve: 2/3 [") and err[1].endswith(" s]")
    assert err[2].startswith("solve: 3/3 [") and err[2].endswith("s] done")


@pytest.mark.parametrize("progress", [False, None])
def test_silent_off_a_terminal_when_false_or_none(capsys, progress):
    with Progress(2, "solve", progress=progress) as bar:
        bar.advance("a")
        bar.advance("b")
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("progress", [True, None])
def test_a_bar_on_a_terminal(progress):
    out = Terminal()
    with Progress(4, "solve", progress=progress, file=out) as bar:
        for _ in range(4):
            bar.advance("zones (40, 140)")
    text = out.getvalue()
    assert "\r" in text and "4/4" in text and "zones (40, 140)" in text
    assert "solve: 1/4 [" not in text  # the bar, not the log lines


def test_nothing_on_a_terminal_when_false():
    out = Terminal()
    with Progress(1, "solve", progress=False, file=out) as bar:
        bar.advance("x")
    assert out.getvalue() == ""


def test_bad_progress_is_named():
    with pytest.raises(TypeError, match="progress must be True, False or None; got 'yes'"):
        Progress(1, "solve", progress="yes")


def test_lines_at_most_every_interval_and_always_the_last(capsys):
    """Many short stages (a fit's steps): with `every`, a line at most that often, and one for the last stage."""
    with Progress(200, "calibrate", progress=True, unit="step", every=3600.0) as bar:
        for k in range(200):
            bar.advance(f"loss {k}")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("calibrate: 200/200 [") and err[0].endswith("s] loss 199")


def test_a_resumed_count_and_notes():
    out = Terminal()
    with Progress(10, "calibrate", progress=True, file=out, initial=7) as bar:
        bar.note("Dask dashboard: http://127.0.0.1:8787/status")
        bar.advance()
        assert bar.shown and bar.done == 8
    text = out.getvalue()
    assert "8/10" in text and "Dask dashboard: http://127.0.0.1:8787/status" in text


def test_notes_in_a_log_and_nothing_when_off(capsys):
    with Progress(1, "sweep", progress=True) as bar:
        bar.note("dashboard")
    with Progress(1, "sweep", progress=False) as quiet:
        quiet.note("dashboard")
        assert not quiet.shown
    assert capsys.readouterr().err.splitlines() == ["dashboard"]


def test_work_that_ends_early_still_reports_where_it_stopped(capsys):
    with Progress(200, "calibrate", progress=True, every=3600.0) as bar:
        for k in range(17):  # a fit that converged after 17 of 200 steps
            bar.advance(f"loss {k}")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("calibrate: 17/200 [") and err[0].endswith("loss 16")


@pytest.mark.parametrize("progress", [True, False])
def test_result_lines_are_whole_beside_a_bar_and_written_without_one(progress):
    screen, results = Terminal(), io.StringIO()
    with Progress(2, "validate", progress=progress, file=screen) as bar:
        bar.advance("case a")
        bar.echo("PASSED  a", file=results)
        bar.advance("case b")
        bar.echo("FAILED  b", file=results)
    assert results.getvalue() == "PASSED  a\nFAILED  b\n"  # the bar's carriage returns stay on its own stream
    assert ("2/2" in screen.getvalue()) is progress
