"""`StopRequest`: Ctrl-C taken between two steps of a long loop, so that the loop can write its checkpoint."""

from __future__ import annotations

import signal
import threading
from typing import Any


class StopRequest:
    """Ctrl-C during a loop of compiled steps, taken between two steps (main thread only).

    The loops are a fit's optimiser steps and a sampler's blocks of draws.

    A KeyboardInterrupt raised inside a step, while XLA still runs the step's computations on its own threads,
    crashed or hung the process at exit (2 of 11 tries with `difflab fit`). The first Ctrl-C therefore only asks
    the loop to stop (`requested`): it ends after the step in progress, writes its checkpoint and raises
    KeyboardInterrupt. A second Ctrl-C raises at once.

    ```python
    with StopRequest() as stop:
        while not stop.requested:
            ...  # one step
    ```
    """

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
