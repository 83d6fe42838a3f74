"""Calibration: fitting model parameters to measured data.

The package holds `calibrate` and its result, the objective, optimisers, losses, bounded transforms, measured data,
checkpoints, uncertainty, profile likelihood and global strategies.
"""

from ._calibrate import calibrate as calibrate
from ._comparison import Comparison as Comparison
from ._diagnostics import CalibrationWarning as CalibrationWarning
from ._linear_estimate import EstimateUnavailable as EstimateUnavailable
from ._linear_estimate import LinearlyEstimable as LinearlyEstimable
from ._losses import MSE as MSE
from ._losses import AbstractLoss as AbstractLoss
from ._losses import FiringRate as FiringRate
from ._losses import LossSum as LossSum
from ._losses import SpikeTimes as SpikeTimes
from ._profile import profile as profile
from ._result import Calibration as Calibration
from ._run import RunOptions as RunOptions
from ._strategies import GrowingWindows as GrowingWindows
from ._transforms import AbstractTransform as AbstractTransform
from ._transforms import Bounded as Bounded
from ._transforms import Identity as Identity
from ._transforms import Log as Log
from ._transforms import Positive as Positive
