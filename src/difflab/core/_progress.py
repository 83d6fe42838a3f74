"""Progress of long work: a tqdm bar on a terminal, one plain line per stage in a log, or nothing.

Every long computation in difflab reports through this one helper, with one meaning for its `progress` argument:

- `True`: a bar when stderr is a terminal; otherwise one line per stage (`reflector solve: 3/13 ...`), which reads
  well in a log file or a batch job's output, where a bar's carriage returns would not.
- `None`: the bar on a terminal, nothing otherwise (for work that is usually quick, e.g. a sweep's chunks).
- `False`: nothing (`--quiet` on the command line).
"""

from __future__ import annotations

import io
import os
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
        initial: stages already done (a resumed fit starts its count there).
        every: the least time (s) between two plain lines; the last stage always gets its line. For many short
            stages (the steps of a fit) a log then reads one line every few seconds, not one per stage.
    """

    def __init__(self, total: int, desc: str, progress: bool | None = True, *, unit: str = "stage",
                 file: IO[str] | None = None, initial: int = 0, every: float = 0.0) -> None:  # fmt: skip
        if progress not in (True, False, None):
            raise TypeError(f"progress must be True, False or None; got {progress!r}")
        self.total, self.desc, self.done, self.every = int(total), desc, int(initial), float(every)
        self.file = sys.stderr if file is None else file
        self._start = self._last_line = time.perf_counter()
        on_terminal = bool(getattr(self.file, "isatty", lambda: False)())
        self._bar: Any = None
        if progress is not False and on_terminal:
            # a terminal that reports no size (a container's pseudo-terminal: 0 × 0) would hide the bar, as
            # outside a screen of 0 rows: it is drawn 80 columns wide on 24 rows
            width = {"dynamic_ncols": True} if _columns(self.file) > 0 else {"ncols": 80, "nrows": 24}
            self._bar = tqdm(total=self.total, initial=self.done, desc=desc, unit=unit, file=self.file, **width)
        self._lines = progress is True and not on_terminal
        self._written, self._message = self.done, ""

    @property
    def shown(self) -> bool:
        """Whether anything is written (a bar or lines)."""
        return self._bar is not None or self._lines

    def advance(self, message: str = "", n: int = 1) -> None:
        """Mark `n` more stages done, with a short note on the last one (e.g. an intermediate result)."""
        self.done += n
        if self._bar is not None:
            self._bar.set_postfix_str(message, refresh=False)
            self._bar.update(n)
        elif self._lines:
            now = time.perf_counter()
            self._message = message
            if now - self._last_line < self.every and self.done < self.total:
                return
            self._line(now)

    def _line(self, now: float) -> None:
        self._last_line, self._written = now, self.done
        line = f"{self.desc}: {self.done}/{self.total} [{now - self._start:.0f} s] {self._message}".rstrip()
        print(line, file=self.file, flush=True)

    def note(self, message: str) -> None:
        """A line of its own (e.g. where to watch the work), written only when progress is shown."""
        if self._bar is not None:
            self._bar.write(message, file=self.file)
        elif self._lines:
            print(message, file=self.file, flush=True)

    def echo(self, message: str, file: IO[str] | None = None) -> None:
        """A result line on `file` (stdout by default), always written.

        On a terminal the bar is cleared around it, so that the line stays whole where the bar shares the screen.
        """
        out = sys.stdout if file is None else file
        if self._bar is not None:
            tqdm.write(message, file=out)
        else:
            print(message, file=out, flush=True)

    def close(self) -> None:
        """End the bar; in a log, the line of the last stage if `every` held it back (work that ended early)."""
        if self._bar is not None:
            self._bar.close()
        elif self._lines and self._written != self.done:
            self._line(time.perf_counter())

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _columns(file: IO[str]) -> int:
    """The width of the terminal behind `file` (0 when it reports none or has no descriptor)."""
    try:
        return os.get_terminal_size(file.fileno()).columns
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return 0
