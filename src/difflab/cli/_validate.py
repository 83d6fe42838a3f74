"""`difflab validate`: run validation cases and write an HTML report and summary.json."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from ._common import EXIT_FAILED, fail


def validate(
    cases: Annotated[
        list[str] | None,
        typer.Argument(
            help="Case names (see --list) or paths to case .toml files. Default: every shipped case.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Report folder. Default: validation/reports in a source checkout, ./difflab-report otherwise. "
            "An existing folder is replaced only if it holds a previous difflab report.",
            show_default=False,
        ),
    ] = None,
    list_cases: Annotated[bool, typer.Option("--list", help="List the shipped cases and exit.")] = False,
    progress: Annotated[
        bool, typer.Option(help="Show progress on stderr: a bar on a terminal, one line per case otherwise.")
    ] = True,
) -> None:
    """Run validation cases against their reference datasets and write a report.

    Writes OUT/index.html (one self-contained page: summary table, figures, metric tables,
    provenance) and OUT/summary.json. Exit code 0 when every case passes, 1 when a case fails
    or cannot run, 2 on bad input (unknown case, malformed case file, missing dataset, bad --out).
    """
    from .. import validation as dv

    if list_cases:
        specs = {name: dv.load_case(file) for name, file in dv.shipped_cases().items()}
        width = max((len(n) for n in specs), default=0), max((len(s.kind) for s in specs.values()), default=0)
        for name, spec in specs.items():
            typer.echo(f"{name:{width[0]}s}  {spec.kind:{width[1]}s}  {spec.title}")
        return
    shown = _CaseProgress(progress)
    try:
        results, folder = dv.validate(cases or (), out, progress=shown, on_result=shown.result)
    except (dv.CaseError, dv.ReportError) as err:
        raise fail(str(err)) from None
    n_ok = sum(r.status == "passed" for r in results)
    typer.echo(f"{n_ok} of {len(results)} case(s) passed. Report: {folder / 'index.html'}")
    if n_ok != len(results):
        raise typer.Exit(EXIT_FAILED)


class _CaseProgress:
    """The bar over the cases (when asked for) and each case's line on stdout as soon as it has run."""

    def __init__(self, progress: bool) -> None:
        self.progress = progress
        self.bar: Any = None  # the Progress, once the cases are known

    def __call__(self, cases: Iterable) -> Iterator:
        from ..core.internal import Progress

        cases = list(cases)
        with Progress(len(cases), "validate", progress=self.progress, unit="case") as self.bar:
            for spec, runner in cases:
                yield spec, runner
                self.bar.advance(spec.name)

    def result(self, r) -> None:
        checked = [m for m in (r.outcome.metrics if r.outcome else []) if m.tolerance is not None]
        line = f"{r.status.upper():7s} {r.case.name:28s} {sum(m.passed for m in checked)}/{len(checked)} metrics"
        lines = [f"{line}  {r.duration_s:6.1f} s"] + ([f"        {r.error.splitlines()[0]}"] if r.error else [])
        for text in lines:
            if self.bar is not None:
                self.bar.echo(text)
            else:
                typer.echo(text)
