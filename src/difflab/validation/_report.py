"""Writing a report folder (`index.html` + `summary.json`) atomically.

The folder is assembled in a temporary sibling and renamed into place at the end, so an
interrupted run never leaves a half-written report; an existing folder is replaced only when it
is itself a difflab report (its `summary.json` says so).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from pathlib import Path

from ..data.internal import umask
from ._html import render_html
from ._provenance import checkout_root
from ._runner import CaseResult

GENERATOR = "difflab validate"
# What a report folder may hold: the report, and the PNG that scripts/render_report.sh writes.
_REPORT_FILES = {"index.html", "summary.json", "screenshot.png"}
SCHEMA_VERSION = 1


class ReportError(OSError):
    """The report cannot be written where asked (a file, or a folder that is not a report)."""


def default_report_dir() -> Path:
    """`validation/reports` in a source checkout; `./difflab-report` when installed from a wheel."""
    root = checkout_root()
    if root is not None:
        return root / "validation" / "reports"
    return Path.cwd() / "difflab-report"


def check_report_dir(out: str | os.PathLike) -> Path:
    """Raise [`ReportError`][difflab.validation.ReportError] unless `out` may receive a report.

    Allowed: a path that does not exist, an empty folder, or a previous difflab report.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {str(out)!r} is a file, not a folder; choose another path")
    if out.is_dir() and any(out.iterdir()) and not _is_report(out):
        raise ReportError(
            f"--out {str(out)!r} is a folder that holds files other than a difflab report; "
            "refusing to replace it (choose an empty or new folder)"
        )
    if out.parent.exists() and not out.parent.is_dir():
        raise ReportError(f"--out {str(out)!r}: its parent {str(out.parent)!r} is a file")
    return out


def summary(results: list[CaseResult], provenance: dict[str, str]) -> dict:
    """The machine-readable summary written to `summary.json`."""
    return {
        "generator": GENERATOR,
        "schema_version": SCHEMA_VERSION,
        "passed": all(r.status == "passed" for r in results),
        "counts": {s: sum(r.status == s for r in results) for s in ("passed", "failed", "error")},
        "provenance": provenance,
        "cases": [_case_summary(r) for r in results],
    }


def write_report(results: list[CaseResult], out: str | os.PathLike, provenance: dict[str, str]) -> Path:
    """Write `out/index.html` and `out/summary.json`; returns `out`."""
    out = check_report_dir(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        data = summary(results, provenance)
        (tmp / "summary.json").write_text(json.dumps(data, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        (tmp / "index.html").write_text(render_html(results, data), encoding="utf-8")
        os.chmod(tmp, 0o777 & ~umask())  # mkdtemp makes a private folder; a report is for reading
        for f in tmp.iterdir():
            os.chmod(f, 0o666 & ~umask())
        _swap_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def _swap_into_place(tmp: Path, out: Path) -> None:
    if not out.exists():
        os.replace(tmp, out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
    os.replace(out, old / "report")
    try:
        os.replace(tmp, out)
    except BaseException:
        os.replace(old / "report", out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _is_report(folder: Path) -> bool:
    """A folder that `difflab validate` wrote and that holds nothing else (no user files)."""
    if any(p.name not in _REPORT_FILES for p in folder.iterdir()):
        return False
    try:
        data = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("generator") == GENERATOR


def _case_summary(result: CaseResult) -> dict:
    case, outcome = result.case, result.outcome
    return {
        "name": case.name,
        "title": case.title,
        "kind": case.kind,
        "model": case.model,
        "dataset": case.dataset,
        "dataset_sha256": result.dataset_sha256,
        "status": result.status,
        "error": result.error,
        "duration_s": round(result.duration_s, 3),
        "metrics": [
            {
                "name": m.name,
                "where": m.where,
                "value": _json_number(m.value),
                "tolerance": m.tolerance,
                "units": m.units,
                "passed": m.passed,
                "detail": m.detail,
            }
            for m in (outcome.metrics if outcome else [])
        ],
        "provenance": {str(k): str(v) for k, v in (outcome.provenance if outcome else {}).items()},
    }


def _json_number(x: float) -> float | str:
    """JSON has no NaN/inf: write them as strings."""
    return x if math.isfinite(x) else str(x)
