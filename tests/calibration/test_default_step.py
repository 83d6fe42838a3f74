"""The default fixed step of a fit is resolved once, as a number, from the starts and the bounds.

The squid axon's default step follows its largest conductance (`HodgkinHuxley.default_dt0`: 5/64 ms up to
Σḡ/C = 312.6 mS/µF, twice hh's, halved per doubling beyond). A fit of gNa must not make the step a traced
value (every solve would then leave the scan, and the refinement could not halve it), and must solve every
start and every point of its bounds at least as finely as the rule asks there.
"""

import jax.numpy as jnp
import pytest

import difflab
from difflab.calibration._diagnostics import resolve_default_step
from difflab.calibration.internal import Comparison, build_problem
from difflab.neuron import HodgkinHuxley

pytestmark = pytest.mark.filterwarnings("ignore::difflab.CalibrationWarning")

PROTOCOL = difflab.Step(10.0, 2.5, 15.0)  # edges on both steps: no shortening to meet them
TS = jnp.arange(0.0, 15.0, 0.125)


@pytest.fixture(scope="module")
def data():
    traj = difflab.simulate(HodgkinHuxley.squid_axon(), PROTOCOL, TS)
    return {"time": TS, "V": traj.ys["V"]}


@pytest.mark.parametrize(
    ("transform", "dt0"),
    [
        (difflab.Bounded(50.0, 1000.0), 5 / 256),  # the upper corner: Σḡ = 1036.3 mS/cm², 3.3× the bound
        (difflab.Bounded(50.0, 250.0), 5 / 64),  # Σḡ ≤ 286.3 mS/cm² everywhere in the bounds
        (difflab.Log(), 5 / 64),  # no bounds: the start (gNa = 120)
    ],
)
def test_fit_step_is_resolved_from_starts_and_bounds(data, transform, dt0):
    """The rule itself, on the problem `calibrate` builds (no solve: the step comes from concrete models)."""
    problem, _ = build_problem(HodgkinHuxley.squid_axon(), data, {"gNa": transform}, "mse", Comparison(), None)
    start = {"gNa": transform.inverse(jnp.array([120.0]))}  # one start, the member axis first
    resolved = resolve_default_step(problem, start, PROTOCOL)
    assert resolved.sim_options["dt0"] == dt0 and resolved.step_resolved


def test_the_fit_runs_at_the_resolved_step(data, monkeypatch):
    """End to end, at the upper corner: the fit records the resolved step and converges at it, in the scan.

    Every solve of the fit (its steps and its standard errors) runs as the fixed-step scan: diffrax's `while_loop`,
    which traced save times or a traced step would fall back to, is made to fail here.
    """

    def no_while_loop(*args, **kwargs):
        raise AssertionError("a solve of the fit left the fixed-step scan for diffrax's while_loop")

    monkeypatch.setattr(difflab.core._simulate, "_diffrax_solve", no_while_loop)
    fit = difflab.calibrate(HodgkinHuxley.squid_axon(), PROTOCOL, data, params={"gNa": difflab.Bounded(50.0, 1000.0)},
                            steps=3, run=difflab.RunOptions(refine=False))  # fmt: skip
    assert fit.diagnostics.attrs["dt0"] == str(5 / 256)
    assert float(fit.best["gNa"]) == pytest.approx(120.0, rel=0.01)  # data at 5/64 ms, exact start


def test_users_step_is_kept(data):
    options = difflab.SolveOptions(dt0=0.05)
    fit = difflab.calibrate(HodgkinHuxley.squid_axon(), PROTOCOL, data, params={"gNa": difflab.Bounded(50.0, 1000.0)},
                            steps=2, options=options)  # fmt: skip
    assert fit.diagnostics.attrs["dt0"] == "0.05"
    assert fit.diagnostics.attrs["refinement_steps"] == 0  # the user's step is never refined
