"""A battery of bad inputs, interruptions and corruptions run against difflab and the `difflab` command.

Every case is a small function: a library call (in this process) or a command-line call (a subprocess in a fresh
temporary folder, with a timeout), together with what must happen: either a refusal, an exception of a stated type
whose message matches a regular expression naming the argument or config field, or a result that a check accepts
(e.g. NaN standard errors for an underdetermined fit, `succeeded` false for the bad member only). Cases that
touch files also guard the files that must survive (a finished chunk, a checkpoint, a folder given as output).

Run it from the repository root, with difflab installed:

    python scripts/bad_input_battery.py            # every case (a few minutes on two cores)
    python scripts/bad_input_battery.py -k sweep   # only the cases whose id contains "sweep"
    python scripts/bad_input_battery.py --no-cli   # library cases only

It prints one row per case (id, class of bad input, outcome, first line of the message) and the totals, and exits
with status 1 if any case is not `refused-named` or `correct`.

Outcomes:

- `refused-named`: an exception of the expected type (or, for the command line, exit code 2 with one
  `error: ...` line on stderr) whose message names the argument or field.
- `correct`: the call returned, and its result is right (the check of the case accepts it).
- `silent-wrong`: the call returned a result that is wrong, NaN or unphysical, or the command exited 0 where it
  had to refuse.
- `obscure-error`: refused, but the message does not name the argument or field (or the exit code is not 2).
- `traceback`: an internal exception escaped (an exception type the case does not expect, or a Python traceback
  printed by the command).
- `hang`: the call ran past its time limit.
- `data-loss`: a file that had to survive was changed or removed.

Classes of bad input (the second column):

1 NaN/inf in quantum operators; 2 sweep rerun into a folder of another study; 4 calibration resume of a changed
problem; 5 physical checks (also on traced values); 6 NaN initial values or starts; 8 standard errors of an
underdetermined fit; 9 bad initial states and runaway solutions; 10 unphysical quantum states, tolerances and
units; 11 recorded data in other units; 12 unbounded fixed-step runs; 13 command-line files and paths;
14 unwritable checkpoints; 15 config typos; 16 reflector inputs; 17 corrupted checkpoints and chunks;
18 member index outside a batch; 19 obscure messages (steps, shapes, devices, chunk sizes, quotes);
21 validation case kinds; 7 / 20 interruption during writes and file modes (covered by tests/core/test_io.py).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
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
ROOT = Path(__file__).resolve().parents[1]

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


def fit_relax(**kw):
    import warnings

    import difflab

    args = dict(
        params={"k": difflab.Positive(), "y0": difflab.Bounded(0.1, 10.0)}, steps=3, progress=False, refine=False
    )
    args |= kw
    model = args.pop("model", relax(k=1.0, y0=1.0))
    protocol = args.pop("protocol", None)
    data = args.pop("data", relax_data())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return difflab.calibrate(model, protocol, data, **args)


def geometry():
    from difflab import reflector as rf

    return once("geometry", rf.Geometry.fast)


def q2():
    from difflab import reflector as rf

    return once("q2", lambda: rf.Pointing.from_angles(geometry(), 36.795, 78.169))


def finite(x) -> bool:
    return bool(np.all(np.isfinite(np.asarray(x))))


# ----------------------------------------------------------------------------------------------------------------
# 1, 10: quantum


def _q():
    from difflab import quantum as q

    return q


@case("q.sesolve-nan-H", "1", r"\bH\b.*(nan|NaN|finite)")
def _(ctx):
    q = _q()
    return q.sesolve(np.array([[0, np.nan], [np.nan, 0]]), q.basis(2, 0), np.linspace(0, 1, 5))


@case("q.sesolve-inf-H", "1", r"\bH\b.*(inf|finite)")
def _(ctx):
    q = _q()
    return q.sesolve(np.array([[np.inf, 0], [0, 0]]), q.basis(2, 0), np.linspace(0, 1, 5))


@case("q.mesolve-nan-jump", "1", r"jump_ops\[0\].*(nan|NaN|finite)")
def _(ctx):
    q = _q()
    with np.errstate(invalid="ignore"):
        c = np.sqrt(-0.1) * np.asarray(q.dense(q.sigmam()) if hasattr(q, "dense") else q.sigmam())
    return q.mesolve(q.sigmaz(), q.fock_dm(2, 0), np.linspace(0, 1, 5), jump_ops=[c])


@case("q.mesolve-nan-drive-op", "1", r"Drive.operator. must be finite")
def _(ctx):
    q = _q()
    import difflab

    op = np.array([[0, np.nan], [np.nan, 0]])
    return q.mesolve(q.sigmaz(), q.fock_dm(2, 0), np.linspace(0, 1, 5), drives=[q.Drive(difflab.Constant(1.0), op)])


@case("q.mesolve-non-psd-rho0", "10", r"rho0.*(eigenvalue|positive)")
def _(ctx):
    q = _q()
    return q.mesolve(q.sigmaz(), np.array([[1.2, 0], [0, -0.2]]), np.linspace(0, 1, 5))


@case("q.mesolve-rho0-trace", "10", r"rho0.*trace")
def _(ctx):
    q = _q()
    return q.mesolve(q.sigmaz(), np.array([[0.5, 0], [0, 0.2]]), np.linspace(0, 1, 5))


@case("q.sesolve-nan-psi0", "10", r"psi0.*(nan|NaN|finite|norm)")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), np.array([np.nan, 1.0]), np.linspace(0, 1, 5))


@case("q.sesolve-rtol-negative", "10", r"rtol must be a finite number >= 0; got -1")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), rtol=-1.0)


@case("q.sesolve-atol-nan", "10", r"atol must be a finite number >= 0; got nan")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), atol=float("nan"))


@case("q.sesolve-time-units-parsecs", "10", r"time_units.*parsecs")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), time_units="parsecs")


@case("q.sesolve-nan-ts", "10", r"\bts\b")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.array([0.0, np.nan, 1.0]))


@case("q.rabi-t2-above-2t1", "10", r"T2 must be <= 2 T1")
def _(ctx):
    return _q().RabiQubit(omega=1.0, delta=0.0, t1=10.0, t2=25.0)


@case("q.rabi-t1-zero", "10", r"T1 must be > 0")
def _(ctx):
    return _q().RabiQubit(omega=1.0, delta=0.0, t1=0.0, t2=1.0)


@case("q.rabi-omega-nan", "10", r"(?i)omega must be finite")
def _(ctx):
    return _q().RabiQubit(omega=float("nan"), delta=0.0, t1=10.0, t2=10.0)


# ----------------------------------------------------------------------------------------------------------------
# 5, 9, 12, 18, 19: simulate, physical checks, ensembles


@case("sim.dt0-zero", "19", r"dt0")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), ts_hh(), dt0=0.0)


@case("sim.dt0-nan", "19", r"dt0")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), ts_hh(), dt0=float("nan"))


@case("sim.y0-nan", "9", r"y0\['V'\]")
def _(ctx):
    import difflab

    y0 = dict(hh().initial_state(), V=np.nan)
    return difflab.simulate(hh(), step(), ts_hh(), y0=y0)


@case("sim.y0-wrong-shape", "19", r"y0 entries must share one leading shape .*y0\['V'\] \(3,\)")
def _(ctx):
    import difflab

    y0 = dict(hh().initial_state(), V=np.zeros(3))
    return difflab.simulate(hh(), step(), ts_hh(), y0=y0)


@case("sim.y0-missing-state", "19", r"y0.*'n'|'n'.*y0")
def _(ctx):
    import difflab

    y0 = {k: v for k, v in hh().initial_state().items() if k != "n"}
    return difflab.simulate(hh(), step(), ts_hh(), y0=y0)


@case("sim.y0-gate-above-1", "9", r"y0\['m'\]|\bm\b.*\[0, 1\]")
def _(ctx):
    import difflab

    y0 = dict(hh().initial_state(), m=1.5)
    return difflab.simulate(hh(), step(), ts_hh(), y0=y0)


@case("sim.huge-current", "9", r"\bV\b.*(non-finite|nan|NaN|inf)")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(1e12), ts_hh())


@case(
    "sim.huge-current-no-throw", "9",
    check=lambda tr: (not bool(np.asarray(tr.succeeded)), f"succeeded = {np.asarray(tr.succeeded)}"),
)  # fmt: skip
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(1e12), ts_hh(), throw=False)


@case("sim.protocol-float", "19", r"protocol must be a difflab protocol .*Constant")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), 3.0, ts_hh())


@case("sim.ts-decreasing", "19", r"\bts\b")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), np.array([0.0, 2.0, 1.0]))


@case("sim.ts-empty", "19", r"\bts\b")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), np.array([]))


@case("sim.t-end-1e9-fixed-step", "12", r"dt0.*(steps|max_steps)")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), np.array([0.0, 1e9]))


@case("hh.celsius-200", "12", r"default step of HodgkinHuxley.*comes from celsius = 200.0")
def _(ctx):
    import difflab

    return difflab.simulate(hh().replace(celsius=200.0), step(), ts_hh())


@case("hh.celsius-1000", "12", r"default step of HodgkinHuxley.*comes from celsius = 1000.0")
def _(ctx):
    import difflab

    return difflab.simulate(hh().replace(celsius=1000.0), step(), ts_hh())


@case("hh.C-zero", "5", r"\bC must be > 0")
def _(ctx):
    return hh().replace(C=0.0)


@case("hh.gNa-nan", "5", r"gNa must be finite")
def _(ctx):
    return hh().replace(gNa=float("nan"))


@case("hh.unknown-parameter", "19", r"gNaa|unknown")
def _(ctx):
    return hh().replace(gNaa=1.0)


@case("ens.make-batch-gK-negative", "5", r"gK must be >= 0.*member 1")
def _(ctx):
    import difflab

    return difflab.run_ensemble(difflab.make_batch(hh(), gK=[36.0, -36.0]), step(), ts_hh())


@case("ens.make-batch-gNa-nan", "5", r"gNa must be finite.*member 1")
def _(ctx):
    import difflab

    return difflab.make_batch(hh(), gNa=[120.0, np.nan])


@case("ens.make-batch-C-zero-and-negative", "5", r"C must be > 0.*member 1")
def _(ctx):
    import difflab

    return difflab.make_batch(hh(), C=[1.0, 0.0, -1.0])


@case("ens.make-batch-ragged", "19", r"lengths .*gNa.*gK")
def _(ctx):
    import difflab

    return difflab.make_batch(hh(), gNa=[120.0, 110.0], gK=[36.0, 30.0, 20.0])


@case("ens.make-batch-empty", "19", r"at least one member.*gK")
def _(ctx):
    import difflab

    return difflab.make_batch(hh(), gK=[])


def _traced_gk(gk):
    import equinox as eqx
    import jax

    import difflab

    def run(g):
        model = hh().replace(gK=g)
        return difflab.simulate(model, step(), ts_hh()).ys["V"][-1]

    fn = once("jit_gk", lambda: eqx.filter_jit(run))
    return jax.block_until_ready(fn(jax.numpy.asarray(gk)))


@case("ens.traced-gK-negative-jit", "5", r"gK must be >= 0", exc=(*USER_ERRORS, RuntimeError))
def _(ctx):
    return _traced_gk(-36.0)


@case(
    "ens.traced-batch-bad-member-no-throw", "5",
    check=lambda ok: (list(ok) == [True, False], f"succeeded = {list(ok)}"),
)  # fmt: skip
def _(ctx):
    import equinox as eqx
    import jax.numpy as jnp

    import difflab

    batch = difflab.make_batch(hh(), gK=[36.0, 30.0])  # then a member made unphysical inside a traced update
    batch = eqx.tree_at(lambda m: m.channels["k"].gbar, batch, jnp.array([36.0, -36.0]))
    traj = difflab.run_ensemble(batch, step(), ts_hh(), throw=False)
    return np.asarray(traj.succeeded).tolist()


@case("ens.member-out-of-range", "18", r"\bi\b.*(5|range|members)|member.*5")
def _(ctx):
    import difflab

    return difflab.member(difflab.make_batch(hh(), gK=[36.0, 30.0]), 5)


@case("ens.member-float-index", "18", r"\bi\b|index|integer")
def _(ctx):
    import difflab

    return difflab.member(difflab.make_batch(hh(), gK=[36.0, 30.0]), 1.5)


@case("ens.devices-empty", "19", r"devices must name at least one")
def _(ctx):
    import difflab

    return difflab.run_ensemble(difflab.make_batch(relax(), k=[0.1, 0.2]), None, np.linspace(0, 1, 5), devices=[])


@case("ens.chunk-size-negative", "19", r"chunk_size must be .*-1")
def _(ctx):
    import difflab

    b = difflab.make_batch(relax(), k=[0.1, 0.2])
    return difflab.run_ensemble(b, None, np.linspace(0, 1, 5), strategy="chunked", chunk_size=-1)


@case("ens.strategy-unknown", "19", r"strategy.*bogus")
def _(ctx):
    import difflab

    return difflab.run_ensemble(difflab.make_batch(relax(), k=[0.1, 0.2]), None, np.linspace(0, 1, 5), strategy="bogus")


# ----------------------------------------------------------------------------------------------------------------
# 2/3, 17, 19: sweeps

TS_SWEEP = np.linspace(0.0, 2.0, 5)


def _final(traj):
    return traj.ys["y"][-1]


def _sweep(ctx, **change):
    import difflab

    args = dict(model=relax(), protocol=None, ts=TS_SWEEP, design=difflab.Grid(k=[0.1, 0.2, 0.3, 0.4]),
                observables={"final": (_final, "mV")}, chunk_size=2, directory=ctx.tmp / "study",
                progress=False)  # fmt: skip
    args |= change
    return difflab.sweep(args.pop("model"), args.pop("protocol"), args.pop("ts"), args.pop("design"),
                         args.pop("observables"), **args)  # fmt: skip


def _sweep_rerun(ctx, **change):
    _sweep(ctx)
    ctx.guard(ctx.tmp / "study")
    return _sweep(ctx, **change)


ANOTHER_STUDY = r"belongs to another study"


@case("sweep.rerun-protocol", "2", ANOTHER_STUDY)
def _(ctx):
    import difflab

    return _sweep_rerun(ctx, protocol=difflab.Constant(0.5))


@case("sweep.rerun-time-grid", "2", ANOTHER_STUDY)
def _(ctx):
    return _sweep_rerun(ctx, ts=TS_SWEEP * 2)


@case("sweep.rerun-base-model", "2", ANOTHER_STUDY)
def _(ctx):
    return _sweep_rerun(ctx, model=relax(y0=3.0))


@case("sweep.rerun-solver", "2", ANOTHER_STUDY)
def _(ctx):
    import diffrax

    return _sweep_rerun(ctx, solver=diffrax.Euler(), stepsize_controller=diffrax.ConstantStepSize(), dt0=0.01)


@case("sweep.rerun-observable", "2", ANOTHER_STUDY)
def _(ctx):
    return _sweep_rerun(ctx, observables={"final": (lambda traj: traj.ys["y"][0], "mV")})


@case("sweep.rerun-chunk-size", "2", ANOTHER_STUDY)
def _(ctx):
    return _sweep_rerun(ctx, chunk_size=3)


@case("sweep.corrupt-chunk-value", "17", r"chunk_00001.nc.*corrupt")
def _(ctx):
    import netCDF4

    _sweep(ctx)
    with netCDF4.Dataset(ctx.tmp / "study" / "chunk_00001.nc", "r+") as nc:
        nc["final"][0] = nc["final"][0] + 0.25
    ctx.guard(ctx.tmp / "study" / "chunk_00000.nc")
    return _sweep(ctx)


@case("sweep.truncated-chunk", "13", r"chunk_00001.nc.* cannot be read .*delete it")
def _(ctx):
    _sweep(ctx)
    path = ctx.tmp / "study" / "chunk_00001.nc"
    path.write_bytes(path.read_bytes()[:200])
    ctx.guard(ctx.tmp / "study" / "chunk_00000.nc")
    return _sweep(ctx)


@case("sweep.chunk-size-negative", "19", r"chunk_size must be .*-1")
def _(ctx):
    return _sweep(ctx, chunk_size=-1)


@case("sweep.chunk-size-zero", "19", r"chunk_size must be .*got 0")
def _(ctx):
    return _sweep(ctx, chunk_size=0)


@case("sweep.directory-is-a-file", "13", r"directory .*study' is a file")
def _(ctx):
    (ctx.tmp / "study").write_text("my notes")
    ctx.guard(ctx.tmp / "study")
    return _sweep(ctx)


@case("sweep.grid-nan-value", "5", r"\bk\b.*finite|finite.*\bk\b|nan")
def _(ctx):
    import difflab

    return _sweep(ctx, design=difflab.Grid(k=[0.1, np.nan]), directory=None)


@case("sweep.hh-gK-negative", "5", r"design point 1 \(gK=-18.0\): gK must be >= 0")
def _(ctx):
    import difflab

    return difflab.sweep(hh(), step(), ts_hh(), difflab.Grid(gK=[36.0, -18.0]), {"v": lambda tr: tr.ys["V"][-1]})


# ----------------------------------------------------------------------------------------------------------------
# 4, 6, 8, 11, 14, 17: calibration


def _resume_base():
    import difflab

    return dict(params={"k": difflab.Bounded(0.1, 10.0)}, model=relax(k=1.0, y0=2.0), optimizer="adam")


def _fit_then_resume(ctx, **change):
    path = ctx.tmp / "fit.ckpt.nc"
    base = _resume_base()
    fit_relax(**base, steps=3, checkpoint=path)
    ctx.guard(path)
    return fit_relax(**(base | change), steps=6, resume=path)


CHANGED_FIT = r"different fit: (problem_fingerprint|loss|optimizer|parameters)"


@case("fit.resume-changed-protocol", "4", CHANGED_FIT)
def _(ctx):
    import difflab

    return _fit_then_resume(ctx, protocol=difflab.Constant(0.1))


@case("fit.resume-changed-fixed-parameter", "4", CHANGED_FIT)
def _(ctx):
    return _fit_then_resume(ctx, model=relax(k=1.0, y0=2.5))


@case("fit.resume-changed-bounds", "4", CHANGED_FIT)
def _(ctx):
    import difflab

    return _fit_then_resume(ctx, params={"k": difflab.Bounded(0.1, 20.0)})


@case("fit.resume-changed-simulate-options", "4", CHANGED_FIT)
def _(ctx):
    import diffrax

    opts = {"stepsize_controller": diffrax.PIDController(rtol=1e-3, atol=1e-6)}
    return _fit_then_resume(ctx, simulate_options=opts)


@case("fit.resume-changed-loss", "4", CHANGED_FIT)
def _(ctx):
    import jax.numpy as jnp

    def l1(pred, data, mask):
        return jnp.sum(jnp.where(mask, jnp.abs(pred["y"] - data["y"]), 0.0))

    return _fit_then_resume(ctx, loss=l1)


@case("fit.resume-corrupt-checkpoint", "17", r"checkpoint.*is corrupt")
def _(ctx):
    import netCDF4

    path = ctx.tmp / "fit.ckpt.nc"
    fit_relax(**_resume_base(), steps=3, checkpoint=path)  # the problem of the cases above: compiled once
    with netCDF4.Dataset(path, "r+") as nc:
        nc["theta__k"][0] = nc["theta__k"][0] + 0.5
    ctx.guard(path)
    return fit_relax(**_resume_base(), steps=6, resume=path)


@case("fit.resume-truncated-checkpoint", "17", r"fit.ckpt.nc.*(not a readable|corrupt)")
def _(ctx):
    path = ctx.tmp / "fit.ckpt.nc"
    fit_relax(**_resume_base(), steps=3, checkpoint=path)
    path.write_bytes(path.read_bytes()[:300])
    return fit_relax(**_resume_base(), steps=6, resume=path)


@case("fit.checkpoint-unwritable", "14", r"checkpoint.*cannot be written")
def _(ctx):
    (ctx.tmp / "a_file").write_text("not a folder")
    ctx.guard(ctx.tmp / "a_file")
    steps = []
    try:
        return fit_relax(checkpoint=ctx.tmp / "a_file" / "fit.nc", callback=lambda s, losses: steps.append(s))
    finally:
        if steps:
            raise AssertionError(f"{len(steps)} step(s) ran before the refusal")


@case("fit.checkpoint-overwrites-user-file", "14", r"never overwritten")
def _(ctx):
    (ctx.tmp / "mine.nc").write_text("user data")
    ctx.guard(ctx.tmp / "mine.nc")
    return fit_relax(checkpoint=ctx.tmp / "mine.nc")


@case("fit.nan-initial-value", "6", r"\bk\b.*(finite|nan|NaN)")
def _(ctx):
    return fit_relax(model=relax(k=float("nan"), y0=1.0))


@case("fit.nan-start", "6", r"starts.*\bk\b|\bk\b.*start")
def _(ctx):
    return fit_relax(starts={"k": [1.0, float("nan")], "y0": [1.0, 1.0]})


@case("fit.start-outside-bounds", "6", r"y0.*(bounds|outside|Bounded|\[0.1, 10)")
def _(ctx):
    return fit_relax(starts={"k": [1.0, 1.0], "y0": [1.0, 50.0]})


@case("fit.starts-ragged", "6", r"starts")
def _(ctx):
    return fit_relax(starts={"k": [1.0, 2.0], "y0": [1.0]})


@case("fit.bounds-reversed", "6", r"(lo|Bounded).*(<|hi)")
def _(ctx):
    import difflab

    return fit_relax(params={"k": difflab.Bounded(5.0, 1.0)})


@case("fit.bounds-nan", "6", r"(lo|Bounded|finite)")
def _(ctx):
    import difflab

    return fit_relax(params={"k": difflab.Bounded(float("nan"), 1.0)})


@case("fit.hh-start-C-zero", "5", r"\bC\b")
def _(ctx):
    import difflab

    data = {"time": np.asarray(ts_hh()), "V": np.zeros(len(ts_hh()))}
    return difflab.calibrate(hh(), step(), data, params={"C": difflab.Positive()}, starts={"C": [0.0]},
                             steps=1, progress=False)  # fmt: skip


@case("fit.data-all-nan", "6", r"\by\b.*(finite|NaN|no finite)")
def _(ctx):
    d = relax_data()
    return fit_relax(data={"time": d["time"], "y": np.full_like(d["y"], np.nan)})


@case("fit.data-unknown-variable", "19", r"'z'")
def _(ctx):
    d = relax_data()
    return fit_relax(data={"time": d["time"], "z": d["y"]})


@case("fit.data-times-outside-ts", "19", r"\bts\b")
def _(ctx):
    return fit_relax(ts=np.linspace(0.0, 4.0, 11))


@case(
    "fit.underdetermined-stderr-nan", "8",
    check=lambda se: (all(np.all(np.isnan(v)) for v in se.values()), f"stderr = {se}"),
)  # fmt: skip
def _(ctx):
    import difflab

    params = {"k": difflab.Positive(), "b": difflab.Identity(), "y0": difflab.Identity()}
    return fit_relax(params=params, data=relax_data(n=2, noise=0.0), optimizer="lm", steps=5).stderr


def _units_data(v_units, t_units, v_scale, t_scale):
    import xarray as xr

    d = relax_data(noise=0.0)
    y = xr.DataArray(d["y"] * v_scale, dims="time", coords={"time": d["time"] * t_scale}, attrs={"units": v_units})
    y["time"].attrs["units"] = t_units
    return xr.Dataset({"y": y})


@case("fit.data-volts-seconds", "11", check=lambda k: (abs(k - 0.5) < 1e-3, f"k = {k:.6g} 1/ms (truth 0.5)"))
def _(ctx):
    import difflab

    path = ctx.tmp / "rec.nc"
    difflab.write_netcdf(_units_data("V", "s", 1e-3, 1e-3), path)
    fit = fit_relax(data=difflab.read_netcdf(path), optimizer="lm", steps=20)
    return float(np.ravel(fit.best["k"])[0])


@case("fit.data-units-parsecs", "11", r"(units|parsecs)")
def _(ctx):
    return fit_relax(data=_units_data("parsecs", "ms", 1.0, 1.0))


@case("fit.data-time-units-hours", "11", r"data time is in 'h' but the model expects 'ms'")
def _(ctx):
    return fit_relax(data=_units_data("mV", "h", 1.0, 1 / 3.6e6))


@case("fit.data-microvolts", "11", check=lambda loss: (loss < 1e-12, f"loss at the truth = {loss:.3g} mV^2"))
def _(ctx):
    fit = fit_relax(model=relax(k=0.5, y0=2.0), data=_units_data("uV", "ms", 1e3, 1.0), steps=0)
    return float(np.min(fit.losses.values))


# ----------------------------------------------------------------------------------------------------------------
# 13: netCDF files


@case("io.read-netcdf-truncated", "13", r"rec.nc.*not a readable netCDF")
def _(ctx):
    import difflab

    path = ctx.tmp / "rec.nc"
    difflab.write_netcdf(_units_data("mV", "ms", 1.0, 1.0), path)
    path.write_bytes(path.read_bytes()[:300])
    return difflab.read_netcdf(path)


@case("io.read-netcdf-text", "13", r"rec.nc.*not a readable netCDF")
def _(ctx):
    import difflab

    (ctx.tmp / "rec.nc").write_text("time,V\n0,1\n")
    return difflab.read_netcdf(ctx.tmp / "rec.nc")


@case("io.interrupt-and-mode-tests-exist", "7/20", check=lambda found: (all(found.values()), str(found)))
def _(ctx):
    text = (ROOT / "tests" / "core" / "test_io.py").read_text()
    names = ("test_ctrl_c_during_a_write_finishes_the_file_first",
             "test_written_files_follow_the_umask_and_stale_temporaries_are_removed")  # fmt: skip
    return {n: f"def {n}(" in text for n in names}


# ----------------------------------------------------------------------------------------------------------------
# 16: reflector


@case("rf.depth-nan", "16", r"depth \(vertex depth")
def _(ctx):
    from difflab import reflector as rf

    return rf.ideal_extensions(geometry(), q2().s, float("nan"))


@case("rf.depth-negative", "16", r"depth \(vertex depth")
def _(ctx):
    from difflab import reflector as rf

    return rf.vertex(q2().s, -300.8)


@case("rf.direction-not-unit", "16", r"s must be a unit vector")
def _(ctx):
    from difflab import reflector as rf

    return rf.ideal_extensions(geometry(), 2.0 * np.asarray(q2().s), 300.8)


@case("rf.direction-nan", "16", r"s must be a unit vector")
def _(ctx):
    from difflab import reflector as rf

    return rf.feed_position(np.array([np.nan, 0.0, 1.0]))


@case("rf.extension-nan", "16", r"e must be finite .*e\[5\]")
def _(ctx):
    from difflab import reflector as rf

    e = np.zeros(geometry().n_nodes)
    e[5] = np.nan
    return rf.receiving_ratio(geometry(), e, q2(), n=4)


@case("rf.extension-inf-strain", "16", r"e must be finite")
def _(ctx):
    from difflab import reflector as rf

    e = np.zeros(geometry().n_nodes)
    e[7] = np.inf
    return rf.edge_strain(geometry(), e)


@case("rf.extension-wrong-shape", "16", r"e must have shape \(2226,\)")
def _(ctx):
    from difflab import reflector as rf

    return rf.node_positions(geometry(), np.zeros(3))


@case("rf.beta-zero", "16", r"beta \(elevation\) = 0 degrees")
def _(ctx):
    from difflab import reflector as rf

    return rf.Pointing.from_angles(geometry(), 0.0, 0.0)


@case("rf.alpha-nan", "16", r"alpha")
def _(ctx):
    from difflab import reflector as rf

    return rf.Pointing.from_angles(geometry(), float("nan"), 60.0)


def _book(path, rows):
    import openpyxl

    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "促动器顶端伸缩量"
    ws.append(["对应主索节点编号", "伸缩量（米）"])
    for row in rows:
        ws.append(list(row))
    book.save(path)
    return path


@case("rf.xlsx-boolean-cell", "16", r"cell B3: extension of node 'B1' must be a number of metres; got the boolean")
def _(ctx):
    from difflab import reflector as rf

    return rf.read_result_extensions(_book(ctx.tmp / "r.xlsx", [("A0", 0.1), ("B1", False)]), geometry())


@case("rf.xlsx-unknown-node", "16", r"ZZ9")
def _(ctx):
    from difflab import reflector as rf

    return rf.read_result_extensions(_book(ctx.tmp / "r.xlsx", [("A0", 0.1), ("ZZ9", 0.2)]), geometry())


@case("rf.xlsx-nan-cell", "16", r"cell B3.*(finite|nan|number)")
def _(ctx):
    from difflab import reflector as rf

    return rf.read_result_extensions(_book(ctx.tmp / "r.xlsx", [("A0", 0.1), ("B1", float("nan"))]), geometry())


# ----------------------------------------------------------------------------------------------------------------
# Command line (each case one subprocess)

FIT_CONFIG = """protocol = "step:10,1,3"
[model]
preset = "hodgkin_huxley/squid_axon"
{model_extra}
[data]
dataset = "hh/hh_step_10uA"
variable = "V"
select = {{ amplitude = 10.0 }}
time = [0.0, 4.0]
stride = {stride}
[fit]
{fit_extra}
[fit.params]
gNa = "log"
[output]
path = "{out}"
"""


def _fit_config(ctx, *, model_extra="", fit_extra="steps = 1", stride="5", out="fit.nc", name="fit.toml"):
    path = ctx.tmp / name
    path.write_text(FIT_CONFIG.format(model_extra=model_extra, fit_extra=fit_extra, stride=stride, out=out))
    return str(path)


SWEEP_CONFIG = """protocol = "step:10,1,3"
[model]
preset = "hodgkin_huxley/squid_axon"
[time]
end = 5.0
dt = {dt}
[design]
type = "grid"
[design.parameters]
gK = {gk}
[observables]
{observables}
[output]
directory = "study"
chunk_size = 1
"""


def _sweep_config(ctx, *, dt="0.1", gk="[36.0, 30.0]", observables='peak = { kind = "max", variable = "V" }'):
    path = ctx.tmp / "sweep.toml"
    path.write_text(SWEEP_CONFIG.format(dt=dt, gk=gk, observables=observables))
    return str(path)


def _nan_free(out: str) -> tuple[bool, str]:
    bad = re.search(r"\b(nan|inf)\b", out, re.I)
    return (not bad, (out.strip().splitlines() or [""])[-1] if not bad else f"printed {bad.group(0)}: {out!r}")


@case("cli.simulate-step-1e5", "9", r"V|failed|non-finite", cli=True, check=_nan_free)
def _(ctx):
    return cli(ctx, "simulate", "squid_axon", "--protocol", "step:1e5,1,3", "--t-end", "5", "-o", "x.nc")


@case("cli.simulate-t-end-1e9", "12", r"--t-end|--dt-save|samples|dt0|steps", cli=True)
def _(ctx):
    return cli(ctx, "simulate", "squid_axon", "--protocol", "step:10,1,3", "--t-end", "1e9", "--dt-save", "1e6",
               "-o", "x.nc", timeout=60)  # fmt: skip


@case("cli.simulate-stray-quotes", "19", r"--protocol .*stray quotes", cli=True)
def _(ctx):
    return cli(ctx, "simulate", "squid_axon", "--protocol", "'step:10,1,3'", "-o", "x.nc")


@case("cli.fit-output-under-file", "13", r"result file .*(cannot be written|is a file|parent)", cli=True)
def _(ctx):
    (ctx.tmp / "f").write_text("x")
    ctx.guard(ctx.tmp / "f")
    return cli(ctx, "fit", _fit_config(ctx, out="f/fit.nc"))


@case("cli.fit-output-folder-overwrite", "13", r"result file .* is a folder", cli=True)
def _(ctx):
    (ctx.tmp / "res").mkdir()
    (ctx.tmp / "res" / "notes.txt").write_text("keep")
    ctx.guard(ctx.tmp / "res")
    return cli(ctx, "fit", _fit_config(ctx, out="res"), "--overwrite")


@case("cli.fit-non-utf8-config", "13", r"fit.toml.* is not UTF-8", cli=True)
def _(ctx):
    path = Path(_fit_config(ctx))
    path.write_bytes(path.read_bytes().replace(b"[fit]", b"# \xe9t\xe9\n[fit]"))
    return cli(ctx, "fit", str(path))


@case("cli.fit-typo-stpes", "15", r"\[fit\] has an unknown key 'stpes'; did you mean 'steps'", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_config(ctx, fit_extra="stpes = 3"))


@case("cli.fit-resume-without-checkpoint", "15", r"--resume|checkpoint", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_config(ctx), "--resume")


@case("cli.fit-stride-fraction", "15", r"\[data\] stride must be a whole number; got 2.7", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_config(ctx, stride="2.7"))


@case("cli.fit-gNa-negative", "5", r"gNa must be >= 0", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_config(ctx, model_extra="[model.parameters]\ngNa = -5.0"))


@case("cli.fit-checkpoint-unwritable", "14", r"checkpoint.*cannot be written", cli=True)
def _(ctx):
    (ctx.tmp / "f").write_text("x")
    ctx.guard(ctx.tmp / "f")
    return cli(ctx, "fit", _fit_config(ctx, fit_extra='steps = 1\ncheckpoint = "f/ck.nc"'))


@case(
    "cli.fit-corrupt-netcdf-data", "13", r"rec.nc.*not a readable netCDF|variable 'V' is not in file 'rec.nc'", cli=True
)
def _(ctx):
    (ctx.tmp / "rec.nc").write_bytes(b"CDF\x01" + b"\x00" * 40)
    cfg = Path(_fit_config(ctx))
    cfg.write_text(cfg.read_text().replace('dataset = "hh/hh_step_10uA"', 'file = "rec.nc"'))
    return cli(ctx, "fit", str(cfg))


@case("cli.sweep-dt-zero", "13", r"\[time\].*dt", cli=True)
def _(ctx):
    return cli(ctx, "sweep", _sweep_config(ctx, dt="0"))


@case("cli.sweep-gK-negative", "5", r"design point 1 \(gK=-18.0\): gK must be >= 0", cli=True)
def _(ctx):
    return cli(ctx, "sweep", _sweep_config(ctx, gk="[36.0, -18.0]"))


@case("cli.sweep-observable-typo-windw", "15", r"windw", cli=True)
def _(ctx):
    obs = 'rate = { kind = "firing_rate", variable = "V", windw = [0.0, 5.0] }'
    return cli(ctx, "sweep", _sweep_config(ctx, observables=obs))


@case("cli.sweep-grid-missing-num", "19", r"\[design.parameters.gK\] needs 'num'", cli=True)
def _(ctx):
    return cli(ctx, "sweep", _sweep_config(ctx, gk="{ start = 30.0, stop = 36.0 }"))


@case("cli.sweep-truncated-chunk", "13", r"chunk_00001.nc", cli=True)
def _(ctx):
    cfg = _sweep_config(ctx)
    cli(ctx, "sweep", cfg)
    chunk = ctx.tmp / "study" / "chunk_00001.nc"
    chunk.write_bytes(chunk.read_bytes()[:200])
    ctx.guard(ctx.tmp / "study" / "chunk_00000.nc")
    return cli(ctx, "sweep", cfg)


def _result_xlsx(ctx):
    return _book(ctx.tmp / "r.xlsx", [("A0", 0.1)])


@case("cli.fast-check-csv", "13", r"'r.csv' is not a readable .xlsx workbook", cli=True)
def _(ctx):
    (ctx.tmp / "r.csv").write_text("A0,0.1\n")
    return cli(ctx, "fast", "check", "r.csv")


@case("cli.fast-check-empty", "13", r"'r.xlsx' is empty", cli=True)
def _(ctx):
    (ctx.tmp / "r.xlsx").write_bytes(b"")
    return cli(ctx, "fast", "check", "r.xlsx")


@case("cli.fast-check-truncated", "13", r"'cut.xlsx' is not a readable .xlsx workbook", cli=True)
def _(ctx):
    (ctx.tmp / "cut.xlsx").write_bytes(_result_xlsx(ctx).read_bytes()[:1000])
    return cli(ctx, "fast", "check", "cut.xlsx")


@case("cli.fast-check-beta-zero", "16", r"--beta \(elevation\) = 0 degrees", cli=True)
def _(ctx):
    _result_xlsx(ctx)
    return cli(ctx, "fast", "check", "r.xlsx", "--beta", "0")


def _case_file(ctx, old: str, new: str, source="hh_step_10uA.toml") -> str:
    text = (ROOT / "validation" / source).read_text()
    assert old in text, old
    path = ctx.tmp / "case.toml"
    path.write_text(text.replace(old, new, 1))
    return str(path)


def _validate(ctx, path):
    return cli(ctx, "validate", path, "--out", str(ctx.tmp / "report"), "--no-progress")


@case("cli.validate-tolerance-nan", "13", r"field 'metrics.spike_count_error.tolerance' must be a finite", cli=True)
def _(ctx):
    return _validate(ctx, _case_file(ctx, "tolerance = 0,", "tolerance = nan,"))


@case("cli.validate-tolerance-negative", "15", r"metrics.spike_time_max_error.tolerance.*>= 0", cli=True)
def _(ctx):
    return _validate(ctx, _case_file(ctx, "tolerance = 0.05", "tolerance = -0.05"))


@case("cli.validate-kind-module", "21", r"kind", cli=True)
def _(ctx):
    return _validate(ctx, _case_file(ctx, 'kind = "neuron.trace"', 'kind = "os:system"'))  # a "module:NAME" kind


@case("cli.validate-simulation-unknown-key", "15", r"unknown field\(s\) 'simulation.solverr'", cli=True)
def _(ctx):
    return _validate(ctx, _case_file(ctx, 'solver = "default"', 'solver = "default"\nsolverr = "x"'))


# ----------------------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-k", default="", help="run only the cases whose id contains this text")
    parser.add_argument("--no-cli", action="store_true", help="skip the command-line cases")
    args = parser.parse_args(argv)
    import warnings

    warnings.simplefilter("ignore")
    import difflab  # noqa: F401 - imported once, before the timings

    cases = [c for c in CASES if args.k in c.id and not (args.no_cli and c.cli)]
    rows = []
    start = time.perf_counter()
    for c in cases:
        folder = Path(tempfile.mkdtemp(prefix="difflab-battery-"))
        t0 = time.perf_counter()
        try:
            outcome, message = classify(c, Context(folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        rows.append((c.id, c.cls, outcome, message, time.perf_counter() - t0))
        print(f"{c.id:42s} {c.cls:>4s}  {outcome:14s} {time.perf_counter() - t0:6.1f}s  {message}", flush=True)
    print()
    totals = {o: sum(r[2] == o for r in rows) for o in OUTCOMES}
    print("totals: " + ", ".join(f"{o} {n}" for o, n in totals.items() if n) + f"  ({len(rows)} cases, "
          f"{time.perf_counter() - start:.0f} s)")  # fmt: skip
    bad = [r for r in rows if r[2] not in GOOD]
    for r in bad:
        print(f"FAILED {r[0]} [{r[1]}] {r[2]}: {r[3]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
