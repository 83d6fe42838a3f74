"""The battery's machinery: a case, its outcome classes, the command-line runner and shared objects."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

OUTCOMES = ("refused-named", "correct", "silent-wrong", "obscure-error", "traceback", "hang", "data-loss")
GOOD = {"refused-named", "correct"}
CLI_TIMEOUT = 120.0
LIB_TIMEOUT = 120.0
ROOT = Path(__file__).resolve().parents[2]

#: Exception types a user may be shown for bad input; any other type escaping is an internal failure.
USER_ERRORS: tuple[type[BaseException], ...] = (ValueError, TypeError, LookupError, OSError)


class Hang(Exception):
    """Raised by the alarm when a library case runs past its limit."""


class CliFailed(Exception):
    """A command that exited non-zero: its exit code and stderr."""

    def __init__(self, rc: int, stderr: str, stdout: str):
        self.rc, self.stderr, self.stdout = rc, stderr, stdout
        lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
        errors = [ln for ln in lines if ln.startswith("error:")]
        super().__init__(errors[0] if errors else (lines[-1] if lines else f"exit code {rc}, no message"))


class CliHang(Exception):
    pass


@dataclass
class Case:
    id: str
    cls: str
    fn: Callable[[Context], Any]
    match: str | None = None  # regex the refusal message must match
    exc: tuple[type[BaseException], ...] = USER_ERRORS
    check: Callable[[Any], tuple[bool, str]] | None = None  # for a call that may return
    cli: bool = False


@dataclass
class Context:
    tmp: Path
    guarded: dict[Path, str | None] = field(default_factory=dict)

    def guard(self, *paths: Path) -> None:
        """Files that must be unchanged after the case (a hash of each, `None` for a folder's listing)."""
        for p in paths:
            self.guarded[p] = _digest(p)

    def lost(self) -> list[str]:
        return [str(p) for p, h in self.guarded.items() if _digest(p) != h]


def _digest(p: Path) -> str | None:
    if p.is_dir():
        return "dir:" + ",".join(sorted(f"{q.name}:{_digest(q)}" for q in p.iterdir()))
    if p.is_file():
        return hashlib.sha256(p.read_bytes()).hexdigest()
    return None


CASES: list[Case] = []


def case(id: str, cls: str, match: str | None = None, *, exc=USER_ERRORS, check=None, cli: bool = False):
    def register(fn):
        CASES.append(Case(id, cls, fn, match, exc if isinstance(exc, tuple) else (exc,), check, cli))
        return fn

    return register


def cli(ctx: Context, *args: str, timeout: float = CLI_TIMEOUT) -> str:
    """Run `difflab ARGS` in the case's folder; return stdout, or raise `CliFailed` / `CliHang`."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    try:
        res = subprocess.run(
            [sys.executable, "-m", "difflab.cli", *args], cwd=ctx.tmp, capture_output=True, text=True,
            timeout=timeout, env=env,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise CliHang(f"no answer after {timeout:.0f} s") from None
    if res.returncode != 0:
        raise CliFailed(res.returncode, res.stderr, res.stdout)
    return res.stdout


def classify(c: Case, ctx: Context) -> tuple[str, str]:
    """Run one case and return (outcome, first line of the message or of the result)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(LIB_TIMEOUT) if not c.cli else int(3 * CLI_TIMEOUT))
    try:
        result = c.fn(ctx)
    except (Hang, CliHang) as err:
        return "hang", str(err)
    except CliFailed as err:
        msg = str(err)
        if "Traceback (most recent call last)" in err.stderr:
            return "traceback", _first(err.stderr.strip().splitlines()[-1])
        if err.rc == 2 and msg.startswith("error:") and c.match and re.search(c.match, msg, re.S):
            return _lost(ctx) or "refused-named", _first(msg)
        return _lost(ctx) or "obscure-error", f"[rc {err.rc}] " + _first(msg)
    except Exception as err:  # classified below, not hidden
        msg = f"{type(err).__name__}: {err}"
        if not isinstance(err, c.exc):
            tb = traceback.extract_tb(err.__traceback__)
            where = f" (at {Path(tb[-1].filename).name}:{tb[-1].lineno})" if tb else ""
            return _lost(ctx) or "traceback", _first(msg) + where
        if c.match and re.search(c.match, str(err), re.S):
            return _lost(ctx) or "refused-named", _first(msg)
        return _lost(ctx) or "obscure-error", _first(msg)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    if c.check is None:
        return _lost(ctx) or "silent-wrong", "returned without refusing: " + _first(repr(result))
    ok, what = c.check(result)
    return _lost(ctx) or ("correct" if ok else "silent-wrong"), _first(what)


def _lost(ctx: Context) -> str | None:
    return "data-loss" if ctx.lost() else None


def _alarm(signum, frame):
    raise Hang(f"no answer after {LIB_TIMEOUT:.0f} s")


def _first(text: str, width: int = 150) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 3] + "..."


# ----------------------------------------------------------------------------------------------------------------
# Shared objects (built once, reused by the cases so that each compiles at most once)

_cache: dict[str, Any] = {}


def once(name: str, make: Callable[[], Any]) -> Any:
    if name not in _cache:
        _cache[name] = make()
    return _cache[name]


def hh():
    from difflab.neuron import HodgkinHuxley

    return once("hh", HodgkinHuxley.squid_axon)


def ts_hh():
    import jax.numpy as jnp

    return jnp.arange(0.0, 5.0, 0.025)


def step(amplitude=10.0):
    import difflab

    return difflab.Step(amplitude, 1.0, 3.0)


def relax_class():
    """dy/dt = -k y + b with y(0) = y0 (units mV, ms): three parameters, exact solution known."""

    def make():
        import jax.numpy as jnp

        import difflab

        class Relax(difflab.AbstractModel):
            k: jnp.ndarray
            b: jnp.ndarray
            y0: jnp.ndarray
            states = (difflab.StateInfo("y", "mV", "relaxing variable"),)
            time_units = "ms"
            parameter_units: ClassVar[dict[str, str]] = {"k": "1/ms", "b": "mV/ms", "y0": "mV"}

            def __init__(self, k=0.5, b=0.0, y0=2.0):
                self.k = jnp.asarray(k, dtype=float)
                self.b = jnp.asarray(b, dtype=float)
                self.y0 = jnp.asarray(y0, dtype=float)

            def vector_field(self, t, y, args):
                u = 0.0 if args is None else args(t)
                return {"y": -self.k * y["y"] + self.b + u}

            def initial_state(self):
                return {"y": self.y0}

        return Relax

    return once("Relax", make)


def relax(**kw):
    return relax_class()(**kw)


def relax_data(n=41, t1=8.0, k=0.5, y0=2.0, noise=0.02):
    ts = np.linspace(0.0, t1, n)
    y = y0 * np.exp(-k * ts) + noise * np.random.default_rng(3).standard_normal(n)
    return {"time": ts, "y": y}


RUN_KEYS = ("strategy", "refine", "checkpoint", "checkpoint_every", "resume", "progress", "callback", "client")


def fit_relax(**kw):
    import warnings

    import difflab

    args = dict(params={"k": difflab.Positive(), "y0": difflab.Bounded(0.1, 10.0)}, steps=3)
    args |= kw
    model = args.pop("model", relax(k=1.0, y0=1.0))
    protocol = args.pop("protocol", None)
    data = args.pop("data", relax_data())
    # the fields of RunOptions and Comparison may be given as keywords here, as calibrate took them before 0.3
    run = {"progress": False, "refine": False} | {k: args.pop(k) for k in RUN_KEYS if k in args}
    compare = {k: args.pop(k) for k in ("variables", "observe", "ts", "joint") if k in args}
    args.update(run=difflab.RunOptions(**run), compare=difflab.Comparison(**compare))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return difflab.calibrate(model, protocol, data, **args)


def units_data(v_units, t_units, v_scale, t_scale):
    """The relaxation data as a Dataset whose `y` and time carry the given units (scaled from mV and ms)."""
    import xarray as xr

    d = relax_data(noise=0.0)
    y = xr.DataArray(d["y"] * v_scale, dims="time", coords={"time": d["time"] * t_scale}, attrs={"units": v_units})
    y["time"].attrs["units"] = t_units
    return xr.Dataset({"y": y})


def xlsx_book(path, rows):
    """A contest-style result workbook of (node, extension) rows."""
    import openpyxl

    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "促动器顶端伸缩量"
    ws.append(["对应主索节点编号", "伸缩量（米）"])
    for row in rows:
        ws.append(list(row))
    book.save(path)
    return path


def geometry():
    from difflab import reflector as rf

    return once("geometry", rf.Geometry.fast)


def q2():
    from difflab import reflector as rf

    return once("q2", lambda: rf.Pointing.from_angles(geometry(), 36.795, 78.169))


def finite(x) -> bool:
    return bool(np.all(np.isfinite(np.asarray(x))))
