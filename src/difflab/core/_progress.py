"""Progress of long work: a tqdm bar on a terminal, one plain line per stage in a log, or nothing.

Every long computation in difflab reports through this one helper, with one meaning for its `progress` argument:

- `True`: a bar when stderr is a terminal; otherwise one line per stage (`reflector solve: 3/13 ...`), which reads
  well in a log file or a batch job's output, where a bar's carriage returns would not.
- `None`: the bar on a terminal, nothing otherwise (for work that is usually quick, e.g. a sweep's chunks).
- `False`: nothing (`--quiet` on the command line).
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from tqdm.auto import tqdm


class Progress:
    """Stages of a long computation, reported on `file` (stderr by default).

    Use as a context manager and call `advance(message)` after each stage:

    ```python
    with Progress(3, "solve", progress=True) as bar:
        bar.advance("fit done")
    ```

    Args:
        total: the number of stages.
        desc: what is running, the prefix of the bar or of each line.
        progress: `True`, `None` or `False`, as in the module's docstring.
        unit: the name of one stage in the bar.
        file: where to write (default `sys.stderr`, looked up when the helper is made).
    """

    def __init__(self, total: int, desc: str, progress: bool | None = True, *, unit: str = "stage",
                 file: IO[str] | None = None) -> None:  # fmt: skip
        if progress not in (True, False, None):
            raise TypeError(f"progress must be True, False or None; got {progress!r}")
        self.total, self.desc, self.done = int(total), desc, 0
        self.file = sys.stderr if file is None else file
        self._start = time.perf_counter()
        on_terminal = bool(getattr(self.file, "isatty", lambda: False)())
        self._bar: Any = None
        if progress is not False and on_terminal:
            self._bar = tqdm(total=self.total, desc=desc, unit=unit, file=self.file, dynamic_ncols=True)
        self._lines = progress is True and not on_terminal

    def advance(self, message: str = "", n: int = 1) -> None:
        """Mark `n` more stages done, with a short note on the last one (e.g. an intermediate result)."""
        self.done += n
        if self._bar is not None:
            self._bar.set_postfix_str(message, refresh=False)
            self._bar.update(n)
        elif self._lines:
            elapsed = time.perf_counter() - self._start
            line = f"{self.desc}: {self.done}/{self.total} [{elapsed:.0f} s] {message}".rstrip()
            print(line, file=self.file, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
