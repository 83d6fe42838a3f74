"""difflab's own diffrax solvers and their helpers.

Domain solvers such as `difflab.neuron.RushLarsenCN` live with their domain.
"""

from ._tsit5 import UnrolledTsit5 as UnrolledTsit5
