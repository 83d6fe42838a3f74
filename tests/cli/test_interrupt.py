"""Ctrl-C at the command line ends the program with status 130, even when the interrupted code hangs."""

import os
import signal
import subprocess
import sys
import textwrap
import time

from difflab.cli import _interrupt

# A program that swallows the KeyboardInterrupt and then blocks forever: a stand-in for an interrupt that lands
# in a library holding a lock (the case the watchdog is for).
_HANGS_AFTER_CTRL_C = textwrap.dedent(
    """
    import os, signal, threading
    from difflab.cli import _interrupt
    _interrupt.GRACE_S = 1.0
    _interrupt.install()
    try:
        os.kill(os.getpid(), signal.SIGINT)
        threading.Event().wait(0.5)
    except KeyboardInterrupt:
        pass
    threading.Event().wait()  # never returns by itself
    """
)


def test_watchdog_ends_a_program_that_hangs_after_ctrl_c():
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", _HANGS_AFTER_CTRL_C], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130, done.stderr
    assert "difflab: interrupted" in done.stderr
    assert time.monotonic() - start < 30  # 1 s of grace after the interrupt, plus the interpreter's start


def test_second_ctrl_c_ends_at_once():
    program = textwrap.dedent(
        """
        import os, signal, threading
        from difflab.cli import _interrupt
        _interrupt.GRACE_S = 600.0
        _interrupt.install()
        for _ in range(2):
            try:
                os.kill(os.getpid(), signal.SIGINT)
                threading.Event().wait(0.5)
            except KeyboardInterrupt:
                pass
        threading.Event().wait()
        """
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130, done.stderr


def test_main_thread_keeps_a_keyboard_interrupt(monkeypatch):
    """The first Ctrl-C still raises KeyboardInterrupt in the program, so checkpoints get written."""
    monkeypatch.setattr(_interrupt, "GRACE_S", 600.0)
    previous = signal.getsignal(signal.SIGINT)
    _interrupt.install()
    try:
        raised = False
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)
        except KeyboardInterrupt:
            raised = True
        assert raised
    finally:
        signal.signal(signal.SIGINT, previous)
        _interrupt.disarm()
