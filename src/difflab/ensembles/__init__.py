"""Ensembles and parameter studies.

The package holds batches of models, strategies per backend, sharding over devices, sweeps and their designs.
"""

from ._cluster import ClusterError as ClusterError
from ._cluster import worker_report as worker_report
from ._designs import Grid as Grid
from ._designs import LatinHypercube as LatinHypercube
from ._designs import RandomDesign as RandomDesign
from ._designs import Sobol as Sobol
from ._ensemble import default_strategy as default_strategy
from ._ensemble import make_batch as make_batch
from ._ensemble import member as member
from ._ensemble import n_members as n_members
from ._ensemble import run_ensemble as run_ensemble
from ._ensemble import stack as stack
from ._ensemble import unstack as unstack
from ._sweep import sweep as sweep
