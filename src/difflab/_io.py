"""netCDF input/output: atomic writes (never a half-written file) and checked reads."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

import xarray as xr


class DataFileError(ValueError):
    """A data file is missing, corrupt, or lacks what the caller needs."""


def write_netcdf(ds: xr.Dataset, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write ``ds`` to ``path`` atomically (temporary file in the same folder, then rename).

    An existing file is never replaced unless ``overwrite=True``, and a failure half way
    leaves whatever was at ``path`` untouched.

    Returns:
        The path written.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"path must be a file name; {str(path)!r} is a directory")
    if path.exists() and not overwrite:
        raise FileExistsError(f"{str(path)!r} exists; pass overwrite=True to replace it")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        ds.to_netcdf(tmp, engine="netcdf4")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_netcdf(path: str | os.PathLike, *, required: Mapping[str, str | None] | None = None) -> xr.Dataset:
    """Read a netCDF file fully into memory and check it.

    Args:
        path: file to read.
        required: variable name -> expected ``units`` attribute (``None``: any units).

    Raises:
        DataFileError: the file is missing, is not readable netCDF, or lacks a required
            variable or has it in other units.
    """
    path = Path(path)
    if not path.is_file():
        raise DataFileError(f"netCDF file {str(path)!r} does not exist")
    try:
        with xr.open_dataset(path, engine="netcdf4") as ds:
            ds = ds.load()
    except (OSError, ValueError, RuntimeError) as err:
        raise DataFileError(f"{str(path)!r} is not a readable netCDF file: {err}") from err
    for name, units in (required or {}).items():
        if name not in ds.variables:
            have = ", ".join(sorted(map(str, ds.variables)))
            raise DataFileError(f"{str(path)!r} lacks variable {name!r} (it has: {have})")
        got = ds[name].attrs.get("units")
        if units is not None and got != units:
            raise DataFileError(f"{str(path)!r}: variable {name!r} must be in {units!r}; its units are {got!r}")
    return ds
