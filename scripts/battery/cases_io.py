"""Battery cases, classes 13: netCDF files."""

from __future__ import annotations

from battery.framework import ROOT, case, units_data


@case("io.read-netcdf-truncated", "13", r"rec.nc.*not a readable netCDF")
def _(ctx):
    import difflab

    path = ctx.tmp / "rec.nc"
    difflab.write_netcdf(units_data("mV", "ms", 1.0, 1.0), path)
    path.write_bytes(path.read_bytes()[:300])
    return difflab.read_netcdf(path)


@case("io.read-netcdf-text", "13", r"rec.nc.*not a readable netCDF")
def _(ctx):
    import difflab

    (ctx.tmp / "rec.nc").write_text("time,V\n0,1\n")
    return difflab.read_netcdf(ctx.tmp / "rec.nc")


@case("io.interrupt-and-mode-tests-exist", "7/20", check=lambda found: (all(found.values()), str(found)))
def _(ctx):
    text = (ROOT / "tests" / "data" / "test_io.py").read_text()
    names = ("test_ctrl_c_during_a_write_finishes_the_file_first",
             "test_written_files_follow_the_umask_and_stale_temporaries_are_removed")  # fmt: skip
    return {n: f"def {n}(" in text for n in names}
