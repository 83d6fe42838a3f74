"""Ctrl-C at the command line: the program ends within seconds with exit status 130, whatever it was doing.

Python turns SIGINT into a KeyboardInterrupt in the main thread, at the next bytecode. When that lands inside JAX
or XLA (an import, a compilation, a lock held around a computation that XLA's own threads still run), the
interpreter could hang or crash afterwards, while it tore itself down (4 of 26 tries of `difflab fit`). The
command line therefore:

- keeps the KeyboardInterrupt, so that `calibrate` and the netCDF writers still stop where it is safe and write
  their checkpoint (their writes are atomic: a file is either the old one or the new one);
- arms a watchdog on the first Ctrl-C that ends the process after `GRACE_S` seconds if it has not ended by then;
- ends the process at once, without the interpreter's teardown, once the command has unwound (`exit_now`), and
  at once on a second Ctrl-C.
"""

import os
import signal
import sys
import threading

__all__ = ["GRACE_S", "disarm", "exit_now", "install"]

GRACE_S = 10.0
"""Seconds the program has, after the first Ctrl-C, to write what it writes and end by itself."""

_EXIT_STATUS = 130  # 128 + SIGINT, as shells report an interrupted program
_watchdog: threading.Timer | None = None


def install() -> None:
    """Take SIGINT in the main thread: a KeyboardInterrupt as before, plus the watchdog."""
    signal.signal(signal.SIGINT, _handle)


def _handle(signum, frame):
    global _watchdog
    if _watchdog is not None:
        exit_now()
    _watchdog = threading.Timer(GRACE_S, exit_now)
    _watchdog.daemon = True
    _watchdog.start()
    raise KeyboardInterrupt


def disarm() -> None:
    """Stop the watchdog of a first Ctrl-C (for a program that handled the interrupt and goes on)."""
    global _watchdog
    if _watchdog is not None:
        _watchdog.cancel()
        _watchdog = None


def exit_now() -> None:
    """End the process with status 130 after flushing stdout and stderr, skipping the interpreter's teardown."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed or broken stream must not keep the process alive
            pass
    try:
        os.write(2, b"difflab: interrupted\n")
    except OSError:
        pass
    os._exit(_EXIT_STATUS)
