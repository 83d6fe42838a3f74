"""Global sensitivity analysis on top of [`difflab.sweep`][]: Sobol' indices, Morris screening, DGSM.

Each method builds its design, runs it through `sweep` (chunked, written per chunk with `directory=` and
resumed after a stop, on a Dask cluster with `client=`) and returns a Dataset over (`output`, `parameter`) with
bootstrap confidence intervals; [`difflab.plot.sensitivity`][] draws it. See docs/sensitivity.md.
"""

from ._dgsm import dgsm as dgsm
from ._dgsm import dgsm_analyze as dgsm_analyze
from ._morris import morris as morris
from ._morris import morris_analyze as morris_analyze
from ._morris_design import Morris as Morris
from ._saltelli import Saltelli as Saltelli
from ._sobol import sobol_analyze as sobol_analyze
from ._sobol import sobol_indices as sobol_indices
