"""sweep on dy/dt = -k y: grid and sampled designs, exact observables, chunks on disk that resume."""

import dask.array
import diffrax
import numpy as np
import pytest
import xarray as xr
from _systems import Decay

import difflab
from difflab.ensembles import Grid, LatinHypercube, RandomDesign, Sobol, sweep
from difflab.ensembles._chunks import _with_partials
from difflab.ensembles._ensemble import make_batch, shared_fixed_step
from difflab.neuron import HodgkinHuxley

TS = np.linspace(0.0, 2.0, 5)


def final(traj):
    return traj.ys["y"][-1]


OBS = {"final": (final, "mV"), "halfway": lambda traj: traj.ys["y"][2]}


def test_grid_gives_one_dimension_per_parameter():
    design = Grid(k=np.linspace(0.1, 1.0, 4), y0=[1.0, 2.0, 3.0])
    ds = sweep(Decay(), None, TS, design, OBS, chunk_size=5)
    assert ds["final"].dims == ("k", "y0") and ds["final"].shape == (4, 3)
    exact = ds["y0"] * np.exp(-ds["k"] * 2.0)
    xr.testing.assert_allclose(ds["final"], exact.transpose("k", "y0"), rtol=1e-5)
    assert ds["final"].attrs["units"] == "mV"
    assert int(ds["solver_ok"].sum()) == 12


@pytest.mark.parametrize("design_cls", [RandomDesign, LatinHypercube, Sobol])
def test_sampled_designs_give_a_sample_dimension(design_cls):
    design = design_cls(8, {"k": (0.1, 1.0), "y0": (1.0, 3.0)}, seed=1)
    ds = sweep(Decay(), None, TS, design, OBS)
    assert ds["final"].dims == ("sample",) and ds.sizes["sample"] == 8
    assert float(ds["k"].min()) >= 0.1 and float(ds["k"].max()) <= 1.0
    np.testing.assert_allclose(ds["final"], ds["y0"] * np.exp(-ds["k"] * 2.0), rtol=1e-5)


def test_latin_hypercube_fills_every_stratum():
    k = LatinHypercube(10, {"k": (0.0, 1.0)}, seed=0).points()["k"]
    assert sorted(np.floor(k * 10).astype(int)) == list(range(10))


def test_chunks_on_disk_resume_and_open_lazily(tmp_path):
    design = Grid(k=np.linspace(0.1, 1.0, 6), y0=[1.0, 2.0])
    first = sweep(Decay(), None, TS, design, OBS, chunk_size=5, directory=tmp_path).load()
    files = sorted(tmp_path.glob("chunk_*.nc"))
    assert len(files) == 3
    # each chunk file is stamped with its number and checksum; the whole study is not (they are the first chunk's)
    with xr.open_dataset(files[1]) as one:
        assert one.attrs["chunk"] == 1 and "checksum" in one.attrs
    assert "chunk" not in first.attrs and "checksum" not in first.attrs and "problem_fingerprint" in first.attrs
    mtimes = {f.name: f.stat().st_mtime_ns for f in files}
    files[1].unlink()  # as if the run had stopped before finishing chunk 1
    again = sweep(Decay(), None, TS, design, OBS, chunk_size=5, directory=tmp_path)
    assert isinstance(again["final"].data, dask.array.Array)
    xr.testing.assert_allclose(again.load(), first)
    for f in (files[0], files[2]):
        assert f.stat().st_mtime_ns == mtimes[f.name]  # finished chunks were skipped
    assert files[1].exists()


def test_directory_of_another_study_is_refused(tmp_path):
    sweep(Decay(), None, TS, Grid(k=[0.1, 0.2]), OBS, directory=tmp_path)
    with pytest.raises(ValueError, match="belongs to another study"):
        sweep(Decay(), None, TS, Grid(k=[0.3, 0.4]), OBS, directory=tmp_path)


def test_chunks_of_a_changed_problem_are_never_reused(tmp_path):
    import difflab

    design = Grid(k=np.linspace(0.1, 1.0, 4))
    sweep(Decay(), None, TS, design, OBS, chunk_size=2, directory=tmp_path)
    changed = {
        "protocol": dict(protocol=difflab.Constant(0.5)),
        "time grid": dict(ts=TS * 2),
        "base model": dict(model=Decay(y0=3.0)),
        "chunk_size": dict(chunk_size=3),
        "observable definition": dict(observables={"final": (lambda traj: traj.ys["y"][0], "mV"), "halfway": final}),
    }
    for what, change in changed.items():
        args = {"model": Decay(), "protocol": None, "ts": TS, "observables": OBS, "chunk_size": 2, **change}
        with pytest.raises(ValueError, match="belongs to another study"):
            sweep(args["model"], args["protocol"], args["ts"], design, args["observables"],
                  chunk_size=args["chunk_size"], directory=tmp_path)  # fmt: skip
        print(what, "refused")
    assert len(list(tmp_path.glob("chunk_*.nc"))) == 2  # nothing overwritten, nothing added


WINDOW = 2


def test_an_observable_that_reads_other_functions_or_values_is_another_study(tmp_path):
    """Same bytecode, other result: another reducer, another closure value, another global it reads."""
    import jax.numpy as jnp

    def reduce_with(f):
        return {"r": lambda traj: f(traj.ys["y"])}

    def first(n):
        return {"r": lambda traj: jnp.sum(traj.ys["y"][:n])}

    def by_global(traj):
        return jnp.sum(traj.ys["y"][:WINDOW])

    design = Grid(k=[0.1, 0.2])
    for made, other in ((reduce_with(jnp.max), reduce_with(jnp.min)), (first(2), first(3))):
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        sweep(Decay(), None, TS, design, made, directory=folder)
        sweep(Decay(), None, TS, design, made, directory=folder)  # the same observable resumes
        with pytest.raises(ValueError, match="belongs to another study"):
            sweep(Decay(), None, TS, design, other, directory=folder)
    folder = tmp_path / "global"
    sweep(Decay(), None, TS, design, {"r": by_global}, directory=folder)
    global WINDOW
    WINDOW, before = 3, WINDOW
    try:
        with pytest.raises(ValueError, match="belongs to another study"):
            sweep(Decay(), None, TS, design, {"r": by_global}, directory=folder)
    finally:
        WINDOW = before


def test_an_observable_that_returns_a_string_is_refused_by_name():
    with pytest.raises(TypeError, match=r"observable 's' must return a number or an array of numbers; got str 'abc'"):
        sweep(Decay(), None, TS, Grid(k=[0.1, 0.2]), {"s": lambda traj: "abc"})


def test_bad_designs_and_names():
    with pytest.raises(ValueError, match="lo < hi"):
        RandomDesign(4, {"k": (1.0, 1.0)})
    with pytest.raises(ValueError, match="power of 2"):
        Sobol(10, {"k": (0.0, 1.0)})
    with pytest.raises(KeyError, match="unknown parameter 'q'"):
        sweep(Decay(), None, TS, Grid(q=[1.0]), OBS)
    with pytest.raises(TypeError, match="must be a function"):
        sweep(Decay(), None, TS, Grid(k=[1.0]), {"x": 3})


def test_a_corrupted_chunk_is_refused_not_reused(tmp_path):
    import netCDF4

    design = Grid(k=np.linspace(0.1, 1.0, 4))
    first = sweep(Decay(), None, TS, design, OBS, chunk_size=2, directory=tmp_path).load()
    again = sweep(Decay(), None, TS, design, OBS, chunk_size=2, directory=tmp_path).load()  # intact: reused
    xr.testing.assert_identical(again, first)
    with netCDF4.Dataset(tmp_path / "chunk_00001.nc", "r+") as nc:  # one value changed, file still readable
        nc["final"][0] = nc["final"][0] + 0.25
    with pytest.raises(ValueError, match=r"chunk_00001.nc' is corrupt .* delete it and rerun"):
        sweep(Decay(), None, TS, design, OBS, chunk_size=2, directory=tmp_path)


def test_bad_chunk_sizes_a_file_as_directory_and_a_truncated_chunk_are_refused_by_name(tmp_path):
    design = Grid(k=np.linspace(0.1, 1.0, 4))
    for bad in (0, -1):
        with pytest.raises(
            ValueError, match=rf"chunk_size must be a whole number >= 1 \(points per chunk\); got {bad}"
        ):
            sweep(Decay(), None, TS, design, OBS, chunk_size=bad)
    (tmp_path / "notes").write_text("mine")
    with pytest.raises(ValueError, match=r"directory '.*notes' is a file; give a folder"):
        sweep(Decay(), None, TS, design, OBS, directory=tmp_path / "notes")
    assert (tmp_path / "notes").read_text() == "mine"
    sweep(Decay(), None, TS, design, OBS, chunk_size=2, directory=tmp_path / "study")
    chunk = tmp_path / "study" / "chunk_00001.nc"
    chunk.write_bytes(chunk.read_bytes()[:200])  # an interrupted copy
    with pytest.raises(ValueError, match=r"chunk_00001.nc' cannot be read .*; delete it and rerun"):
        sweep(Decay(), None, TS, design, OBS, chunk_size=2, directory=tmp_path / "study")


def test_an_unphysical_design_point_is_refused_before_any_chunk_runs(tmp_path):
    from difflab.neuron import HodgkinHuxley

    design = Grid(gK=[36.0, 30.0, -18.0])
    with pytest.raises(ValueError, match=r"design point 2 \(gK=-18.0\): gK must be >= 0 mS/cm\^2; got -18.0"):
        sweep(HodgkinHuxley.squid_axon(), None, TS, design, OBS, chunk_size=1, directory=tmp_path)
    assert not list(tmp_path.glob("chunk_*.nc"))  # the physical points were not run first


def test_sweep_reports_one_line_per_chunk_off_a_terminal(capsys):
    sweep(Decay(), None, TS, Grid(k=[0.1, 0.4, 0.7, 1.0], y0=[1.0, 2.0]), OBS, chunk_size=3, progress=True)
    lines = [line.split("] ")[1] for line in capsys.readouterr().err.splitlines()]
    assert lines == ["chunk 0 (points 0-2)", "chunk 1 (points 3-5)", "chunk 2 (points 6-7)"]


def test_derivatives_are_the_exact_partials_of_the_observables():
    # final = y0 exp(-2 k): d/dk = -2 y0 exp(-2 k), d/dy0 = exp(-2 k); the solve's tolerance bounds the error
    design = Sobol(8, {"k": (0.1, 1.0), "y0": (1.0, 3.0)}, seed=1)
    ds = sweep(Decay(), None, TS, design, {"final": final}, chunk_size=5, derivatives=True, rtol=1e-10, atol=1e-10)
    assert ds["d_final"].dims == ("sample", "parameter") and list(ds["parameter"].values) == ["k", "y0"]
    k, y0 = ds["k"].values, ds["y0"].values
    np.testing.assert_allclose(ds["d_final"].sel(parameter="k"), -2 * y0 * np.exp(-2 * k), rtol=1e-8)
    np.testing.assert_allclose(ds["d_final"].sel(parameter="y0"), np.exp(-2 * k), rtol=1e-8)


def test_fixed_step_derivatives_run_on_the_plain_sweeps_loop_and_step():
    """The squid axon's forward-mode partials: on the fixed-step scan at the members' shared step (resolved from the
    concrete values; traced, it would force diffrax's while loop), the values equal the plain sweep's and the
    partials central differences (h = 1e-4 of each interval) to 2e-6 relative."""
    cell, step, ts = HodgkinHuxley.squid_axon(), difflab.Step(10.0, 2.0, 12.0), np.arange(0.0, 12.0 + 1e-9, 0.1)
    values = {"gNa": np.array([114.0, 120.0, 126.0]), "celsius": np.array([6.3, 7.3, 8.3])}
    batch = make_batch(cell, **values)
    assert shared_fixed_step(batch, step) == 0.0390625  # 5/128 ms: celsius 8.3 halves the default step
    assert shared_fixed_step(batch, step, dt0=0.01) is None  # given: the caller's
    assert shared_fixed_step(batch, step, stepsize_controller=diffrax.PIDController(rtol=1e-6, atol=1e-6)) is None
    peak = (("peak", lambda traj: traj["V"].max()),)
    (ok, _, provenance), got, partials = _with_partials(cell, step, ts, values, peak, {})
    assert dict(provenance)["loop"] == "scan" and np.all(np.asarray(ok))
    plain = sweep(cell, step, ts, Grid(**{k: list(v) for k, v in values.items()}), {"peak": peak[0][1]}, progress=False)
    diagonal = plain["peak"].values.reshape(3, 3)[np.arange(3), np.arange(3)]  # the grid holds the three points
    np.testing.assert_allclose(np.asarray(got["peak"]), diagonal, rtol=1e-13)
    for j, (name, h) in enumerate((("gNa", 1.2e-3), ("celsius", 2e-4))):
        up = {k: v + (h if k == name else 0.0) for k, v in values.items()}
        down = {k: v - (h if k == name else 0.0) for k, v in values.items()}
        run = lambda v: np.asarray(difflab.run_ensemble(make_batch(cell, **v), step, ts)["V"].max(axis=1))  # noqa: E731
        np.testing.assert_allclose(np.asarray(partials["peak"])[j], (run(up) - run(down)) / (2 * h), rtol=2e-6)
