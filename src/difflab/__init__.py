"""difflab: differentiable scientific simulators on JAX, Diffrax and Equinox.

Precision: `import difflab` switches JAX's 64-bit mode on (`jax_enable_x64`), because validation against reference
data and gradient-based fits of stiff models need float64, and a scientist who forgets the flag gets float32 results
that silently disagree with the references. Models built from float32 arrays still run in float32 (the dtype follows
the parameters). To keep JAX's own default, set the environment variable `JAX_ENABLE_X64` (to `0` or `1`) before
importing: difflab then leaves the setting alone.

CPU loops: `import difflab` also adds `xla_cpu_small_while_loop_byte_threshold=8388608` to XLA's backend options in
`XLA_FLAGS` (unless it names that option), so that XLA runs a loop over a small state, a fixed-step solve of one
cell, a few chains or a 1000-member ensemble, as one kernel instead of a kernel per operation: 1.6-25x faster on the
CPU (`difflab.core._xla_cpu`). JAX reads the flag when its CPU backend starts: import difflab before running JAX code.

Layout: `core` (models, protocols, `simulate`, trajectories, checks), `solvers`, `calibration`, `ensembles`
(batches, sweeps, designs), `data` (netCDF, NWB, units, dataset registry), the domains `neuron`, `reflector`,
`quantum`, then `validation` and `cli`. Every public name is re-exported here or in a domain package.
"""

import importlib.metadata

from . import _startup  # noqa: F401 - first: JAX's settings before any of difflab runs JAX code
from . import datasets as datasets
from . import io as io
from . import plot as plot
from . import sensitivity as sensitivity
from .bayes import Sampling as Sampling
from .bayes import as_inference_data as as_inference_data
from .bayes import posterior as posterior
from .calibration import MSE as MSE
from .calibration import AbstractLoss as AbstractLoss
from .calibration import AbstractTransform as AbstractTransform
from .calibration import Bounded as Bounded
from .calibration import Calibration as Calibration
from .calibration import CalibrationWarning as CalibrationWarning
from .calibration import Comparison as Comparison
from .calibration import EstimateUnavailable as EstimateUnavailable
from .calibration import FiringRate as FiringRate
from .calibration import GrowingWindows as GrowingWindows
from .calibration import Identity as Identity
from .calibration import LinearlyEstimable as LinearlyEstimable
from .calibration import Log as Log
from .calibration import LossSum as LossSum
from .calibration import Positive as Positive
from .calibration import RunOptions as RunOptions
from .calibration import SpikeTimes as SpikeTimes
from .calibration import calibrate as calibrate
from .calibration import profile as profile
from .core import AbstractModel as AbstractModel
from .core import AbstractProtocol as AbstractProtocol
from .core import AbstractStateLayout as AbstractStateLayout
from .core import Constant as Constant
from .core import PiecewiseLinear as PiecewiseLinear
from .core import Ramp as Ramp
from .core import Sampled as Sampled
from .core import SolveOptions as SolveOptions
from .core import StateInfo as StateInfo
from .core import Step as Step
from .core import Sum as Sum
from .core import Trajectory as Trajectory
from .core import simulate as simulate
from .ensembles import Grid as Grid
from .ensembles import LatinHypercube as LatinHypercube
from .ensembles import RandomDesign as RandomDesign
from .ensembles import Sobol as Sobol
from .ensembles import default_strategy as default_strategy
from .ensembles import make_batch as make_batch
from .ensembles import member as member
from .ensembles import n_members as n_members
from .ensembles import run_ensemble as run_ensemble
from .ensembles import stack as stack
from .ensembles import sweep as sweep
from .ensembles import unstack as unstack
from .io import DataFileError as DataFileError
from .io import read_netcdf as read_netcdf
from .io import write_netcdf as write_netcdf
from .solvers import UnrolledTsit5 as UnrolledTsit5

try:
    __version__ = importlib.metadata.version("difflab")
except importlib.metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0+unknown"
