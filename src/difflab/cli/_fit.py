"""`difflab fit CONFIG.toml`: calibrate a model preset against measured data (see examples/fit_hh.toml).

Config tables: `[model]` (`preset`, optional `[model.parameters]` initial values),
`protocol` (e.g. `"step:10,10,110"`), `[data]` (`dataset` or `file`, `variable`,
optional `select`, `time = [t0, t1]`, `stride`, `noise` + `seed`; or `nwb` = an NWB file of
current-clamp sweeps with `area_um2` or `capacitance_pF`, optional `specific_capacitance` and
`sweeps`: its recorded stimuli are the protocols, so no `protocol` is given), `[fit]`
(`steps`, `optimizer`, `loss`, `starts`, `seed`, `checkpoint`, `checkpoint_every`,
`dt`) with `[fit.params]` (`"log"`, `"positive"`, `"identity"` or `[lo, hi]`) and
optional `[fit.starts]` (explicit start values), and `[output] path`. Relative paths are
relative to the config file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import jax
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

#: The keys each table of a fit config may hold (anything else is a typo, refused by name).
KEYS = {
    "config": {"model", "protocol", "data", "fit", "output"},
    "model": {"preset", "parameters"},
    "data": {"dataset", "file", "nwb", "variable", "select", "time", "stride", "noise", "seed", "area_um2",
             "capacitance_pF", "specific_capacitance", "sweeps"},
    "fit": {"steps", "optimizer", "loss", "starts", "seed", "checkpoint", "checkpoint_every", "dt", "params",
            "strategy"},
    "output": {"path"},
}  # fmt: skip


def fit(
    config: Annotated[Path, typer.Argument(help="TOML file describing the fit (see examples/fit_hh.toml).")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Result netCDF (default: [output] path).", show_default=False)
    ] = None,
    resume: Annotated[bool, typer.Option(help="Continue from the [fit] checkpoint file.")] = False,
    overwrite: Annotated[bool, typer.Option(help="Replace the result file if it exists.")] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress (a bar on a terminal, a line every 5 s otherwise).")
    ] = False,
) -> None:
    """Fit the parameters named in the config to measured data; write estimates, losses and history."""
    from difflab import calibrate

    spec, base = read_config(config)
    try:
        for table, allowed in KEYS.items():
            check_keys(spec if table == "config" else spec.get(table, {}), allowed, table)
    except ValueError as err:
        raise fail(str(err)) from None
    fit_spec = spec.get("fit", {})
    if resume and "checkpoint" not in fit_spec:
        raise fail('--resume needs a checkpoint file to continue from: set [fit] checkpoint = "fit.ckpt.nc"')
    out = output or resolve_path(base, spec.get("output", {}).get("path"))
    if out is None:
        raise fail("give the result file with -o/--output or [output] path")
    if out.is_dir():  # before the existence check: --overwrite never replaces a folder
        raise fail(f"result file {str(out)!r} is a folder; give a file name, e.g. {str(out / 'fit.nc')!r}")
    if out.exists() and not overwrite:
        raise fail(f"result file {str(out)!r} exists; pass --overwrite to replace it")
    if not _writable_folder(out.parent):
        raise fail(f"result file {str(out)!r} cannot be written there (its folder cannot be made or written)")
    try:
        model, protocol = load_model_and_protocol(spec)
        data, recorded = _load_data(spec.get("data", {}), base)
        if recorded is not None:
            if "protocol" in spec:
                raise ValueError("[data] nwb brings the recorded stimulus of every sweep: remove 'protocol'")
            protocol = recorded
        params = {name: _transform(name, t) for name, t in required(fit_spec, "params", "fit").items()}
        checkpoint = resolve_path(base, fit_spec.get("checkpoint"))
        kwargs = _fit_options(fit_spec, checkpoint, checkpoint if resume else None, progress=not quiet)
        result = calibrate(model, protocol, data, params=params, **kwargs)
    except (ValueError, KeyError, TypeError, FileExistsError, ImportError) as err:
        raise fail(error_text(err)) from None
    _write(result, out, overwrite)
    typer.echo(f"wrote {out}")
    typer.echo(repr(result))


def _writable_folder(folder: Path) -> bool:
    """Whether `folder` exists (or can be made) and accepts a new file: checked before a long fit, not after."""
    from difflab.io import ensure_writable_folder

    try:
        ensure_writable_folder(folder)
    except OSError:
        return False
    return True


def _load_data(spec: dict[str, Any], base: Path):
    """The measured data as a DataArray, and the recorded protocols (`None` unless read from NWB)."""
    import difflab.datasets
    from difflab.io import read_netcdf, read_nwb

    recorded = None
    if sum(k in spec for k in ("dataset", "file", "nwb")) != 1:
        raise ValueError(
            "[data] needs exactly one of 'dataset' (a shipped dataset name), 'file' (a netCDF file) "
            "or 'nwb' (an NWB file of current-clamp sweeps)"
        )
    if "dataset" in spec:
        ds = difflab.datasets.load(spec["dataset"])
    elif "file" in spec:
        ds = read_netcdf(resolve_path(base, spec["file"]))
    else:
        options = {k: spec[k] for k in ("area_um2", "capacitance_pF", "specific_capacitance", "sweeps") if k in spec}
        rec = read_nwb(resolve_path(base, spec["nwb"]), **options)
        ds, recorded = rec.data, rec.protocols
        spec = {"variable": "V", **spec}
    variable = required(spec, "variable", "data")
    if variable not in ds.data_vars:
        source = next(f"{k} {str(spec[k])!r}" for k in ("dataset", "file", "nwb") if k in spec)
        have = ", ".join(map(repr, ds.data_vars)) or "none"
        raise ValueError(f"[data] variable {variable!r} is not in {source} (its variables: {have})")
    da = ds[variable]
    if "select" in spec:
        da = da.sel(_selection(spec["select"], da), drop=True)
    if "time" in spec:
        da = _time_window(spec["time"], da)
    da = da.isel(time=slice(None, None, config_int(spec, "stride", "data", 1, minimum=1)))
    if spec.get("noise"):
        noise = config_float(spec, "noise", "data")
        if not noise >= 0:  # NaN fails too
            raise ValueError(f"[data] noise must be a standard deviation >= 0 (the variable's units); got {noise}")
        rng = np.random.default_rng(config_int(spec, "seed", "data", 0))
        da = da + rng.normal(0.0, noise, da.shape)
    return da, recorded


def _selection(select, da) -> dict[str, Any]:
    """`[data] select`, checked: every name a coordinate of the data, every value one of its values."""
    if not isinstance(select, dict):
        raise ValueError(f"[data] select must be a table such as {{ amplitude = 10.0 }}; got {select!r}")
    for name, value in select.items():
        if name not in da.coords:
            raise ValueError(f"[data] select: {name!r} is not a coordinate of the data (its coordinates: "
                             f"{', '.join(map(repr, map(str, da.coords)))})")  # fmt: skip
        values = np.atleast_1d(da[name].values)
        if not np.isin(np.atleast_1d(value), values).all():
            shown = ", ".join(map(str, values[:12])) + (" ..." if values.size > 12 else "")
            raise ValueError(f"[data] select: {name} = {value!r} is not in the data; its values: {shown}")
    return select


def _time_window(window, da):
    """The data within `[data] time = [t0, t1]`, refused by name when that window is reversed or holds < 2 samples."""
    ok = isinstance(window, list) and len(window) == 2
    ok = ok and all(isinstance(t, int | float) and not isinstance(t, bool) for t in window)
    if not ok or not window[0] < window[1]:
        raise ValueError(f"[data] time must be [t0, t1] with t0 < t1 (the data's time units); got {window!r}")
    chosen = da.sel(time=slice(*window))
    if chosen.sizes["time"] < 2:
        times = da["time"].values
        raise ValueError(
            f"[data] time = {window!r} holds {chosen.sizes['time']} sample(s); the recording spans "
            f"[{times[0]:g}, {times[-1]:g}]"
        )
    return chosen


def _transform(name: str, spec):
    from difflab import Bounded, Identity, Log, Positive

    named: dict[str, Callable[[], Any]] = {"log": Log, "positive": Positive, "identity": Identity}
    if isinstance(spec, list):
        try:
            return Bounded(*spec)
        except (ValueError, TypeError) as err:
            raise ValueError(f"[fit.params] {name} = {spec!r}: {err}") from None
    if isinstance(spec, str) and spec in named:
        return named[spec]()
    raise ValueError(f"[fit.params] {name} must be 'log', 'positive', 'identity' or [lo, hi]; got {spec!r}")


def _fit_options(spec: dict[str, Any], checkpoint: Path | None, resume: Path | None, progress: bool) -> dict[str, Any]:
    from difflab import RunOptions, SolveOptions

    starts = spec.get("starts", 1)
    out = {
        "steps": config_int(spec, "steps", "fit", 100, minimum=0),
        "optimizer": spec.get("optimizer"),
        "loss": spec.get("loss", "mse"),
        "starts": starts if isinstance(starts, dict) else config_int(spec, "starts", "fit", 1, minimum=1),
        "key": jax.random.key(config_int(spec, "seed", "fit", 0)),
        "run": RunOptions(
            strategy=spec.get("strategy", "auto"),
            checkpoint=checkpoint,
            checkpoint_every=config_int(spec, "checkpoint_every", "fit", 25, minimum=1),
            resume=resume,
            progress=progress,
        ),
    }
    if "dt" in spec:
        out["options"] = SolveOptions(dt0=config_float(spec, "dt", "fit"))
    return out


def _write(result, path: Path, overwrite: bool) -> None:
    from difflab.io import write_netcdf

    write_netcdf(result.to_dataset(), path, overwrite=overwrite)
