"""`difflab simulate`: run a model preset under a protocol and write the trajectory to netCDF."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from ._common import fail

_MAX_SAMPLES = 50_000_000


def simulate(
    preset: Annotated[
        str,
        typer.Argument(help="Model preset, e.g. hodgkin_huxley/squid_axon (or just squid_axon); see --list."),
    ] = "",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="netCDF file to write (written atomically).", show_default=False),
    ] = None,
    protocol: Annotated[
        str | None,
        typer.Option(
            help="Input protocol: step:AMPLITUDE[,START[,STOP]], constant:VALUE, ramp:AMPLITUDE,START,STOP "
            "or none. Amplitudes in the model's input units (µA/cm² for neurons), times in its time units (ms). "
            'Example: "step:10,10,110".',
            show_default=False,
        ),
    ] = None,
    amplitude: Annotated[
        float | None, typer.Option(help="Step amplitude (instead of --protocol).", show_default=False)
    ] = None,
    start: Annotated[float, typer.Option(help="Step start time (with --amplitude).")] = 0.0,
    stop: Annotated[float, typer.Option(help="Step stop time (with --amplitude); default: never.")] = float("inf"),
    t_end: Annotated[float, typer.Option(help="End time of the simulation (model time units, e.g. ms).")] = 150.0,
    dt_save: Annotated[float, typer.Option(help="Spacing of the saved samples (model time units).")] = 0.025,
    overwrite: Annotated[bool, typer.Option(help="Replace OUTPUT if it exists.")] = False,
    list_presets: Annotated[bool, typer.Option("--list", help="List the shipped presets and exit.")] = False,
) -> None:
    """Simulate a model preset under a protocol and write the trajectory to a netCDF file.

    The file has one variable per state (with units and long names), a time coordinate and
    provenance attributes (versions, solver, tolerances, dtype, preset, protocol). It is written
    atomically; an existing file is kept unless --overwrite is given. Prints a short summary.
    """
    from difflab.datasets import PresetError, available_presets, load_model

    if list_presets:
        typer.echo("\n".join(available_presets()))
        return
    if not preset:
        raise fail("give a model preset (see --list)")
    if output is None:
        raise fail("give the output file with -o/--output")
    _check_output(output, overwrite)
    try:
        model = load_model(preset)
        drive = _protocol(protocol, amplitude, start, stop)
        ts = _save_times(t_end, dt_save)
    except (PresetError, ValueError) as err:
        raise fail(str(err)) from None
    _check_writable(output)
    try:
        ds = _run(model, drive, ts, preset)
    except ValueError as err:  # a solve that fails (non-finite potential, too many steps) is reported, not traced
        raise fail(f"the simulation of {preset!r} failed: {err}") from None
    from difflab.io import write_netcdf

    try:
        write_netcdf(ds, output, overwrite=overwrite)
    except OSError as err:  # e.g. the folder became unwritable during the run
        raise fail(f"--output {str(output)!r} could not be written: {err}") from None
    typer.echo(f"wrote {output}")
    for line in _summary(ds):
        typer.echo(line)


def _check_output(output: Path, overwrite: bool) -> None:
    if output.is_dir():
        raise fail(f"--output {str(output)!r} is a folder; give a file name such as out.nc")
    if output.exists() and not overwrite:
        raise fail(f"--output {str(output)!r} exists; pass --overwrite to replace it")
    if any(p.exists() and not p.is_dir() for p in output.parents):
        raise fail(f"--output {str(output)!r}: a parent folder is a file")


def _check_writable(output: Path) -> None:
    """Refuse before the run a folder that cannot be made or written, so the result is not lost after it."""
    from difflab.io import ensure_writable_folder

    try:
        ensure_writable_folder(output.parent)
    except OSError as err:
        raise fail(f"--output {str(output)!r} cannot be written: {err.strerror or err}") from None


def _protocol(text, amplitude, start, stop):
    from difflab import Step, validation

    if text is not None and amplitude is not None:
        raise ValueError("give either --protocol or --amplitude/--start/--stop, not both")
    if text is not None:
        stripped = text.strip()
        if stripped[:1] in ("'", '"') or stripped[-1:] in ("'", '"'):
            raise ValueError(
                f"--protocol {text!r} has stray quotes; write it without them, e.g. --protocol step:10,10,110"
            )
        return validation.parse_protocol(text)
    if amplitude is not None:
        return Step(amplitude, start, stop)
    raise ValueError('give the input with --protocol (e.g. "step:10,10,110") or --amplitude')


def _save_times(t_end: float, dt_save: float) -> np.ndarray:
    if not (np.isfinite(t_end) and t_end > 0):
        raise ValueError(f"--t-end must be a positive number; got {t_end}")
    if not (np.isfinite(dt_save) and 0 < dt_save <= t_end):
        raise ValueError(f"--dt-save must be in (0, t_end = {t_end}]; got {dt_save}")
    n = round(t_end / dt_save)
    if n + 1 > _MAX_SAMPLES:
        raise ValueError(f"--t-end / --dt-save gives {n + 1} samples; at most {_MAX_SAMPLES} are allowed")
    return np.linspace(0.0, n * dt_save, n + 1)


def _run(model, drive, ts, preset):
    from difflab import simulate as run
    from difflab import validation

    traj = run(model, drive, ts)
    ds = traj.to_xarray()
    ds.attrs |= {"preset": preset, "protocol": validation.describe_protocol(drive)}
    order = [v.name for v in traj.variables if v.name in ds.data_vars]
    return ds[order + [k for k in ds.data_vars if k not in order]]


def _summary(ds) -> list[str]:
    t = ds["time"].values
    lines = [f"  {t.size} samples, t = {t[0]:g} .. {t[-1]:g} {ds['time'].attrs.get('units', '')}"]
    for name, var in ds.data_vars.items():
        if var.dims == ("time",) and np.issubdtype(var.dtype, np.floating):
            v = var.values
            units = var.attrs.get("units", "")
            units = "" if units == "1" else units  # dimensionless
            lines.append(f"  {name}: min {v.min():.4g}, max {v.max():.4g}, final {v[-1]:.4g} {units}".rstrip())
    if "V" in ds and ds["V"].attrs.get("units") == "mV":
        from ..neuron import spike_times

        spikes = np.asarray(spike_times(t, ds["V"].values, max_spikes=max(t.size // 2, 1)))
        spikes = spikes[np.isfinite(spikes)]
        first = f" (first at {spikes[0]:.3f} ms)" if spikes.size else ""
        lines.append(f"  spikes (upward 0 mV crossings): {spikes.size}{first}")
    return lines
