"""difflab: differentiable scientific simulators on JAX, Diffrax and Equinox.

float64 is switched on at import (``jax_enable_x64``): validation against reference data
needs it. Models built from float32 arrays still run in float32.
"""

import importlib.metadata

import jax

jax.config.update("jax_enable_x64", True)

from . import datasets as datasets  # noqa: E402
from . import io as io  # noqa: E402
from ._io import DataFileError as DataFileError  # noqa: E402
from ._io import read_netcdf as read_netcdf  # noqa: E402
from ._io import write_netcdf as write_netcdf  # noqa: E402
from ._model import AbstractModel as AbstractModel  # noqa: E402
from ._model import StateInfo as StateInfo  # noqa: E402
from ._protocol import AbstractProtocol as AbstractProtocol  # noqa: E402
from ._protocol import Constant as Constant  # noqa: E402
from ._protocol import PiecewiseLinear as PiecewiseLinear  # noqa: E402
from ._protocol import Ramp as Ramp  # noqa: E402
from ._protocol import Sampled as Sampled  # noqa: E402
from ._protocol import Step as Step  # noqa: E402
from ._protocol import Sum as Sum  # noqa: E402
from ._simulate import simulate as simulate  # noqa: E402
from ._trajectory import Trajectory as Trajectory  # noqa: E402

try:
    __version__ = importlib.metadata.version("difflab")
except importlib.metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0+unknown"
