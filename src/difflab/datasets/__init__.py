"""Reference datasets shipped with difflab, checked against their sha256 manifests.

Each group folder (``datasets/<group>/``) holds the data files, a ``README.md`` (origin,
simulator and version, settings, licence, units) and a ``manifest.toml``::

    [files."hh_step_10uA.nc"]
    sha256 = "..."
    description = "..."

Names are ``"<group>/<file stem or file name>"``, e.g. ``"hh/hh_step_10uA"`` or
``"fast/nodes.csv"``.
"""

from ..data._registry import DatasetError as DatasetError
from ..data._registry import available as available
from ..data._registry import load as load
from ..data._registry import path as path
from ..data._registry import sha256 as sha256
