"""Validation of models against reference datasets: case specs, runners, metrics, reports.

A case (`validation/*.toml`) names a model preset, a reference dataset, a protocol and metrics
with tolerances; its `kind` selects a [`Runner`][difflab.validation.Runner] that computes the
metrics. [`validate`][difflab.validation.validate] runs cases and writes a self-contained HTML
report and a `summary.json`; `difflab validate` is its command line.
"""

from ..plot import MODEL_STYLE as MODEL_STYLE
from ..plot import REFERENCE_STYLE as REFERENCE_STYLE
from ..plot import overlay as _overlay
from ..plot import png_base64 as png_base64
from ._metrics import count_error as count_error
from ._metrics import event_time_errors as event_time_errors
from ._metrics import event_time_max_error as event_time_max_error
from ._metrics import finite_values as finite_values
from ._metrics import max_abs_error as max_abs_error
from ._metrics import rms_error as rms_error
from ._metrics import worst_event as worst_event
from ._protocols import describe_protocol as describe_protocol
from ._protocols import parse_protocol as parse_protocol
from ._protocols import protocol_from_table as protocol_from_table
from ._report import ReportError as ReportError
from ._report import default_report_dir as default_report_dir
from ._report import write_report as write_report
from ._runner import CaseOutcome as CaseOutcome
from ._runner import CaseResult as CaseResult
from ._runner import MetricResult as MetricResult
from ._runner import Runner as Runner
from ._runner import get_runner as get_runner
from ._runner import metric as metric
from ._runner import register_runner as register_runner
from ._runner import run_case as run_case
from ._runner import runner_kinds as runner_kinds
from ._spec import CaseError as CaseError
from ._spec import CaseSpec as CaseSpec
from ._spec import load_case as load_case
from ._spec import shipped_cases as shipped_cases
from ._validate import prepare_cases as prepare_cases
from ._validate import validate as validate

#: The runners' name for [`difflab.plot.overlay`][]: model over reference, residuals below.
overlay_figure = _overlay
