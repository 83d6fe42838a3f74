"""The internal face of `ensembles`: what the other folders of difflab may import from it.

What other folders take from `ensembles`: running members on the local devices (sharded), and the
Dask-cluster plumbing (connect, check the workers' versions, gather results) that `calibrate` shares with `sweep`;
the base class of designs and the name of a sweep's derivative variables, on which `sensitivity` builds.

Siblings import from here, never from this folder's underscore modules (`scripts/check_layout.py`).
"""

from ._chunks import derivative_name as derivative_name
from ._cluster import check_workers as check_workers
from ._cluster import connect as connect
from ._cluster import expected_worker as expected_worker
from ._cluster import gather as gather
from ._cluster import refuse_mismatch as refuse_mismatch
from ._cluster import run_blocks as run_blocks
from ._cluster import worker_facts as worker_facts
from ._designs import AbstractDesign as AbstractDesign
from ._designs import AbstractUnitCubeDesign as AbstractUnitCubeDesign
from ._sharding import run_members as run_members
