"""`warn_caller`: a warning that names the user's line, however deep in difflab it is raised."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from types import FrameType

#: The package's folder: frames whose file lies under it are difflab's own.
_PACKAGE = str(Path(__file__).resolve().parent.parent)


def warn_caller(message: str, category: type[Warning]) -> None:
    """`warnings.warn(message, category)` attributed to the first frame outside difflab.

    A fixed `stacklevel` names the right line only from one call depth, and the depth changes with the path (a
    fit's warning from `calibrate` directly, through its legacy-keyword wrapper, or through `profile`). Walking the
    stack to the first frame outside the package names the user's own call each time (what Python 3.12's
    `skip_file_prefixes` does).
    """
    level = 2  # the frame that called warn_caller
    frame_or_none: FrameType | None = sys._getframe(1)
    while frame_or_none is not None and _inside(frame_or_none):
        frame_or_none, level = frame_or_none.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def _inside(frame: FrameType) -> bool:
    return str(Path(frame.f_code.co_filename).resolve()).startswith(_PACKAGE + os.sep)
