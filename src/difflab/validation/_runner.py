"""Case runners: the contract, the registry of `kind` names, and running one case.

A runner turns a [`CaseSpec`][difflab.validation.CaseSpec] into a
[`CaseOutcome`][difflab.validation.CaseOutcome]: it builds the model, simulates, compares with
the reference dataset and returns metrics (value, tolerance, verdict), figures and provenance.
[`run_case`][difflab.validation.run_case] adds timing, dataset checksum and error capture.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import re
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..datasets import sha256
from ._spec import CaseError, CaseSpec, load_case


@dataclasses.dataclass(frozen=True)
class MetricResult:
    """One number compared with its tolerance: `passed` is `value <= tolerance`.

    Attributes:
        name: metric name as in the case file (`"spike_time_max_error"`).
        value: the computed error (non-negative; NaN counts as a failure).
        tolerance: the bound from the case file; `None` for a reported-only number.
        units: units of `value` and `tolerance`.
        where: qualifier for per-item metrics (`"I = 10 µA/cm²"`); empty otherwise.
        detail: model and reference values in words (`"model 7, reference 7"`).
    """

    name: str
    value: float
    tolerance: float | None
    units: str = ""
    where: str = ""
    detail: str = ""

    @property
    def passed(self) -> bool:
        if self.tolerance is None:
            return True
        return math.isfinite(self.value) and self.value <= self.tolerance


@dataclasses.dataclass
class CaseOutcome:
    """What a runner returns.

    Attributes:
        metrics: metric results; build them with [`metric`][difflab.validation.metric] so the
            tolerance comes from the case file.
        figures: `(caption, draw)` pairs, e.g. model over reference and residuals; `draw` takes no argument
            and returns a matplotlib Figure. It is called when the HTML report is written, so that a case
            runs, and its metrics are reported, without matplotlib (an optional install, the `plot` extra).
        provenance: how the model side was computed (solver, tolerances, dtype, versions,
            preset, protocol), as strings.
    """

    metrics: list[MetricResult]
    figures: list[tuple[str, Any]] = dataclasses.field(default_factory=list)
    provenance: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Runner:
    """A registered case kind.

    Attributes:
        run: `run(case: CaseSpec) -> CaseOutcome`.
        metrics: names of the metrics it computes (a case may ask for any subset).
        required: runner-specific fields a case must give (dotted name -> type).
        optional: runner-specific fields a case may give (dotted name -> type).
        check: optional `check(case)` run before any case starts (e.g. that the model preset
            exists); raises [`CaseError`][difflab.validation.CaseError].
    """

    run: Callable[[CaseSpec], CaseOutcome]
    metrics: tuple[str, ...]
    required: dict[str, Any] = dataclasses.field(default_factory=dict)
    optional: dict[str, Any] = dataclasses.field(default_factory=dict)
    check: Callable[[CaseSpec], None] | None = None


@dataclasses.dataclass
class CaseResult:
    """A case after it ran: its spec, outcome (or error) and verdict."""

    case: CaseSpec
    outcome: CaseOutcome | None
    error: str | None
    duration_s: float
    dataset_sha256: str

    @property
    def status(self) -> str:
        """`"passed"`, `"failed"` (a metric beyond its tolerance) or `"error"` (did not run)."""
        if self.error is not None or self.outcome is None:
            return "error"
        return "passed" if all(m.passed for m in self.outcome.metrics) else "failed"


# kind -> Runner: the one registry. A domain is a sub-package of difflab with a `_validation` module, which
# registers the domain's kinds through the public `register_runner` when the domain's package is imported. A kind
# "<domain>.<name>" imports that package on first use, so importing difflab.validation does not import every domain,
# and a new domain joins by having the module (no list to edit). Other packages register their own kinds the same
# way before calling `validate`.
_RUNNERS: dict[str, Runner] = {}
_KIND = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")


def register_runner(kind: str, runner: Runner, *, replace: bool = False) -> None:
    """Make `kind` available to case files.

    Args:
        kind: a dotted name `"<group>.<name>"` (e.g. `"neuron.trace"`); the group of a shipped domain is its
            package name.
        runner: the [`Runner`][difflab.validation.Runner].
        replace: allow replacing a runner already registered under `kind`.

    Raises:
        TypeError: `runner` is not a `Runner`.
        ValueError: `kind` is not a dotted name, or is taken and `replace` is false.
    """
    if not isinstance(runner, Runner):
        raise TypeError(f"register_runner: `runner` must be a difflab.validation.Runner, got {type(runner).__name__}")
    if not isinstance(kind, str) or not _KIND.fullmatch(kind):
        raise ValueError(f"register_runner: `kind` must be a dotted name like 'group.name', got {kind!r}")
    if kind in _RUNNERS and _RUNNERS[kind] is not runner and not replace:
        raise ValueError(f"register_runner: kind {kind!r} is already registered (pass replace=True to replace it)")
    _RUNNERS[kind] = runner


def domains() -> list[str]:
    """The shipped domains: the sub-packages of difflab that have a `_validation` module."""
    package = Path(__file__).resolve().parents[1]
    return sorted(p.parent.name for p in package.glob("*/_validation.py") if (p.parent / "__init__.py").is_file())


def _join_domain(group: str) -> None:
    """Import the public package of a shipped domain, which registers its runners."""
    if group in domains():
        importlib.import_module(f"difflab.{group}")


def runner_kinds() -> list[str]:
    """Every registered kind, the shipped domains' included."""
    for domain in domains():
        _join_domain(domain)
    return sorted(_RUNNERS)


def get_runner(kind: str, file: Any = "case") -> Runner:
    """The runner registered for `kind`.

    Otherwise a [`CaseError`][difflab.validation.CaseError] naming the known kinds (nothing is imported on behalf of
    a case file beyond the shipped domains).
    """
    if not isinstance(kind, str):
        raise CaseError(f"{file}: field 'kind': expected a string, got {type(kind).__name__}")
    if kind not in _RUNNERS:
        _join_domain(kind.split(".")[0])
    runner = _RUNNERS.get(kind)
    if runner is None:
        raise CaseError(f"{file}: field 'kind': unknown kind {kind!r}; registered: {', '.join(runner_kinds())}")
    return runner


def prepare_case(file) -> tuple[CaseSpec, Runner]:
    """Read a case file and check it against its runner: fields, metric names, dataset."""
    spec = load_case(file)
    runner = get_runner(spec.kind, spec.file)
    spec = load_case(file, required=runner.required, optional=runner.optional)
    unknown = sorted(set(spec.data["metrics"]) - set(runner.metrics))
    if unknown:
        raise CaseError(
            f"{spec.file}: unknown metric(s) {unknown} for kind {spec.kind!r}; available: {', '.join(runner.metrics)}"
        )
    if "dataset_file" in spec.data:
        spec.load_dataset()  # a user's file: is it readable netCDF?
    else:
        spec.dataset_path  # noqa: B018 (checks that the shipped dataset exists and is unaltered)
    if runner.check is not None:
        runner.check(spec)
    return spec, runner


def metric(case: CaseSpec, name: str, value: float, *, units: str = "", where: str = "", detail: str = ""):
    """A [`MetricResult`][difflab.validation.MetricResult] with the tolerance the case file gives for `name`.

    The tolerance is `None` (i.e. reported only) when the case does not ask for it.
    """
    return MetricResult(name, float(value), case.tolerances.get(name), units, where, detail)


def run_case(case: CaseSpec, runner: Runner) -> CaseResult:
    """Run one case; an exception becomes an `"error"` result with its traceback's last lines."""
    start = time.perf_counter()
    sha = sha256(case.dataset_path)
    try:
        outcome = runner.run(case)
        missing = sorted(set(case.tolerances) - {m.name for m in outcome.metrics})
        error = f"the runner did not compute the requested metric(s) {missing}" if missing else None
    except Exception as err:  # a broken case must not stop the others
        outcome = None
        tail = "".join(traceback.format_exception(err)[-3:])
        error = f"{type(err).__name__}: {err}\n{tail}"
    return CaseResult(case, outcome, error, time.perf_counter() - start, sha)
