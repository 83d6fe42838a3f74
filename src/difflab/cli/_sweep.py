"""`difflab sweep CONFIG.toml`: a parameter study of a model preset (see examples/sweep_hh.toml).

Config tables: `[model]` and `protocol` as for `difflab fit`; `[time]` (`end`, `dt`:
save grid from 0); `[design]` with `type` = `"grid"` (`[design.parameters]`: a list of
values or `{start, stop, num}` per name) or `"random"` / `"lhs"` / `"sobol"` (`n`,
`seed`, `[design.bounds]` name = `[lo, hi]`, optional `log = [names]`);
`[observables]` name = `{kind, variable, window}` with kind `final`, `max`, `min`,
`mean`, `spike_count` or `firing_rate` (Hz, needs `window = [t0, t1]`); `[output]`
(`directory` for chunk files, `chunk_size`). `--scheduler ADDRESS` runs the chunks on the
workers of a Dask cluster (the directory must be shared with them). A `[sensitivity]` table in place of
`[design]` runs a global sensitivity analysis instead (see `_sensitivity.py`; examples/sensitivity_hh.toml).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from ._common import (
    check_keys,
    config_float,
    config_int,
    error_text,
    fail,
    load_model_and_protocol,
    read_config,
    required,
    resolve_path,
)
from ._sensitivity import sensitivity_call


def sweep(
    config: Annotated[Path, typer.Argument(help="TOML file describing the study (see examples/sweep_hh.toml).")],
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Address of a Dask scheduler (tcp://host:8786): the chunks run on its workers, which "
            "must see [output] directory at the same path."
        ),
    ] = None,
    scheduler_timeout: Annotated[
        float, typer.Option(help="Seconds to wait for the scheduler to answer.", min=0.1)
    ] = 10.0,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="No progress (a bar on a terminal, a line per chunk otherwise)."),
    ] = False,
) -> None:
    """Run a parameter study; chunks go to [output] directory (a rerun skips finished chunks)."""
    from difflab import sweep as run_sweep
    from difflab import write_netcdf

    spec, base = read_config(config)
    try:
        check_keys(spec, {"model", "protocol", "time", "design", "sensitivity", "observables", "output"}, "config")
        if ("design" in spec) == ("sensitivity" in spec):
            raise ValueError("config needs either [design] (a parameter study) or [sensitivity], not both or neither")
        check_keys(spec.get("time", {}), {"end", "dt"}, "time")
        check_keys(spec.get("output", {}), {"directory", "chunk_size"}, "output")
    except ValueError as err:
        raise fail(str(err)) from None
    out = spec.get("output", {})
    directory = resolve_path(base, out.get("directory"))
    if directory is None:
        raise fail("[output] needs 'directory' (one netCDF file per chunk is written there)")
    before = {p.name for p in directory.glob("chunk_*.nc")} if directory.is_dir() else set()
    try:
        model, protocol = load_model_and_protocol(spec)
        time = required(spec, "time", "config")
        required(time, "end", "time"), required(time, "dt", "time")
        end, dt = config_float(time, "end", "time"), config_float(time, "dt", "time")
        if not (end > 0 and 0 < dt <= end):
            raise ValueError(f"[time] needs end > 0 and 0 < dt <= end (ms); got end = {end}, dt = {dt}")
        ts = np.linspace(0.0, end, round(end / dt) + 1)
        if "sensitivity" in spec:
            run, design, keywords = sensitivity_call(spec["sensitivity"])
        else:
            run, design, keywords = run_sweep, make_design(spec["design"]), {}
        table = required(spec, "observables", "config")
        observables = {name: make_observable(name, o, model) for name, o in table.items()}
        keywords["chunk_size"] = config_int(out, "chunk_size", "output", 1024, minimum=1)
        keywords["progress"] = not quiet
        if scheduler is None:
            ds = run(model, protocol, ts, design, observables, directory=directory, **keywords)
        else:
            ds = _on_scheduler(scheduler, scheduler_timeout, run, model, protocol, ts, design, observables,
                               directory=directory.absolute(), **keywords)  # fmt: skip
        if "sensitivity" in spec:
            write_netcdf(ds, directory / "indices.nc", overwrite=True)  # recomputed from the same chunks
    except (ValueError, KeyError, TypeError) as err:
        raise fail(error_text(err).replace("client: ", "--scheduler: ")) from None
    after = {p.name for p in directory.glob("chunk_*.nc")}
    if "sensitivity" in spec:
        typer.echo(f"wrote the indices to {directory / 'indices.nc'}")
    typer.echo(f"wrote {len(after - before)} chunk file(s) and reused {len(after & before)} to {directory}")
    typer.echo(str(ds))


def _on_scheduler(address: str, timeout: float, run_sweep, *args, **kwargs):
    """Run the sweep on the cluster of the scheduler at `address`, closing the connection after."""
    from ..ensembles.internal import connect

    client, _ = connect(address, timeout)
    with client:
        return run_sweep(*args, client=client, **kwargs)


def make_design(spec: dict[str, Any]):
    """A design from its TOML table."""
    from difflab import Grid, LatinHypercube, RandomDesign, Sobol

    kind = spec.get("type", "grid")
    if kind == "grid":
        values = {}
        for name, v in required(spec, "parameters", "design").items():
            if isinstance(v, dict):
                table = f"design.parameters.{name}"
                check_keys(v, {"start", "stop", "num"}, table)
                for key in ("start", "stop", "num"):
                    required(v, key, table)
                v = np.linspace(config_float(v, "start", table), config_float(v, "stop", table),
                                config_int(v, "num", table, 0, minimum=1))  # fmt: skip
            values[name] = v
        return Grid(**values)
    classes: dict[str, Callable[..., Any]] = {"random": RandomDesign, "lhs": LatinHypercube, "sobol": Sobol}
    if kind not in classes:
        raise ValueError(f"[design] type must be 'grid', 'random', 'lhs' or 'sobol'; got {kind!r}")
    bounds = {k: tuple(v) for k, v in required(spec, "bounds", "design").items()}
    n = config_int(spec, "n", "design", required(spec, "n", "design"), minimum=1)
    return classes[kind](n, bounds, seed=int(spec.get("seed", 0)), log=tuple(spec.get("log", ())))


def make_observable(name: str, spec: dict[str, Any], model):
    """`(fn, units)` of one observable from its TOML table; its `variable` must be a state of `model`."""
    import jax.numpy as jnp

    if not isinstance(spec, dict):
        raise ValueError(f"[observables] {name} must be a table such as {{ kind = 'max', variable = 'V' }}; got {spec}")
    check_keys(spec, {"kind", "variable", "window", "threshold"}, f"observables.{name}")
    kind = required(spec, "kind", f"observables.{name}")
    var = _variable(name, spec, model)
    reducers = {"final": lambda y: y[-1], "max": jnp.max, "min": jnp.min, "mean": jnp.mean}
    if kind in reducers:
        return (lambda traj, f=reducers[kind]: f(traj[var])), ""
    if kind in ("spike_count", "firing_rate"):
        from ..neuron import firing_rate, spike_count

        window = tuple(spec["window"]) if "window" in spec else None
        threshold = float(spec.get("threshold", 0.0))
        if kind == "spike_count":
            return (lambda traj: spike_count(traj.ts, traj[var], threshold, window)), "1"
        if window is None:
            raise ValueError(f"[observables.{name}] firing_rate needs window = [t0, t1]")
        return (lambda traj: firing_rate(traj.ts, traj[var], window, threshold)), "Hz"
    raise ValueError(
        f"[observables.{name}] kind must be final, max, min, mean, spike_count or firing_rate; got {kind!r}"
    )


def _variable(name: str, spec: dict[str, Any], model) -> str:
    """The observable's `variable` (default "V"), refused before any chunk runs unless it is a state of `model`."""
    var = spec.get("variable", "V")
    states = [info.name for info in model.states]
    if var not in states:
        raise ValueError(
            f"[observables.{name}] variable {var!r} is not a state of {type(model).__name__}; expected one of "
            f"{', '.join(states)}"
        )
    return var
