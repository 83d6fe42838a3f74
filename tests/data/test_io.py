"""netCDF io: atomic writes that never clobber, checked reads."""

import numpy as np
import pytest
import xarray as xr

from difflab.io import DataFileError, read_netcdf, write_netcdf


def _dataset(value=1.0):
    return xr.Dataset({"V": ("time", np.full(3, value), {"units": "mV"})}, coords={"time": [0.0, 1.0, 2.0]})


def test_write_then_read_round_trip(tmp_path):
    path = write_netcdf(_dataset(), tmp_path / "out" / "run.nc")
    ds = read_netcdf(path, required={"V": "mV", "time": None})
    xr.testing.assert_identical(ds, _dataset())
    assert [p.name for p in path.parent.iterdir()] == ["run.nc"]  # no temporary file left behind


def test_existing_file_is_never_overwritten_unless_asked(tmp_path):
    path = write_netcdf(_dataset(1.0), tmp_path / "run.nc")
    with pytest.raises(FileExistsError, match="exists; pass overwrite=True"):
        write_netcdf(_dataset(2.0), path)
    assert float(read_netcdf(path)["V"][0]) == 1.0
    write_netcdf(_dataset(2.0), path, overwrite=True)
    assert float(read_netcdf(path)["V"][0]) == 2.0


def test_failed_write_leaves_the_old_file(tmp_path):
    path = write_netcdf(_dataset(1.0), tmp_path / "run.nc")
    bad = xr.Dataset({"obj": ("x", np.array([object(), object()]))})
    with pytest.raises(Exception):  # noqa: B017 - netCDF4 refuses object arrays with various types
        write_netcdf(bad, path, overwrite=True)
    assert float(read_netcdf(path)["V"][0]) == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.nc"]


def test_reads_are_checked(tmp_path):
    path = write_netcdf(_dataset(), tmp_path / "run.nc")
    with pytest.raises(DataFileError, match=r"lacks variable 'm' \(it has: V, time\)"):
        read_netcdf(path, required={"m": None})
    with pytest.raises(DataFileError, match="variable 'V' must be in 'V'; its units are 'mV'"):
        read_netcdf(path, required={"V": "V"})
    corrupt = tmp_path / "corrupt.nc"
    corrupt.write_bytes(b"CDF\x01 this is not really netCDF")
    with pytest.raises(DataFileError, match="is not a readable netCDF file"):
        read_netcdf(corrupt)
    with pytest.raises(DataFileError, match="does not exist"):
        read_netcdf(tmp_path / "missing.nc")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        write_netcdf(_dataset(), tmp_path)


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler (KeyboardInterrupt) for the test, whatever the run started with: a suite started
    in the background or with ``nohup`` ignores SIGINT. The handler found is put back afterwards."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_ctrl_c_during_a_write_finishes_the_file_first(tmp_path, monkeypatch, python_sigint):
    import os
    import signal

    import xarray as xr

    from difflab.data._netcdf import write_netcdf

    original = xr.Dataset.to_netcdf

    def interrupted(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C arrives while netCDF4 is writing
        return original(self, *args, **kwargs)

    monkeypatch.setattr(xr.Dataset, "to_netcdf", interrupted)
    ds = xr.Dataset({"v": ("x", [1.0, 2.0, 3.0])})
    with pytest.raises(KeyboardInterrupt):
        write_netcdf(ds, tmp_path / "out.nc")
    monkeypatch.setattr(xr.Dataset, "to_netcdf", original)
    with xr.open_dataset(tmp_path / "out.nc") as back:  # complete, not half written
        assert back["v"].values.tolist() == [1.0, 2.0, 3.0]
    assert not list(tmp_path.glob(".*difflab-tmp"))


def test_a_held_back_ctrl_c_is_never_dropped_and_reads_hold_it_back_too(tmp_path, monkeypatch, python_sigint):
    """A Ctrl-C held back during a write that then fails, or during a read, still stops the program."""
    import os
    import signal

    import xarray as xr

    from difflab.data._netcdf import read_netcdf, write_netcdf

    def failing(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)
        raise OSError("disk full")

    monkeypatch.setattr(xr.Dataset, "to_netcdf", failing)
    with pytest.raises(KeyboardInterrupt):  # not the OSError alone: the interrupt would have been lost
        write_netcdf(xr.Dataset({"v": ("x", [1.0])}), tmp_path / "a.nc")
    monkeypatch.undo()
    write_netcdf(xr.Dataset({"v": ("x", [1.0, 2.0])}), tmp_path / "b.nc")
    original = xr.Dataset.load

    def interrupted_load(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C arrives while netCDF4 is reading
        return original(self, *args, **kwargs)

    monkeypatch.setattr(xr.Dataset, "load", interrupted_load)
    with pytest.raises(KeyboardInterrupt):
        read_netcdf(tmp_path / "b.nc")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_held_back_ctrl_c_reaches_the_callers_own_handler_or_stays_ignored(tmp_path, monkeypatch):
    """The signal held back during a write goes to the handler that was there before: a handler of the caller's
    own is called once, and an ignored SIGINT (a background or ``nohup`` job) stays ignored, with the file written."""
    import os
    import signal

    import xarray as xr

    from difflab.data._netcdf import write_netcdf

    original = xr.Dataset.to_netcdf

    def interrupted(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(xr.Dataset, "to_netcdf", interrupted)
    calls = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:
        write_netcdf(xr.Dataset({"v": ("x", [1.0])}), tmp_path / "own.nc")
        assert calls == [signal.SIGINT]
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        write_netcdf(xr.Dataset({"v": ("x", [2.0])}), tmp_path / "ignored.nc")
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    monkeypatch.undo()
    assert xr.load_dataset(tmp_path / "ignored.nc")["v"].values.tolist() == [2.0]
    assert xr.load_dataset(tmp_path / "own.nc")["v"].values.tolist() == [1.0]


def test_written_files_follow_the_umask_and_stale_temporaries_are_removed(tmp_path):
    import os
    import subprocess
    import sys

    import xarray as xr

    from difflab.data._netcdf import write_netcdf

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".out.nc.pid{int(dead.stdout)}.abcd1234.difflab-tmp"  # left by a killed writer
    stale.write_bytes(b"partial")
    old = os.umask(0o022)
    try:
        path = write_netcdf(xr.Dataset({"v": ("x", [1.0])}), tmp_path / "out.nc")
    finally:
        os.umask(old)
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)
    assert not stale.exists()
