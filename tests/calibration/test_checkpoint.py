"""Checkpoints: resume continues exactly, Ctrl-C leaves a valid file, foreign checkpoints are refused."""

import numpy as np
import pytest
from _systems import Decay, decay_data

from difflab.calibration import Bounded, Positive, RunOptions, calibrate

# A few Adam steps stop far from the optimum, which the fit rightly reports as a misfit warning.
pytestmark = pytest.mark.filterwarnings("ignore::difflab.CalibrationWarning")

PARAMS = {"k": Positive(), "y0": Bounded(0.1, 10.0)}
DATA = decay_data(noise=0.05, seed=5)


def fit(steps, optimizer="adam", **run):
    return calibrate(
        Decay(k=1.0, y0=1.0), None, DATA, params=PARAMS, optimizer=optimizer, steps=steps, run=RunOptions(**run)
    )


@pytest.mark.parametrize("optimizer", ["adam", "lm"])
def test_resume_continues_exactly(tmp_path, optimizer):
    straight = fit(12, optimizer)
    path = tmp_path / "fit.nc"
    first = fit(5, optimizer, checkpoint=path, checkpoint_every=2)
    assert first.steps == 5 and path.exists()
    resumed = fit(12, optimizer, resume=path)
    assert resumed.steps == straight.steps
    for name in PARAMS:
        assert resumed.best[name] == straight.best[name]  # bit for bit
    np.testing.assert_array_equal(resumed.history["loss"].values, straight.history["loss"].values)


def test_ctrl_c_leaves_a_valid_checkpoint(tmp_path):
    path = tmp_path / "fit.nc"

    def interrupt(step, losses):
        if step == 7:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fit(12, checkpoint=path, checkpoint_every=5, callback=interrupt)
    resumed = fit(12, resume=path)
    straight = fit(12)
    assert resumed.best["k"] == straight.best["k"]
    np.testing.assert_array_equal(resumed.history["loss"].values, straight.history["loss"].values)


def test_existing_file_is_never_overwritten(tmp_path):
    path = tmp_path / "mine.nc"
    path.write_text("user data")
    with pytest.raises(FileExistsError, match="never overwritten"):
        fit(3, checkpoint=path)
    assert path.read_text() == "user data"


def test_checkpoint_of_another_fit_is_refused(tmp_path):
    path = tmp_path / "fit.nc"
    fit(3, checkpoint=path)
    with pytest.raises(ValueError, match="different fit: parameters"):
        calibrate(
            Decay(),
            None,
            DATA,
            params={"k": Positive()},
            optimizer="adam",
            steps=6,
            run=RunOptions(resume=path),
        )
    with pytest.raises(ValueError, match="different fit: data_fingerprint"):
        calibrate(Decay(), None, decay_data(), params=PARAMS, optimizer="adam", steps=6, run=RunOptions(resume=path))
    with pytest.raises(ValueError, match="different fit: optimizer"):
        fit(6, "lm", resume=path)


def test_checkpoint_of_another_model_class_is_refused(tmp_path):
    from _systems import OtherDecay

    path = tmp_path / "fit.nc"
    fit(3, checkpoint=path)
    with pytest.raises(ValueError, match="different fit: model_class"):
        calibrate(OtherDecay(), None, DATA, params=PARAMS, optimizer="adam", steps=6, run=RunOptions(resume=path))


def test_not_a_checkpoint_is_refused(tmp_path):
    import xarray as xr

    path = tmp_path / "other.nc"
    xr.Dataset({"a": ("x", np.arange(3.0))}).to_netcdf(path)
    with pytest.raises(ValueError, match="not a difflab calibration checkpoint"):
        fit(3, resume=path)


@pytest.mark.slow
def test_resume_of_a_changed_problem_is_refused(tmp_path):
    import diffrax

    import difflab

    path = tmp_path / "fit.nc"

    def only_k(steps, model=None, bounds=(0.1, 10.0), protocol=None, options=None, resume=None, checkpoint=None):
        model = Decay(k=1.0, y0=2.0) if model is None else model
        return calibrate(model, protocol, DATA, params={"k": Bounded(*bounds)}, optimizer="adam", steps=steps,
                         options=options, run=RunOptions(resume=resume, checkpoint=checkpoint))  # fmt: skip

    only_k(3, checkpoint=path)
    changed = {
        "fixed parameters": dict(model=Decay(k=1.0, y0=2.5)),
        "bounds": dict(bounds=(0.1, 20.0)),
        "protocol": dict(protocol=difflab.Constant(0.1)),
        "simulation times and options": dict(
            options=difflab.SolveOptions(stepsize_controller=diffrax.PIDController(rtol=1e-3, atol=1e-6))
        ),
    }
    for what, change in changed.items():  # the refusal names the part that differs
        with pytest.raises(ValueError, match=rf"different fit: it differs from this one in its {what}"):
            only_k(6, resume=path, **change)
        print(what, "refused")
    # the same problem resumes, also with another start value of the fitted parameter
    assert only_k(6, model=Decay(k=0.7, y0=2.0), resume=path).steps == 6


def test_an_unwritable_checkpoint_is_refused_before_any_step(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    steps = []
    with pytest.raises(ValueError, match="cannot be written"):
        fit(5, checkpoint=blocker / "fit.nc", callback=lambda step, losses: steps.append(step))
    assert steps == [] and blocker.read_text() == "not a folder"


def test_a_corrupted_checkpoint_is_refused(tmp_path):
    import netCDF4

    path = tmp_path / "fit.nc"
    fit(3, checkpoint=path)
    with netCDF4.Dataset(path, "r+") as nc:  # a flipped value in the stored parameters, the file still readable
        nc["theta__k"][0] = nc["theta__k"][0] + 0.5
    with pytest.raises(ValueError, match="is corrupt"):
        fit(6, resume=path)
