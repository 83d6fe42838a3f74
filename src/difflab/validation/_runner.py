"""Case runners: the contract, the registry of ``kind`` names, and running one case.

A runner turns a [`CaseSpec`][difflab.validation.CaseSpec] into a
[`CaseOutcome`][difflab.validation.CaseOutcome]: it builds the model, simulates, compares with
the reference dataset and returns metrics (value, tolerance, verdict), figures and provenance.
[`run_case`][difflab.validation.run_case] adds timing, dataset checksum and error capture.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import time
import traceback
from collections.abc import Callable
from typing import Any

from ._spec import CaseError, CaseSpec, load_case


@dataclasses.dataclass(frozen=True)
class MetricResult:
    """One number compared with its tolerance: ``passed`` is ``value <= tolerance``.

    Attributes:
        name: metric name as in the case file (``"spike_time_max_error"``).
        value: the computed error (non-negative; NaN counts as a failure).
        tolerance: the bound from the case file; ``None`` for a reported-only number.
        units: units of ``value`` and ``tolerance``.
        where: qualifier for per-item metrics (``"I = 10 µA/cm²"``); empty otherwise.
        detail: model and reference values in words (``"model 7, reference 7"``).
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
        figures: ``(caption, matplotlib Figure)`` pairs, e.g. model over reference and residuals.
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
        run: ``run(case: CaseSpec) -> CaseOutcome``.
        metrics: names of the metrics it computes (a case may ask for any subset).
        required: runner-specific fields a case must give (dotted name -> type).
        optional: runner-specific fields a case may give (dotted name -> type).
        check: optional ``check(case)`` run before any case starts (e.g. that the model preset
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
        """``"passed"``, ``"failed"`` (a metric beyond its tolerance) or ``"error"`` (did not run)."""
        if self.error is not None or self.outcome is None:
            return "error"
        return "passed" if all(m.passed for m in self.outcome.metrics) else "failed"


# kind -> Runner, or "module:attribute" naming one (imported on first use, so that
# importing difflab.validation does not import every domain). Domains may instead ship a
# ``difflab.<domain>._validation`` module with a ``RUNNERS = {kind: Runner}`` dict: a kind
# "<domain>.<name>" is looked up there when it is not registered here.
_RUNNERS: dict[str, Runner | str] = {
    "neuron.trace": "difflab.neuron._validation:TRACE",
    "neuron.fi_curve": "difflab.neuron._validation:FI_CURVE",
}


def register_runner(kind: str, runner: Runner | str) -> None:
    """Make ``kind`` available to case files: a [`Runner`][difflab.validation.Runner] or a
    ``"package.module:NAME"`` string naming one."""
    _RUNNERS[kind] = runner


def runner_kinds() -> list[str]:
    """The registered kinds, and those of every ``difflab.<domain>._validation`` module."""
    import pkgutil

    import difflab

    kinds = set(_RUNNERS)
    for info in pkgutil.iter_modules(difflab.__path__):
        if info.ispkg:
            kinds |= set(_domain_runners(info.name))
    return sorted(kinds)


def get_runner(kind: str, file: Any = "case") -> Runner:
    """The runner for ``kind``: a registered name, a kind of ``difflab.<domain>._validation``
    (``RUNNERS`` dict), or a ``"module:NAME"`` path."""
    target = _RUNNERS.get(kind, kind if ":" in kind else None)
    if target is None and "." in kind:
        target = _domain_runners(kind.split(".")[0]).get(kind)
    if target is None:
        raise CaseError(f"{file}: field 'kind': unknown kind {kind!r}; registered: {', '.join(runner_kinds())}")
    if isinstance(target, str):
        module, _, attr = target.partition(":")
        try:
            target = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as err:
            raise CaseError(f"{file}: field 'kind': cannot load runner {target!r}: {err}") from err
    if not isinstance(target, Runner):
        raise CaseError(f"{file}: field 'kind': {kind!r} is a {type(target).__name__}, not a Runner")
    return target


def _domain_runners(domain: str) -> dict[str, Runner]:
    """``RUNNERS`` of ``difflab.<domain>._validation``; empty when there is no such module."""
    import importlib.util

    name = f"difflab.{domain}._validation"
    try:
        if importlib.util.find_spec(name) is None:
            return {}
    except ModuleNotFoundError:  # no package difflab.<domain>
        return {}
    return dict(getattr(importlib.import_module(name), "RUNNERS", {}))


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
    """A [`MetricResult`][difflab.validation.MetricResult] with the tolerance the case file gives
    for ``name`` (``None``, i.e. reported only, when the case does not ask for it)."""
    return MetricResult(name, float(value), case.tolerances.get(name), units, where, detail)


def run_case(case: CaseSpec, runner: Runner) -> CaseResult:
    """Run one case; an exception becomes an ``"error"`` result with its traceback's last lines."""
    from ..datasets import sha256

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
