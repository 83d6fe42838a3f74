"""Optional dependencies: imported where they are first needed, with the extra that installs them named.

difflab's core needs none of them; a feature that does (a Dask cluster, NWB files) asks for its module here when it
is used. A module that is missing raises `ImportError` naming the feature and the install command, rather than a
bare `No module named ...` from deep inside a call.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def optional_module(name: str, extra: str, feature: str) -> ModuleType:
    """The module `name` (e.g. `"distributed.client"`), imported on first use.

    Args:
        name: the module's dotted name.
        extra: the difflab extra that installs it (`"cluster"`, `"nwb"`, ...).
        feature: what needs it, for the message (`"client="`, `"reading NWB files"`).

    Raises:
        ImportError: the module is not installed; the message gives `pip install 'difflab[extra]'`.
    """
    try:
        return importlib.import_module(name)
    except ImportError as err:
        package = name.split(".")[0]
        raise ImportError(f"{feature} needs {package}: pip install 'difflab[{extra}]'") from err
