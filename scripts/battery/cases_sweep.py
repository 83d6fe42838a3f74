"""Battery cases, classes 2/3, 17, 19: sweeps."""

from __future__ import annotations

import numpy as np

from battery.framework import case, hh, relax, step, ts_hh

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


@case("sweep.rerun-other-reducer", "2/3", r"belongs to another study")
def _(ctx):
    import jax.numpy as jnp

    import difflab

    def run(f):
        obs = {"r": lambda traj: f(traj.ys["y"])}
        return difflab.sweep(relax(), None, TS_SWEEP, difflab.Grid(k=[0.1, 0.2]), obs, directory=ctx.tmp / "s")

    run(jnp.max)
    return run(jnp.min)


@case("sweep.rerun-other-closure-window", "2/3", r"belongs to another study")
def _(ctx):
    import jax.numpy as jnp

    import difflab

    def run(n):
        obs = {"r": lambda traj: jnp.sum(traj.ys["y"][:n])}
        return difflab.sweep(relax(), None, TS_SWEEP, difflab.Grid(k=[0.1, 0.2]), obs, directory=ctx.tmp / "s")

    run(2)
    return run(3)


@case("sweep.observable-string", "19", r"observable 's' must return a number or an array of numbers", exc=(TypeError,))
def _(ctx):
    import difflab

    return difflab.sweep(relax(), None, TS_SWEEP, difflab.Grid(k=[0.1, 0.2]), {"s": lambda traj: "abc"})
