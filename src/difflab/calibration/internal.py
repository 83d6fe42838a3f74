"""The internal face of `calibration`: what the other folders of difflab may import from it.

What domains take from `calibration` for their own fits (the reflector's servo fit, the CLI): `calibrate`, its
result and the transforms and strategies.

Siblings import from here, never from this folder's underscore modules (`scripts/check_layout.py`).
"""

from ._calibrate import build_problem as build_problem
from ._calibrate import calibrate as calibrate
from ._calibrate import fit_members as fit_members
from ._comparison import Comparison as Comparison
from ._diagnostics import resolve_default_step as resolve_default_step
from ._linear_estimate import EstimateUnavailable as EstimateUnavailable
from ._measured import FitData as FitData
from ._measured import as_fit_data as as_fit_data
from ._objective import Problem as Problem
from ._result import Calibration as Calibration
from ._run import RunOptions as RunOptions
from ._strategies import GrowingWindows as GrowingWindows
from ._transforms import AbstractTransform as AbstractTransform
from ._transforms import Bounded as Bounded
from ._transforms import Log as Log
from ._transforms import Positive as Positive
