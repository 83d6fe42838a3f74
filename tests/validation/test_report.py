"""Running the exact case and writing reports: verdicts, contents, atomic and safe output."""

import json
import subprocess
import sys

import pytest

from difflab import validation as dv
from difflab.validation import _report, _runner

from ._exact import RELAXATION, write_case


def _run(tmp_path, **kwargs):
    spec, runner = _runner.prepare_case(write_case(tmp_path, **kwargs))
    return _runner.run_case(spec, runner)


def test_exact_case_passes_with_small_errors(tmp_path):
    result = _run(tmp_path)
    assert result.status == "passed", result.error
    values = {m.name: m.value for m in result.outcome.metrics}
    assert 0 < values["y_rms_error"] < 1e-6
    assert values["y_max_abs_error"] < 1e-5
    assert result.outcome.provenance["dtype"] == "float64"
    assert len(result.dataset_sha256) == 64


def test_too_tight_tolerance_fails(tmp_path):
    result = _run(tmp_path, rms=1e-13)
    assert result.status == "failed"
    assert [m.passed for m in result.outcome.metrics] == [False, True]


def test_runner_exception_becomes_an_error_result(tmp_path, monkeypatch):
    def broken(case):
        raise RuntimeError("solver exploded")

    monkeypatch.setitem(_runner._RUNNERS, "test.relaxation", dv.Runner(broken, RELAXATION.metrics, {"protocol": dict}))
    result = _run(tmp_path)
    assert result.status == "error"
    assert "RuntimeError: solver exploded" in result.error


def test_missing_requested_metric_is_an_error(tmp_path, monkeypatch):
    def partial(case):
        return dv.CaseOutcome([dv.metric(case, "y_rms_error", 0.0)])

    monkeypatch.setitem(_runner._RUNNERS, "test.relaxation", dv.Runner(partial, RELAXATION.metrics, {"protocol": dict}))
    result = _run(tmp_path)
    assert result.status == "error"
    assert "did not compute the requested metric(s) ['y_max_abs_error']" in result.error


def test_validate_writes_html_and_summary(tmp_path):
    good = write_case(tmp_path, name="good")
    bad = write_case(tmp_path, name="tight", rms=1e-13)
    seen = []  # (case, how many cases had started when its result arrived)
    started = []

    def cases(items):
        for spec, runner in items:
            started.append(spec.name)
            yield spec, runner

    results, out = dv.validate([str(good), str(bad)], tmp_path / "report", progress=cases,
                               on_result=lambda r: seen.append((r.case.name, len(started))))  # fmt: skip
    assert [r.status for r in results] == ["passed", "failed"]
    assert seen == [("good", 1), ("tight", 2)]  # each result is announced before the next case starts
    summary = json.loads((out / "summary.json").read_text())
    assert summary["generator"] == "difflab validate"
    assert summary["passed"] is False
    assert summary["counts"] == {"passed": 1, "failed": 1, "error": 0}
    assert summary["cases"][0]["metrics"][0]["name"] == "y_rms_error"
    assert summary["provenance"]["jax_x64"] == "True"
    html = (out / "index.html").read_text()
    assert html.count('src="data:image/png;base64,iVBOR') == 2
    assert "FAILED: 1 of 2 case(s) passed" in html
    assert summary["cases"][0]["dataset_sha256"] in html
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "summary.json"]


def test_report_replaces_a_previous_report_only(tmp_path):
    case = str(write_case(tmp_path))
    out = tmp_path / "report"
    dv.validate([case], out)
    (out / "summary.json").write_text(json.dumps({"generator": "difflab validate", "marker": 1}))
    dv.validate([case], out)
    assert "marker" not in json.loads((out / "summary.json").read_text())
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(dv.ReportError, match="holds files other than a difflab report"):
        dv.validate([case], mine)
    assert (mine / "notes.txt").read_text() == "keep me"

    (out / "notes.txt").write_text("added to a report by hand")
    with pytest.raises(dv.ReportError, match="holds files other than a difflab report"):
        dv.validate([case], out)
    assert (out / "notes.txt").exists()

    file = tmp_path / "file.txt"
    file.write_text("keep me")
    with pytest.raises(dv.ReportError, match="is a file, not a folder"):
        dv.validate([case], file)
    assert file.read_text() == "keep me"


def test_failure_while_writing_leaves_no_report(tmp_path, monkeypatch):
    case = str(write_case(tmp_path))
    out = tmp_path / "report"
    dv.validate([case], out)
    before = (out / "summary.json").read_text()

    def crash(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(_report, "render_html", crash)
    with pytest.raises(KeyboardInterrupt):
        dv.validate([case], out)
    assert (out / "summary.json").read_text() == before  # the old report is untouched
    with pytest.raises(KeyboardInterrupt):
        dv.validate([case], tmp_path / "new")
    assert not (tmp_path / "new").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_kinds_register_through_the_public_api(tmp_path, monkeypatch):
    """One registry: a runner registered with register_runner is found by its kind; a taken kind is refused."""
    dv.runner_kinds()  # the shipped domains join the real registry before it is swapped for a copy
    monkeypatch.delitem(_runner._RUNNERS, "test.relaxation")
    monkeypatch.setattr(_runner, "_RUNNERS", dict(_runner._RUNNERS))
    dv.register_runner("lab.relaxation", RELAXATION)
    file = write_case(tmp_path)
    file.write_text(file.read_text().replace('kind = "test.relaxation"', 'kind = "lab.relaxation"'))
    _, runner = _runner.prepare_case(file)
    assert runner is RELAXATION
    assert {"lab.relaxation", "neuron.trace", "quantum.rabi", "reflector.answer"} <= set(dv.runner_kinds())
    with pytest.raises(ValueError, match=r"kind 'lab.relaxation' is already registered"):
        dv.register_runner("lab.relaxation", dv.Runner(RELAXATION.run, ("x",)))
    with pytest.raises(ValueError, match="`kind` must be a dotted name"):
        dv.register_runner("relaxation", RELAXATION)
    with pytest.raises(TypeError, match=r"`runner` must be a difflab\.validation\.Runner"):
        dv.register_runner("lab.other", "difflab.neuron._validation:TRACE")


def test_a_broken_figure_does_not_cost_the_report(tmp_path, monkeypatch):
    class Broken:
        def savefig(self, *args, **kwargs):
            raise ValueError("no canvas")

    def run(case):
        outcome = RELAXATION.run(case)
        outcome.figures.append(("broken", Broken()))
        outcome.provenance["steps"] = 12  # not a string: written as one
        return outcome

    monkeypatch.setitem(_runner._RUNNERS, "test.relaxation", dv.Runner(run, RELAXATION.metrics, {"protocol": dict}))
    results, out = dv.validate([str(write_case(tmp_path))], tmp_path / "r")
    assert results[0].status == "passed"
    assert "figure could not be drawn: ValueError: no canvas" in (out / "index.html").read_text()
    assert json.loads((out / "summary.json").read_text())["cases"][0]["provenance"]["steps"] == "12"


def test_without_matplotlib_the_report_keeps_its_metrics_and_names_the_extra(tmp_path, monkeypatch):
    # matplotlib is the optional `plot` extra: a None entry in sys.modules makes its import fail, as when absent
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.axes"):
        monkeypatch.setitem(sys.modules, name, None)
    results, out = dv.validate([str(write_case(tmp_path))], tmp_path / "r")
    assert results[0].status == "passed", results[0].error
    page = (out / "index.html").read_text()
    assert "figure not drawn" in page and "pip install &#x27;difflab[plot]&#x27;" in page
    assert "data:image/png" not in page
    assert "y_rms_error" in page


def test_with_matplotlib_the_figure_is_drawn_into_the_page(tmp_path):
    results, out = dv.validate([str(write_case(tmp_path))], tmp_path / "r")
    page = (out / "index.html").read_text()
    assert results[0].status == "passed"
    assert page.count("data:image/png;base64,") == 1 and "figure not drawn" not in page


def test_every_domain_imports_without_matplotlib():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import difflab, difflab.neuron, difflab.quantum, difflab.quantum.circuits, difflab.reflector\n"
        "import difflab.plot, difflab.validation\n"
        "try:\n    difflab.plot.overlay([0, 1], [0, 1], [0, 1], xlabel='t (ms)', ylabel='y (1)')\n"
        "except ImportError as err:\n    print(err)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "pip install 'difflab[plot]'" in done.stdout
