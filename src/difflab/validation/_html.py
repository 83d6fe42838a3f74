"""The self-contained HTML page of a validation report (inline CSS, figures as base64 PNG)."""

from __future__ import annotations

from html import escape

from ..plot import png_base64
from ._runner import CaseResult, MetricResult

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1100px;
       padding: 0 1rem; color: #1d1d1f; line-height: 1.45; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #ddd; padding-bottom: 0.3rem; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.92rem; }
th, td { border: 1px solid #d0d0d0; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f3f3f5; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.passed { color: #0a6b2b; font-weight: 600; } .failed, .error { color: #b00020; font-weight: 600; }
.banner { padding: 0.7rem 1rem; border-radius: 6px; font-size: 1.15rem; margin: 1rem 0; }
.banner.passed { background: #e4f5e9; } .banner.failed { background: #fde7ea; }
figure { margin: 1rem 0; } figure img { max-width: 100%; border: 1px solid #e2e2e2; }
figcaption { font-size: 0.9rem; color: #555; }
pre { background: #f7f7f7; padding: 0.6rem; overflow-x: auto; font-size: 0.85rem; }
.meta { color: #555; font-size: 0.92rem; } code { font-size: 0.9em; }
"""


def render_html(results: list[CaseResult], data: dict) -> str:
    """The report page for `results`; `data` is the summary (verdict, counts, provenance)."""
    verdict = "passed" if data["passed"] else "failed"
    counts = data["counts"]
    prov = data["provenance"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>difflab validation report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>difflab validation report</h1>",
        f'<p class="meta">{escape(prov.get("created_utc", ""))} · difflab {escape(prov.get("difflab_version", ""))}'
        f" · git {escape(prov.get('git_commit', ''))}</p>",
        f'<div class="banner {verdict}">{verdict.upper()}: {counts["passed"]} of {len(results)} case(s) passed'
        f", {counts['failed']} failed, {counts['error']} did not run</div>",
        _summary_table(results),
        *(_case_section(r) for r in results),
        "<h2>Run provenance</h2>",
        _key_value_table(prov),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _summary_table(results: list[CaseResult]) -> str:
    rows = []
    for r in results:
        metrics = r.outcome.metrics if r.outcome else []
        checked = [m for m in metrics if m.tolerance is not None]
        rows.append(
            f'<tr><td><a href="#{escape(r.case.name)}">{escape(r.case.name)}</a></td>'
            f"<td>{escape(r.case.title)}</td><td><code>{escape(r.case.kind)}</code></td>"
            f'<td class="{r.status}">{r.status}</td>'
            f'<td class="num">{sum(m.passed for m in checked)} / {len(checked)}</td>'
            f'<td class="num">{r.duration_s:.1f}</td></tr>'
        )
    head = "<tr><th>case</th><th>title</th><th>kind</th><th>status</th><th>metrics passed</th><th>time (s)</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def _case_section(r: CaseResult) -> str:
    case = r.case
    parts = [
        f'<h2 id="{escape(case.name)}">{escape(case.title)} <span class="{r.status}">[{r.status}]</span></h2>',
        f'<p class="meta">case <code>{escape(case.name)}</code> ({escape(str(case.file.name))}) · '
        + (f"model preset <code>{escape(case.model)}</code>" if case.model else "model built from the dataset")
        + f" · dataset <code>{escape(case.dataset)}</code></p>",
    ]
    if case.data.get("description"):
        parts.append(f"<p>{escape(case.data['description'])}</p>")
    if r.error:
        parts.append(f"<p class='error'>The case did not run to completion:</p><pre>{escape(r.error)}</pre>")
    if r.outcome is not None:
        parts.append(_metric_table(r.outcome.metrics))
        parts += [_figure(caption, fig) for caption, fig in r.outcome.figures]
    provenance = {"dataset": case.dataset, "dataset_sha256": r.dataset_sha256}
    provenance |= r.outcome.provenance if r.outcome else {}
    parts += ["<h3>Provenance</h3>", _key_value_table(provenance)]
    return "\n".join(parts)


def _figure(caption: str, draw) -> str:
    """A figure of the page: `draw()` (or `draw` itself when it is a figure already) as an inline PNG."""
    try:
        fig = draw if hasattr(draw, "savefig") else draw()
        img = f'<img alt="{escape(caption)}" src="data:image/png;base64,{png_base64(fig)}">'
    except ImportError as err:  # matplotlib is optional: the metrics stand without their pictures
        img = f"<pre>figure not drawn: {escape(str(err))}</pre>"
    except Exception as err:  # one broken figure must not cost the whole report
        img = f"<pre>figure could not be drawn: {escape(type(err).__name__)}: {escape(str(err))}</pre>"
    return f"<figure>{img}<figcaption>{escape(caption)}</figcaption></figure>"


def _metric_table(metrics: list[MetricResult]) -> str:
    head = (
        "<tr><th>metric</th><th>where</th><th>value</th><th>tolerance</th><th>units</th>"
        "<th>model vs reference</th><th>verdict</th></tr>"
    )
    rows = []
    for m in metrics:
        verdict = "reported" if m.tolerance is None else ("passed" if m.passed else "failed")
        tol = "—" if m.tolerance is None else f"≤ {_fmt(m.tolerance)}"
        rows.append(
            f"<tr><td><code>{escape(m.name)}</code></td><td>{escape(m.where)}</td>"
            f'<td class="num">{_fmt(m.value)}</td><td class="num">{tol}</td><td>{escape(m.units)}</td>'
            f'<td>{escape(m.detail)}</td><td class="{verdict}">{verdict}</td></tr>'
        )
    return f"<table>{head}{''.join(rows)}</table>"


def _key_value_table(items: dict[str, str]) -> str:
    rows = "".join(f"<tr><th>{escape(str(k))}</th><td>{escape(str(v))}</td></tr>" for k, v in items.items())
    return f"<table>{rows}</table>"


def _fmt(x: float) -> str:
    if x != x or x in (float("inf"), float("-inf")):
        return str(x)
    if x == int(x) and abs(x) < 1e6:
        return str(int(x))
    return f"{x:.4g}"
