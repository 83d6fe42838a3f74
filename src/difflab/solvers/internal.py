"""The internal face of `solvers`: what the other folders of difflab may import from it.

Solver pieces other folders use: the unrolled Tsit5 of `simulate`'s default, and the fused (lazily
materialised) solution of the neuron and quantum steppers.

Siblings import from here, never from this folder's underscore modules (`scripts/check_layout.py`).
"""

from ._fusion import materialise as materialise
from ._fusion import materialise_at as materialise_at
from ._fusion import materialise_tangent as materialise_tangent
from ._tsit5 import UnrolledTsit5 as UnrolledTsit5
