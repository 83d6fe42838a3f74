"""The internal face of `core`: what the other folders of difflab may import from it.

The names the rest of difflab builds on: the model and protocol classes, `simulate` and its step rules,
the check layer (eager errors for concrete values, `eqx.error_if` for traced ones, `check_key` for random keys),
parameter paths, the loop strategies and the version of the package.

Siblings (`calibration`, `ensembles`, the domains, `validation`, `cli`) import from here, never from this folder's
underscore modules. A name here keeps its meaning within a minor version; changing one is a change of every caller
(`scripts/check_layout.py` enforces the rule in CI).
"""

from ._backend import STRATEGIES as STRATEGIES
from ._backend import check_strategy as check_strategy
from ._backend import default_loop as default_loop
from ._backend import default_solver as default_solver
from ._backend import default_strategy as default_strategy
from ._checks import as_float as as_float
from ._checks import check_finite as check_finite
from ._checks import check_increasing as check_increasing
from ._checks import check_nonnegative as check_nonnegative
from ._checks import check_numeric as check_numeric
from ._checks import check_positive as check_positive
from ._checks import check_solve_options as check_solve_options
from ._checks import check_state_shapes as check_state_shapes
from ._checks import is_concrete as is_concrete
from ._checks import raise_if_unphysical as raise_if_unphysical
from ._crossings import first_crossings as first_crossings
from ._crossings import soft_crossing_count as soft_crossing_count
from ._crossings import upward_crossings as upward_crossings
from ._deprecated import gather_moved as gather_moved
from ._deprecated import legacy_keywords as legacy_keywords
from ._deprecated import warn_moved as warn_moved
from ._keys import check_key as check_key
from ._members import vmap_members as vmap_members
from ._model import AbstractModel as AbstractModel
from ._model import StateInfo as StateInfo
from ._optax_update import optax_update as optax_update
from ._optional import optional_module as optional_module
from ._options import DEFAULT_MAX_STEPS as DEFAULT_MAX_STEPS
from ._options import SOLVE_FIELDS as SOLVE_FIELDS
from ._options import SolveOptions as SolveOptions
from ._options import merge_options as merge_options
from ._options import split_solve_keywords as split_solve_keywords
from ._paths import get_path as get_path
from ._paths import iter_parameters as iter_parameters
from ._paths import set_paths as set_paths
from ._progress import Progress as Progress
from ._protocol import AbstractInterpolated as AbstractInterpolated
from ._protocol import AbstractProtocol as AbstractProtocol
from ._protocol import Constant as Constant
from ._protocol import Ramp as Ramp
from ._protocol import Sampled as Sampled
from ._protocol import Step as Step
from ._protocol import Sum as Sum
from ._protocol import interp_rows as interp_rows
from ._protocol import min_concrete as min_concrete
from ._simulate import default_dt0 as default_dt0
from ._simulate import fit_to_protocol as fit_to_protocol
from ._simulate import simulate as simulate
from ._state_layout import AbstractStateLayout as AbstractStateLayout
from ._static import StaticArray as StaticArray
from ._stop_request import StopRequest as StopRequest
from ._trajectory import Trajectory as Trajectory
from ._versions import package_version as package_version
from ._warn_caller import warn_caller as warn_caller
from ._xla_cpu import apply_small_loop_option as apply_small_loop_option
