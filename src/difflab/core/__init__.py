"""The core: models, protocols, `simulate`, trajectories, parameter paths and the check layer.

`simulate` is the one caller of `diffrax.diffeqsolve`. The check layer raises eager errors for concrete values and
uses `eqx.error_if` for traced ones.
"""

from ._model import AbstractModel as AbstractModel
from ._model import StateInfo as StateInfo
from ._options import SolveOptions as SolveOptions
from ._protocol import AbstractProtocol as AbstractProtocol
from ._protocol import Constant as Constant
from ._protocol import PiecewiseLinear as PiecewiseLinear
from ._protocol import Ramp as Ramp
from ._protocol import Sampled as Sampled
from ._protocol import Step as Step
from ._protocol import Sum as Sum
from ._simulate import simulate as simulate
from ._state_layout import AbstractStateLayout as AbstractStateLayout
from ._trajectory import Trajectory as Trajectory
