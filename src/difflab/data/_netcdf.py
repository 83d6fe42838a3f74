"""netCDF input/output: atomic writes (never a half-written file) and checked reads."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import xarray as xr

from ._fingerprint import dataset_checksum


class DataFileError(ValueError):
    """A data file is missing, corrupt, or lacks what the caller needs."""


def write_netcdf(ds: xr.Dataset, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write `ds` to `path` atomically (temporary file in the same folder, then rename).

    An existing file is never replaced unless `overwrite=True`, and a failure half way
    leaves whatever was at `path` untouched. Ctrl-C during the write is held back until the
    file is complete and renamed, then raised (interrupting netCDF4/HDF5 inside xarray's file
    lock can deadlock the process). The temporary file is named after the writing process, so
    a later write to the same folder removes those left by a killed process. The file gets the
    permissions of any new file (`0o666` less the umask), not `mkstemp`'s private `0o600`.

    Returns:
        The path written.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"path must be a file name; {str(path)!r} is a directory")
    if path.exists() and not overwrite:
        raise FileExistsError(f"{str(path)!r} exists; pass overwrite=True to replace it")
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.pid{os.getpid()}.", suffix=TEMP_SUFFIX, dir=path.parent)
    os.close(fd)
    with _interrupts_deferred():
        try:
            ds.to_netcdf(tmp, engine="netcdf4")
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return path


def ensure_writable_folder(folder: Path) -> None:
    """Make `folder` if needed and check that a new file can be created in it (`OSError` if not).

    Called before long work whose result goes there, so that a bad path fails first, not last.
    """
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=folder):
        pass


def checkpoint_path(checkpoint: str | os.PathLike | None, resume: str | os.PathLike | None, work: str):
    """The file a long `work` (``"fit"``, ``"posterior"``) checkpoints to, checked before the work begins.

    `checkpoint`, or `resume` when only it is given (the run goes on writing where it resumed from).

    Refused now, not after the first steps: an existing file that is not `resume` (never overwritten), or a folder
    where no file can be written.
    """
    if checkpoint is None:
        return resume
    if os.path.exists(checkpoint) and (resume is None or os.path.abspath(checkpoint) != os.path.abspath(resume)):
        raise FileExistsError(
            f"checkpoint {str(checkpoint)!r} exists; pass resume={str(checkpoint)!r} to continue that {work}, "
            "or choose a new file (an existing file is never overwritten)"
        )
    folder = Path(checkpoint).resolve().parent
    try:
        ensure_writable_folder(folder)
    except OSError as err:
        raise ValueError(f"checkpoint {str(checkpoint)!r} cannot be written ({err.strerror}: {folder})") from None
    return checkpoint


def read_checkpoint(path: str | os.PathLike, form: str, kind: str, work: str, *, unsummed_ok: bool = False):
    """The checkpoint Dataset at `path`, refused unless it has the format `form` and its arrays match its checksum.

    `kind` names the checkpoint in the refusal (``"calibration"``), `work` what to start instead (``"fit"``).
    `unsummed_ok`: a file written before checkpoints carried a checksum is read unchecked.
    """
    ds = read_netcdf(path)
    if ds.attrs.get("format") != form:
        raise ValueError(f"{str(path)!r} is not a difflab {kind} checkpoint (format {ds.attrs.get('format')!r})")
    if (not unsummed_ok or "checksum" in ds.attrs) and ds.attrs.get("checksum") != dataset_checksum(ds):
        raise ValueError(
            f"checkpoint {str(path)!r} is corrupt: its arrays do not match the checksum written with them; "
            f"resume from another copy or start a new {work}"
        )
    return ds


def listed(names: Sequence[str]) -> str:
    """`names` as a phrase: ``"noise"``, ``"noise and key"``, ``"model, noise and key"`` (``""`` for none)."""
    names = list(names)
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


#: Suffix of the temporary files of atomic writes (`.<name>.pid<pid>.<random>.difflab-tmp`).
TEMP_SUFFIX = ".difflab-tmp"


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Delete temporary files of atomic writes in `folder` whose writing process no longer exists."""
    removed = []
    for tmp in folder.glob(f".*{TEMP_SUFFIX}"):
        found = re.search(r"\.pid(\d+)\.[^.]*" + re.escape(TEMP_SUFFIX) + "$", tmp.name)
        pid = int(found.group(1)) if found else None
        if pid is None or pid == os.getpid() or _alive(pid):
            continue
        tmp.unlink(missing_ok=True)
        removed.append(tmp)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def umask() -> int:
    """The process's file-creation mask (read without changing it for longer than two calls)."""
    return _umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _interrupts_deferred():
    """Hold SIGINT back while the block runs (main thread only), then deliver it to the handler it was meant for.

    A Ctrl-C held back is never dropped: when the block ends (also in another exception, which then becomes the
    interrupt's context) the signal is raised again with the caller's handler back in place. Python's default
    handler raises KeyboardInterrupt, so the program stops as the user asked; an ignored SIGINT (a job started with
    ``nohup`` or in the background) stays ignored, and a handler of the caller's own is called as it would have been.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            signal.raise_signal(signal.SIGINT)


def read_netcdf(path: str | os.PathLike, *, required: Mapping[str, str | None] | None = None) -> xr.Dataset:
    """Read a netCDF file fully into memory and check it.

    Args:
        path: file to read.
        required: variable name -> expected `units` attribute (`None`: any units).

    Raises:
        DataFileError: the file is missing, is not readable netCDF, or lacks a required
            variable or has it in other units.
    """
    path = Path(path)
    if not path.is_file():
        raise DataFileError(f"netCDF file {str(path)!r} does not exist")
    try:
        with _interrupts_deferred(), xr.open_dataset(path, engine="netcdf4") as ds:
            ds = ds.load()  # Ctrl-C inside netCDF4/HDF5 under xarray's lock can deadlock: held back here too
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
