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
