"""Run validation cases and write the report: the library side of `difflab validate`."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from ._provenance import run_provenance
from ._report import check_report_dir, default_report_dir, write_report
from ._runner import CaseResult, Runner, prepare_case, run_case
from ._spec import CaseSpec, find_case_file, shipped_cases


def prepare_cases(names: Iterable[str] = ()) -> list[tuple[CaseSpec, Runner]]:
    """Read and check the named cases (all shipped cases when `names` is empty) before any runs.

    Raises:
        CaseError: an unknown case, a malformed spec, an unknown kind or metric, or a missing
            or altered dataset; the message names the file and the field.
    """
    files = [find_case_file(n) for n in names] if names else list(shipped_cases().values())
    return [prepare_case(f) for f in files]


def validate(
    names: Iterable[str] = (),
    out: str | os.PathLike | None = None,
    *,
    progress: Callable[[Iterable], Iterable] | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> tuple[list[CaseResult], Path]:
    """Run the cases and write `out/index.html` and `out/summary.json`.

    Every case and the output folder are checked before the first case runs; the report is
    written only after the last one (to a temporary folder, renamed into place).

    Args:
        names: case names or paths to `.toml` files; empty for every shipped case.
        out: report folder; default [`default_report_dir`][difflab.validation.default_report_dir].
        progress: wraps the iteration over cases (e.g. `tqdm.tqdm`).
        on_result: called with each case's result as soon as the case has run (the command line prints it).

    Returns:
        The case results and the report folder.
    """
    out = check_report_dir(default_report_dir() if out is None else out)
    cases = prepare_cases(names)
    provenance = run_provenance()
    iterate = progress if progress is not None else iter
    results = []
    for spec, runner in iterate(cases):
        results.append(run_case(spec, runner))
        if on_result is not None:
            on_result(results[-1])
    return results, write_report(results, out, provenance)
