"""`sweep`: parameter studies over a design, observables of every trajectory, resumable chunks on disk.

Points of the design are run in chunks through [`run_ensemble`][difflab.run_ensemble]. With a
`directory`, each finished chunk is written at once to its own netCDF file (atomically);
a rerun after a crash skips the chunks already on disk, and the result is opened lazily with
`xarray.open_mfdataset` (Dask), so a study may be larger than memory. With a `client`
(a `dask.distributed` cluster), the chunks still missing run as tasks on its workers, which
write them into the same folder (see `difflab.ensembles._cluster`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from ..core.internal import AbstractModel, Progress, SolveOptions, merge_options, split_solve_keywords
from ..data.internal import callable_identity, dataset_checksum, tree_fingerprint, write_netcdf
from ._chunks import chunk_path, finish_chunk, run_chunk
from ._cluster import run_on_cluster
from ._designs import AbstractDesign
from ._ensemble import make_batch

Observable = Callable[[Any], Any]


def sweep(
    model: AbstractModel,
    protocol: Any,
    ts: Any,
    design: AbstractDesign,
    observables: Mapping[str, Observable | tuple[Observable, str]] | Sequence[Observable],
    *,
    chunk_size: int = 1024,
    directory: str | os.PathLike | None = None,
    client: Any = None,
    progress: bool | None = None,
    options: SolveOptions | None = None,
    derivatives: bool = False,
    **ensemble_kwargs: Any,
) -> xr.Dataset:
    """Evaluate `observables` of `model` driven by `protocol` at every point of `design`.

    Args:
        model: the base model; the design's parameters (names or aliases) are replaced.
        protocol: the input shared by all points.
        ts: save times of every simulation.
        design: a [`Grid`][difflab.Grid] (result dims: one per parameter) or a sampled design
            ([`RandomDesign`][difflab.RandomDesign], [`LatinHypercube`][difflab.LatinHypercube],
            [`Sobol`][difflab.Sobol]; result dim `sample` with parameter coordinates).
        observables: `{name: fn}` or `{name: (fn, units)}` or a list of functions (named by
            `__name__`); `fn(trajectory) -> array` for **one** member (e.g. spike count,
            firing rate, peak value).
        chunk_size: points per chunk (one ensemble run and, with `directory`, one file).
        directory: where to write `chunk_00000.nc`, ... A rerun skips finished chunks; a
            directory holding chunks of another study is refused.
        client: a `distributed.Client` or the address of a Dask scheduler
            (`"tcp://host:8786"`): the missing chunks run as tasks on its workers, which must
            have the same difflab version and see `directory` (a shared folder; required). A
            chunk whose worker dies is rerun on another one; the result equals a local run's bit
            for bit. `None` (default): everything runs in this process.
        progress: progress over the chunks: `None` (default) a bar on a terminal only; `True` the bar, or one line
            per chunk when stderr is not a terminal (a log); `False` nothing.
        options: a [`SolveOptions`][difflab.SolveOptions] for every point (solver, tolerances, steps).
        derivatives: also every observable's partial derivatives with respect to the design's
            parameters, by forward-mode differentiation of the solve (one pass per point carrying one
            tangent per parameter, `diffrax.ForwardMode` unless `adjoint` is given): data variable
            `d_<observable>` with dims `("sample", "parameter", ...)`. Observables must then be
            differentiable (a spike count is piecewise constant: its derivative is 0).
        **ensemble_kwargs: passed to [`run_ensemble`][difflab.run_ensemble] (strategy, devices; the fields of
            `SolveOptions` as keywords, not both ways for one field).

    Returns:
        An `xarray.Dataset` of the observables (lazy, Dask-backed, when `directory` is given).
    """
    if not isinstance(design, AbstractDesign):
        raise TypeError(f"design must be a Grid, RandomDesign, LatinHypercube or Sobol; got {type(design).__name__}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int | np.integer) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a whole number >= 1 (points per chunk); got {chunk_size!r}")
    obs = _as_observables(observables)
    if not isinstance(derivatives, bool):
        raise TypeError(f"derivatives must be True or False; got {derivatives!r}")
    solve, ensemble_kwargs = split_solve_keywords(ensemble_kwargs)
    ensemble_kwargs.update(merge_options(options, solve, "sweep").keywords())  # one spelling for the fingerprint
    points = design.points()
    for name in points:
        model.resolve(name)
    n = len(design)
    starts = list(range(0, n, chunk_size))
    _check_points(model, points, starts, chunk_size)
    attrs = {
        "design": type(design).__name__,
        "design_fingerprint": design.fingerprint(),
        "observables": ", ".join(obs),
        "chunk_size": str(chunk_size),
        # everything else that defines a point's result: a chunk of another problem is never reused
        "problem_fingerprint": tree_fingerprint(
            model,
            protocol,
            np.asarray(ts),
            {k: callable_identity(f) + u for k, (f, u) in obs.items()},
            ensemble_kwargs,
            *(("forward-mode derivatives",) if derivatives else ()),
        ),
    }
    if client is not None and directory is None:
        raise ValueError("directory is required with client: the workers write their chunks there (a folder that "
                         "this process and every worker can reach); got directory=None")  # fmt: skip
    folder = None if directory is None else _prepare(Path(directory), attrs)
    if client is not None:
        assert folder is not None  # checked above: a cluster run needs a directory
        folder = Path(os.path.abspath(folder))  # workers may start elsewhere; symlinks are kept (hosts differ)
        todo = [(i, np.arange(s, min(s + chunk_size, n))) for i, s in enumerate(starts) if not _finished(folder, i)]
        problem = (model, protocol, ts, obs, ensemble_kwargs, derivatives)
        run_on_cluster(client, problem, points, todo, min(chunk_size, n), attrs, folder, progress)
    else:
        problem = (model, protocol, ts, obs, ensemble_kwargs, derivatives)
        chunks = _run_here(problem, points, starts, chunk_size, attrs, folder, progress)
    if folder is None:
        result = xr.concat(chunks, dim="sample")
    else:
        files = [chunk_path(folder, i) for i in range(len(starts))]
        result = xr.open_mfdataset(files, combine="nested", concat_dim="sample", engine="netcdf4")
    # the whole study carries the study's attributes, not its first chunk's number and checksum
    result.attrs = {k: v for k, v in result.attrs.items() if k not in ("chunk", "checksum")} | attrs
    return _as_grid(result, design) if design.is_grid else result


def _run_here(problem, points, starts, chunk_size, attrs, folder, progress):
    """Run the chunks in this process, one after another; returns them unless they go to `folder`."""
    model, protocol, ts, obs, ensemble_kwargs, derivatives = problem
    n = len(next(iter(points.values())))
    chunks = []
    with Progress(len(starts), "sweep", progress, unit="chunk") as bar:
        for i, start in enumerate(starts):
            idx = np.arange(start, min(start + chunk_size, n))
            if folder is not None and _finished(folder, i):
                bar.advance(f"chunk {i} (points {idx[0]}-{idx[-1]}) already on disk")
                continue
            values = {k: v[idx] for k, v in points.items()}
            ds = run_chunk(model, protocol, ts, values, idx, min(chunk_size, n), obs, ensemble_kwargs, derivatives)
            ds = finish_chunk(ds, attrs, i)
            if folder is None:
                chunks.append(ds)
            else:
                write_netcdf(ds, chunk_path(folder, i))
            bar.advance(f"chunk {i} (points {idx[0]}-{idx[-1]})")
    return chunks


def _check_points(model, points, starts, chunk_size) -> None:
    """Refuse an unphysical design point before any chunk runs, naming the point and its values."""
    for start in starts:
        chunk = {k: v[start : start + chunk_size] for k, v in points.items()}
        try:
            make_batch(model, **chunk)
        except ValueError:
            for j in range(len(next(iter(chunk.values())))):
                values = {k: v[j].item() if np.ndim(v[j]) == 0 else v[j] for k, v in chunk.items()}
                try:
                    model.replace(**values)
                except ValueError as err:
                    shown = ", ".join(f"{k}={v!r}" for k, v in values.items())
                    raise ValueError(f"design point {start + j} ({shown}): {err}") from None
            raise


def _as_observables(observables) -> dict[str, tuple[Observable, str]]:
    items: Iterable[tuple[Any, Any]]
    if isinstance(observables, Mapping):
        items = observables.items()
    else:
        items = [(getattr(f, "__name__", f"observable_{i}"), f) for i, f in enumerate(observables)]
    out = {}
    for name, spec in items:
        fn, units = spec if isinstance(spec, tuple) else (spec, "")
        if not callable(fn):
            raise TypeError(f"observable {name!r} must be a function of the trajectory; got {type(fn).__name__}")
        out[str(name)] = (fn, units)
    if not out:
        raise ValueError("observables must name at least one function of the trajectory")
    return out


def _prepare(folder: Path, attrs: dict[str, str]) -> Path:
    """Create `folder` or check that the chunks already in it belong to this study."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"directory {str(folder)!r} is a file; give a folder for the chunk files")
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(folder.glob("chunk_*.nc")):
        try:
            with xr.open_dataset(path, engine="netcdf4") as ds:
                theirs = {k: ds.attrs.get(k) for k in attrs}
        except (OSError, ValueError, RuntimeError) as err:
            raise ValueError(
                f"chunk {str(path)!r} cannot be read ({err}); delete it and rerun to recompute it"
            ) from None
        differ = [k for k in attrs if str(theirs[k]) != str(attrs[k])]
        if differ:
            what = {"problem_fingerprint": "the model, protocol, time grid, solver options or observable definitions"}
            named = ", ".join(what.get(k, k) for k in differ)
            raise ValueError(
                f"{str(path)!r} belongs to another study: {named} differ ({theirs['design']}, observables "
                f"{theirs['observables']!r}, chunk_size {theirs['chunk_size']}); use a new directory (existing chunks "
                "are never overwritten)"
            )
    return folder


def _finished(folder: Path, i: int) -> bool:
    """True if chunk `i` is on disk and intact (a corrupt one raises)."""
    path = chunk_path(folder, i)
    if not path.exists():
        return False
    _check_chunk(path)
    return True


def _check_chunk(path: Path) -> None:
    """Refuse a finished chunk that is readable but not what was written (checksum of its arrays)."""
    try:
        with xr.open_dataset(path, engine="netcdf4") as ds:
            ok = "checksum" not in ds.attrs or ds.attrs["checksum"] == dataset_checksum(ds.load())
    except (OSError, ValueError, RuntimeError) as err:
        raise ValueError(f"chunk {str(path)!r} cannot be read ({err}); delete it and rerun to recompute it") from None
    if not ok:
        raise ValueError(f"chunk {str(path)!r} is corrupt (its arrays do not match their checksum); delete it and "
                         "rerun to recompute it")  # fmt: skip


def _as_grid(ds: xr.Dataset, design) -> xr.Dataset:
    """Reshape the `sample` dimension into one dimension per grid parameter."""
    names = list(design.values)
    out = ds.drop_vars(names).assign_coords(sample=np.arange(ds.sizes["sample"]))
    reshaped = {}
    for var in out.data_vars:
        da = out[var]
        shape = (*design.shape, *da.shape[1:])
        data = da.data.reshape(shape)
        reshaped[var] = xr.Variable((*names, *da.dims[1:]), data, da.attrs)
    coords: dict[str, tuple] = {name: (name, values, ds[name].attrs) for name, values in design.values.items()}
    if "parameter" in ds.coords:  # the derivatives' axis
        coords["parameter"] = ("parameter", ds["parameter"].values)
    return xr.Dataset(reshaped, coords=coords, attrs=ds.attrs)
