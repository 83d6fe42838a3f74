"""`Comparison` and `RunOptions`: checked when made, and the old keywords of `calibrate` still work, with a warning."""

import numpy as np
import pytest
from _systems import Decay, decay_data

import difflab

# test_calibrate.py's problem (41 samples, these transforms): in its group, these fits reuse its compiled step
pytestmark = pytest.mark.xdist_group("decay_fit")
DATA = decay_data(noise=0.01, seed=3)
PARAMS = {"k": difflab.Positive(), "y0": difflab.Bounded(0.1, 10.0)}


def fit(**kwargs):
    return difflab.calibrate(Decay(k=1.0, y0=1.0), None, DATA, params=PARAMS, steps=8, **kwargs)


def test_old_keywords_warn_with_the_new_spelling_and_fit_the_same(tmp_path):
    new = fit(
        compare=difflab.Comparison(variables=["y"]),
        run=difflab.RunOptions(strategy="multistart", checkpoint=tmp_path / "new.nc", checkpoint_every=3),
    )
    with pytest.warns(DeprecationWarning) as caught:
        old = fit(variables=["y"], strategy="multistart", checkpoint=tmp_path / "old.nc", checkpoint_every=3)
    said = sorted(str(w.message) for w in caught if w.category is DeprecationWarning)
    assert said == [
        "calibrate(checkpoint=...) is deprecated and goes at 0.3: pass run=difflab.RunOptions(checkpoint=...)",
        "calibrate(checkpoint_every=...) is deprecated and goes at 0.3: pass "
        "run=difflab.RunOptions(checkpoint_every=...)",
        "calibrate(strategy=...) is deprecated and goes at 0.3: pass run=difflab.RunOptions(strategy=...)",
        "calibrate(variables=...) is deprecated and goes at 0.3: pass compare=difflab.Comparison(variables=...)",
    ]
    # the warnings point at the caller's line
    assert all(w.filename == __file__ for w in caught if w.category is DeprecationWarning)
    assert old.best["k"] == new.best["k"] and old.strategy == new.strategy == "multistart"
    assert (tmp_path / "old.nc").is_file() and old.checkpoint == tmp_path / "old.nc"
    np.testing.assert_array_equal(old.history["loss"], new.history["loss"])


def test_old_and_new_spelling_of_one_group_together_are_refused():
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(TypeError, match=r"calibrate\(\): progress given both as keywords and through run=; give them"),
    ):
        fit(progress=False, run=difflab.RunOptions())
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'stepz'"):
        fit(stepz=3)


def test_options_refuse_bad_fields_by_name():
    cases = [
        (lambda: difflab.RunOptions(checkpoint_every=0), ValueError, "checkpoint_every must be a whole number"),
        (lambda: difflab.RunOptions(strategy="global"), ValueError, "strategy must be one of"),
        (lambda: difflab.RunOptions(refine="yes"), TypeError, "refine must be True or False; got 'yes'"),
        (lambda: difflab.RunOptions(progress=1), TypeError, "progress must be True, False or None; got 1"),
        (lambda: difflab.RunOptions(checkpoint=3), TypeError, "checkpoint must be a file path"),
        (lambda: difflab.RunOptions(client="tcp://x:1", callback=print), ValueError, "client: checkpoint, resume and"),
        (lambda: difflab.RunOptions(strategy="windows", resume="a.nc"), ValueError, "not available with GrowingWin"),
        (lambda: difflab.Comparison(variables=[1]), TypeError, "variables must be a non-empty list of variable names"),
        (lambda: difflab.Comparison(observe=3), TypeError, "observe must be a function observe"),
        (lambda: difflab.Comparison(ts=[0.0, 2.0, 1.0]), ValueError, "ts"),
        (lambda: difflab.Comparison(ts=[[0.0, 1.0]]), ValueError, r"ts must be a 1-D array .* got shape \(1, 2\)"),
        (lambda: fit(run={"progress": False}), TypeError, r"run must be a difflab.RunOptions or None; got a dict"),
    ]
    for make, error, message in cases:
        with pytest.raises(error, match=message):
            make()
    assert difflab.Comparison(variables="y").variables == ("y",)
    assert difflab.RunOptions(strategy="windows").strategy == difflab.GrowingWindows()
