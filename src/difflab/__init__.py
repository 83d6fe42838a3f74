"""difflab: differentiable scientific simulators on JAX, Diffrax and Equinox.

float64 is switched on at import (``jax_enable_x64``): validation against reference data
needs it. Models built from float32 arrays still run in float32.
"""

import importlib.metadata

import jax

jax.config.update("jax_enable_x64", True)

from . import datasets as datasets  # noqa: E402
from . import io as io  # noqa: E402
from ._calibrate import calibrate as calibrate  # noqa: E402
from ._calibration import Calibration as Calibration  # noqa: E402
from ._designs import Grid as Grid  # noqa: E402
from ._designs import LatinHypercube as LatinHypercube  # noqa: E402
from ._designs import RandomDesign as RandomDesign  # noqa: E402
from ._designs import Sobol as Sobol  # noqa: E402
from ._diagnostics import CalibrationWarning as CalibrationWarning  # noqa: E402
from ._ensemble import default_strategy as default_strategy  # noqa: E402
from ._ensemble import make_batch as make_batch  # noqa: E402
from ._ensemble import member as member  # noqa: E402
from ._ensemble import n_members as n_members  # noqa: E402
from ._ensemble import run_ensemble as run_ensemble  # noqa: E402
from ._ensemble import stack as stack  # noqa: E402
from ._ensemble import unstack as unstack  # noqa: E402
from ._io import DataFileError as DataFileError  # noqa: E402
from ._io import read_netcdf as read_netcdf  # noqa: E402
from ._io import write_netcdf as write_netcdf  # noqa: E402
from ._losses import MSE as MSE  # noqa: E402
from ._losses import AbstractLoss as AbstractLoss  # noqa: E402
from ._losses import FiringRate as FiringRate  # noqa: E402
from ._losses import SpikeTimes as SpikeTimes  # noqa: E402
from ._model import AbstractModel as AbstractModel  # noqa: E402
from ._model import StateInfo as StateInfo  # noqa: E402
from ._parameters import AbstractTransform as AbstractTransform  # noqa: E402
from ._parameters import Bounded as Bounded  # noqa: E402
from ._parameters import Identity as Identity  # noqa: E402
from ._parameters import Log as Log  # noqa: E402
from ._parameters import Positive as Positive  # noqa: E402
from ._profile import profile as profile  # noqa: E402
from ._protocol import AbstractProtocol as AbstractProtocol  # noqa: E402
from ._protocol import Constant as Constant  # noqa: E402
from ._protocol import PiecewiseLinear as PiecewiseLinear  # noqa: E402
from ._protocol import Ramp as Ramp  # noqa: E402
from ._protocol import Sampled as Sampled  # noqa: E402
from ._protocol import Step as Step  # noqa: E402
from ._protocol import Sum as Sum  # noqa: E402
from ._simulate import simulate as simulate  # noqa: E402
from ._strategies import GrowingWindows as GrowingWindows  # noqa: E402
from ._sweep import sweep as sweep  # noqa: E402
from ._trajectory import Trajectory as Trajectory  # noqa: E402
from ._tsit5 import UnrolledTsit5 as UnrolledTsit5  # noqa: E402

try:
    __version__ = importlib.metadata.version("difflab")
except importlib.metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0+unknown"
