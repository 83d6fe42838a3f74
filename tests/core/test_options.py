"""`SolveOptions`: one options object for every entry point, checked when it is made, equal to the keywords."""

import diffrax
import numpy as np
import pytest
from _systems import Relaxation

import difflab
from difflab import SolveOptions

TS = np.linspace(0.0, 4.0, 9)
STEP = difflab.Step(1.0, 0.5, 2.5)


def exact(t, tau=2.0, y0=1.0):
    """tau y' = -y + 1[0.5 <= t < 2.5], y(0) = y0."""
    free = y0 * np.exp(-t / tau)
    rise = 1 - np.exp(-(np.clip(t, 0.5, 2.5) - 0.5) / tau)
    return free + rise * np.exp(-(np.maximum(t, 2.5) - 2.5) / tau)


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        (dict(rtol=-1.0), ValueError, r"rtol must be a finite number >= 0; got -1\.0"),
        (dict(atol=float("nan")), ValueError, r"atol must be a finite number >= 0; got nan"),
        (dict(rtol="1e-6"), TypeError, r"rtol must be a finite number >= 0; got '1e-6'"),
        (dict(rtol=0.0, atol=0.0), ValueError, r"rtol and atol must not both be 0: no step can meet a zero tolerance"),
        (dict(dt0=0.0), ValueError, r"dt0 must be a finite step > 0 .*got 0\.0"),
        (dict(dt0=float("inf")), ValueError, r"dt0 must be a finite step > 0"),
        (dict(max_steps=0), ValueError, r"max_steps must be a positive integer or None; got 0"),
        (dict(max_steps=2.5), TypeError, r"max_steps must be a positive integer or None; got 2\.5"),
        (dict(solver="tsit5"), TypeError, r"solver must be a diffrax AbstractSolver instance"),
        (dict(adjoint=diffrax.Tsit5()), TypeError, r"adjoint must be a diffrax AbstractAdjoint instance"),
        (dict(stepsize_controller=diffrax.PIDController), TypeError, r"stepsize_controller must be a diffrax step"),
        (dict(stepsize_controller=diffrax.PIDController(rtol=-1.0, atol=1e-8)), ValueError, r"rtol"),
        (dict(throw="yes"), TypeError, r"throw must be True or False; got 'yes'"),
        (
            dict(rtol=1e-8, stepsize_controller=diffrax.PIDController(rtol=1e-3, atol=1e-6)),
            ValueError,
            r"rtol/atol tighten the model's own step controller; with stepsize_controller given",
        ),
    ],
)
def test_bad_fields_are_refused_when_the_options_are_made(fields, error, message):
    with pytest.raises(error, match=message):
        SolveOptions(**fields)


def test_replace_checks_again_and_refuses_unknown_fields():
    opts = SolveOptions(dt0=0.01)
    assert opts.replace(max_steps=10).max_steps == 10
    with pytest.raises(ValueError, match="dt0 must be a finite step > 0"):
        opts.replace(dt0=-1.0)
    with pytest.raises(TypeError, match=r"SolveOptions has no field 'dt'; its fields are adjoint, atol, dt0"):
        opts.replace(dt=0.1)


def test_keywords_and_options_give_the_same_solve():
    model, solver = Relaxation(), diffrax.Tsit5()
    controller = diffrax.PIDController(rtol=1e-10, atol=1e-12)
    by_keyword = difflab.simulate(model, STEP, TS, solver=solver, stepsize_controller=controller)
    by_options = difflab.simulate(model, STEP, TS, options=SolveOptions(solver=solver, stepsize_controller=controller))
    np.testing.assert_array_equal(by_keyword.ys["y"], by_options.ys["y"])
    np.testing.assert_allclose(by_options.ys["y"], exact(TS), atol=1e-8)


def test_rtol_atol_tighten_the_models_own_controller():
    """Tolerances alone keep the default controller's other settings (here its maximum step)."""
    default = diffrax.PIDController(rtol=1e-3, atol=1e-3, dtmax=2.0)
    tightened = SolveOptions(rtol=1e-9, atol=1e-11).controller(default)
    assert isinstance(tightened, diffrax.PIDController)
    assert (tightened.rtol, tightened.atol, tightened.dtmax) == (1e-9, 1e-11, 2.0)
    clipped = SolveOptions(atol=1e-12).controller(diffrax.ClipStepSizeController(default, jump_ts=[1.0]))
    assert (clipped.controller.rtol, clipped.controller.atol, clipped.controller.dtmax) == (1e-3, 1e-12, 2.0)
    # the solve at the tightened tolerances meets the exact solution far closer than at the loose ones
    model = Relaxation()
    loose = difflab.simulate(model, STEP, TS, solver=diffrax.Tsit5(), stepsize_controller=default)
    tight = difflab.simulate(model, STEP, TS, solver=diffrax.Tsit5(), options=SolveOptions(rtol=1e-9, atol=1e-11))
    loose_error, tight_error = (np.max(np.abs(t.ys["y"] - exact(TS))) for t in (loose, tight))
    print(f"loose {loose_error:.2e}, tight {tight_error:.2e}")
    assert tight_error < 1e-9 and tight_error < loose_error / 100


def test_tolerances_for_a_fixed_step_model_are_refused_by_name():
    fixed = diffrax.ConstantStepSize()
    with pytest.raises(ValueError, match=r"rtol/atol tighten an adaptive step controller, but the model takes fixed"):
        SolveOptions(rtol=1e-6).controller(fixed)


def test_a_field_given_twice_and_unknown_keywords_are_refused():
    model = Relaxation()
    with pytest.raises(ValueError, match=r"simulate\(\): dt0 is given both as a keyword and in options; give it once"):
        difflab.simulate(model, STEP, TS, dt0=0.01, options=SolveOptions(dt0=0.02))
    with pytest.raises(TypeError, match=r"simulate\(\) got an unexpected keyword argument 'dtt'; the solve keywords"):
        difflab.simulate(model, STEP, TS, dtt=0.01)
    with pytest.raises(TypeError, match=r"options must be a difflab.SolveOptions or None; got a dict"):
        difflab.simulate(model, STEP, TS, options={"dt0": 0.01})
    with pytest.raises(TypeError, match=r"run_ensemble\(\) got an unexpected keyword argument 'rtoll'"):
        difflab.run_ensemble(difflab.make_batch(model, tau=[1.0, 2.0]), STEP, TS, rtoll=1e-6)


def test_ensemble_and_sweep_take_the_options_object():
    model = Relaxation()
    opts = SolveOptions(solver=diffrax.Tsit5(), rtol=1e-10, atol=1e-12)
    batch = difflab.make_batch(model, tau=[1.0, 2.0])
    runs = difflab.run_ensemble(batch, STEP, TS, options=opts)
    np.testing.assert_allclose(runs.ys["y"][1], exact(TS), atol=1e-8)
    grid = difflab.Grid(tau=[2.0])
    study = difflab.sweep(model, STEP, TS, grid, {"y_end": lambda traj: traj.ys["y"][-1]}, options=opts)
    np.testing.assert_allclose(float(study["y_end"].squeeze()), exact(TS)[-1], atol=1e-8)


def test_calibrate_takes_options_and_deprecates_the_dict():
    from _systems import Decay, decay_data

    data = decay_data()
    params = {"k": difflab.Positive()}
    fit = difflab.calibrate(Decay(k=0.3), None, data, params=params, steps=10, options=SolveOptions(max_steps=4096))
    assert fit.best["k"] == pytest.approx(0.5, rel=1e-2)
    with pytest.warns(DeprecationWarning, match=r"simulate_options=...\) is deprecated and goes at 0\.3: pass opt"):
        old = difflab.calibrate(Decay(k=0.3), None, data, params=params, steps=10, simulate_options={"max_steps": 4096})
    assert old.best["k"] == pytest.approx(fit.best["k"], rel=1e-12)
