"""Name -> file resolution, checksum verification and loading."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

import pandas as pd
import xarray as xr

from ._netcdf import DataFileError, read_netcdf
from ._resources import resource_dir


class DatasetError(DataFileError):
    """An unknown, missing, corrupt or altered dataset."""


def available() -> list[str]:
    """All dataset names, `"<group>/<file name>"`, sorted."""
    names = []
    for manifest in sorted(resource_dir("datasets").glob("*/manifest.toml")):
        group = manifest.parent.name
        names += [f"{group}/{f}" for f in _manifest(manifest.parent)]
    return sorted(names)


def path(name: str, *, verify: bool = True) -> Path:
    """The file behind dataset `name`, after checking its sha256 against the manifest."""
    group, _, stem = name.partition("/")
    folder = resource_dir("datasets") / group
    if not stem or not (folder / "manifest.toml").is_file():
        raise DatasetError(f"unknown dataset {name!r}; available: {', '.join(available()) or 'none'}")
    files = _manifest(folder)
    matches = [f for f in files if f == stem or Path(f).stem == stem]
    if len(matches) != 1:
        raise DatasetError(f"unknown dataset {name!r}; available in {group!r}: {', '.join(sorted(files))}")
    file = folder / matches[0]
    if not file.is_file():
        raise DatasetError(f"dataset {name!r} is missing: {str(file)!r} does not exist")
    if verify:
        expected = files[matches[0]]["sha256"]
        got = sha256(file)
        if got != expected:
            raise DatasetError(
                f"dataset {name!r} is corrupt or altered: sha256 of {str(file)!r} is {got}, "
                f"the manifest says {expected}"
            )
    return file


def load(name: str) -> xr.Dataset:
    """Dataset `name` as an `xarray.Dataset` (netCDF read in full; CSV as a table)."""
    file = path(name)
    if file.suffix == ".nc":
        return read_netcdf(file)
    if file.suffix == ".csv":
        return xr.Dataset.from_dataframe(pd.read_csv(file))
    raise DatasetError(f"dataset {name!r}: no loader for {file.suffix!r} files")


def sha256(file: str | Path) -> str:
    """Hex sha256 digest of a file."""
    digest = hashlib.sha256()
    with open(file, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _manifest(folder: Path) -> dict[str, dict]:
    try:
        with open(folder / "manifest.toml", "rb") as fh:
            return tomllib.load(fh).get("files", {})
    except tomllib.TOMLDecodeError as err:
        raise DatasetError(f"{folder / 'manifest.toml'} is not valid TOML: {err}") from err
