"""simulate: exact solutions, jit / grad / vmap, jump handling, xarray output, bad input."""

from typing import ClassVar

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _systems import Relaxation, step_response

import difflab
from difflab.neuron import HodgkinHuxley

TS = jnp.linspace(0.0, 10.0, 101)
TIGHT = diffrax.PIDController(rtol=1e-10, atol=1e-12)


def test_free_decay_matches_exponential():
    traj = difflab.simulate(Relaxation(tau=2.0, y_init=1.0), None, TS, stepsize_controller=TIGHT)
    np.testing.assert_allclose(traj.ys["y"], np.exp(-np.asarray(TS) / 2.0), rtol=0, atol=1e-9)
    assert bool(traj.succeeded)


def test_step_input_exact_and_solver_lands_on_edges():
    protocol = difflab.Step(3.0, 2.0, 6.0)
    traj = difflab.simulate(Relaxation(), protocol, TS, stepsize_controller=TIGHT)
    exact = step_response(TS, 2.0, 1.0, 3.0, 2.0, 6.0)
    np.testing.assert_allclose(traj.ys["y"], exact, atol=1e-8)
    # The controller steps onto both edges; a wrapped controller without jump times (which
    # simulate leaves alone) has to find them by rejecting steps.
    loose = diffrax.PIDController(rtol=1e-6, atol=1e-8)
    with_jumps = difflab.simulate(Relaxation(), protocol, TS, stepsize_controller=loose)
    blind = difflab.simulate(Relaxation(), protocol, TS, stepsize_controller=diffrax.ClipStepSizeController(loose))
    rejected = int(with_jumps.stats["num_rejected_steps"]), int(blind.stats["num_rejected_steps"])
    assert rejected[0] + 4 <= rejected[1], rejected
    np.testing.assert_allclose(with_jumps.ys["y"], exact, atol=2e-6)


def test_gradient_wrt_tau_is_exact():
    def y_end(tau):
        traj = difflab.simulate(Relaxation(tau=tau), None, TS, stepsize_controller=TIGHT)
        return traj.ys["y"][-1]

    tau = 2.0
    grad = jax.grad(y_end)(tau)
    exact = 10.0 / tau**2 * np.exp(-10.0 / tau)  # d/dtau exp(-T/tau)
    np.testing.assert_allclose(grad, exact, rtol=1e-6)


def test_jit_does_not_recompile_for_new_parameter_values():
    traces = []

    @eqx.filter_jit
    def run(model):
        traces.append(1)
        return difflab.simulate(model, None, TS).ys["y"][-1]

    a = run(Relaxation(tau=2.0))
    b = run(Relaxation(tau=3.0))
    assert len(traces) == 1
    np.testing.assert_allclose([a, b], np.exp(-10.0 / np.array([2.0, 3.0])), rtol=1e-5)


def test_vmap_batch_equals_member_runs_and_converts_to_xarray():
    taus = jnp.array([1.0, 2.0, 4.0])
    batch = eqx.filter_vmap(lambda tau: difflab.simulate(Relaxation(tau=tau), None, TS))(taus)
    assert batch.is_batched and batch.ys["y"].shape == (3, TS.shape[0])
    for i, tau in enumerate(taus):
        single = difflab.simulate(Relaxation(tau=tau), None, TS)
        np.testing.assert_allclose(batch.ys["y"][i], single.ys["y"], rtol=1e-12)
    ds = batch.to_xarray(member_coords={"tau": np.asarray(taus)})
    assert ds["y"].dims == ("member", "time")
    assert ds["y"].attrs == {"units": "mV", "long_name": "relaxing variable"}
    assert ds["time"].attrs["units"] == "ms"
    np.testing.assert_array_equal(ds["tau"].values, [1.0, 2.0, 4.0])
    for key in ("difflab_version", "jax_version", "diffrax_version", "solver", "rtol", "atol", "dtype"):
        assert key in ds.attrs
    assert ds.attrs["solver"] == "UnrolledTsit5" and ds.attrs["rtol"] == "0.000001" and ds.attrs["dtype"] == "float64"


def test_observe_saves_only_the_observables():
    observe = lambda t, y, args: {"twice": 2 * y["y"]}  # noqa: E731
    info = (difflab.StateInfo("twice", "mV", "twice y"),)
    traj = difflab.simulate(Relaxation(), None, TS, observe=observe, observe_info=info, stepsize_controller=TIGHT)
    assert set(traj.ys) == {"twice"}
    np.testing.assert_allclose(traj.ys["twice"], 2 * np.exp(-np.asarray(TS) / 2.0), atol=1e-8)
    assert traj.to_xarray()["twice"].attrs["units"] == "mV"


def test_float32_model_stays_float32():
    model = Relaxation(tau=jnp.float32(2.0), y_init=jnp.float32(1.0))
    traj = difflab.simulate(model, difflab.Step(1.0, 2.0, 6.0), TS.astype(jnp.float32))
    assert traj.ys["y"].dtype == jnp.float32
    assert not np.isnan(np.asarray(traj.ys["y"])).any()


@pytest.mark.parametrize(
    ("ts", "message"),
    [
        (jnp.array([0.0, 2.0, 1.0]), r"ts must be strictly increasing; ts\[2\] = 1.0 follows ts\[1\] = 2.0"),
        (jnp.array([[0.0, 1.0]]), r"ts must be 1-D with at least 2 times; got shape \(1, 2\)"),
        (jnp.array([0.0, jnp.nan]), r"ts must be finite"),
    ],
)
def test_bad_time_grid_is_refused(ts, message):
    with pytest.raises(ValueError, match=message):
        difflab.simulate(Relaxation(), None, ts)


def test_bad_model_and_state_are_refused():
    with pytest.raises(TypeError, match="model must be an AbstractModel; got dict"):
        difflab.simulate({"tau": 1.0}, None, TS)
    with pytest.raises(ValueError, match=r"y0 must be a dict with keys \['y'\]; got \['x'\]"):
        difflab.simulate(Relaxation(), None, TS, y0={"x": jnp.array(0.0)})


def test_failure_is_a_value_when_not_thrown():
    traj = difflab.simulate(Relaxation(), None, TS, max_steps=2, throw=False)
    assert not bool(traj.succeeded)
    assert int(traj.to_xarray()["solver_result"]) != 0


def test_a_failed_solve_raises_eagerly_and_under_jit_with_the_solvers_message():
    """An eager call checks the result on the host (its compiled program holds no host callback, so JAX's persistent
    cache can keep it); under jit the check stays in the program. Both name what failed."""
    with pytest.raises(eqx.EquinoxRuntimeError, match=r"the solve failed: The maximum number of solver steps"):
        difflab.simulate(Relaxation(), None, TS, max_steps=2)
    jitted = jax.jit(lambda tau: difflab.simulate(Relaxation(tau), None, TS, max_steps=2).ys["y"])
    with pytest.raises(Exception, match=r"The maximum number of solver steps was reached"):
        jitted(2.0).block_until_ready()
    lowered = jax.jit(lambda: difflab.simulate(Relaxation(2.0), None, TS).ys["y"]).lower().as_text()
    assert "callback" in lowered  # a traced solve keeps its in-program check


def test_an_eager_fixed_step_solve_compiles_without_a_host_callback(monkeypatch):
    """What lets JAX's persistent cache store the eager solve: its program holds no callback (before, the solver's
    failure check was one)."""
    from difflab.core import _simulate

    programs, solve = [], _simulate._scan_solve

    def lowering(*args, **kwargs):
        programs.append(solve.lower(*args, **kwargs).as_text())
        return solve(*args, **kwargs)

    monkeypatch.setattr(_simulate, "_scan_solve", lowering)
    traj = difflab.simulate(Relaxation(2.0), None, TS, stepsize_controller=diffrax.ConstantStepSize(), dt0=0.1)
    assert len(programs) == 1 and "callback" not in programs[0]
    np.testing.assert_allclose(traj.ys["y"], np.exp(-np.asarray(TS) / 2.0), atol=1e-6)  # free decay from y = 1


def test_fixed_steps_get_the_step_count_they_need():
    """Fixed steps: the default bound grows to the known count; a too-small explicit one is refused by name."""
    ts = jnp.linspace(0.0, 10.0, 11)
    fixed = dict(solver=diffrax.Euler(), stepsize_controller=diffrax.ConstantStepSize())
    # 10 / 5e-5 = 200_000 steps > the default bound 2**17; y' = -y/2 exactly: exp(-5) within Euler's O(dt)
    traj = difflab.simulate(Relaxation(), None, ts, dt0=5e-5, **fixed)
    assert bool(traj.succeeded) and int(traj.stats["num_steps"]) == 200_000
    np.testing.assert_allclose(float(traj.ys["y"][-1]), np.exp(-5.0), rtol=1e-4)
    with pytest.raises(ValueError, match=r"max_steps=100 is too small: .* take 200; pass max_steps=200 or more"):
        difflab.simulate(Relaxation(), None, ts, dt0=0.05, max_steps=100, **fixed)
    # without throw the failure is a value, as for any other solver failure
    traj = difflab.simulate(Relaxation(), None, ts, dt0=0.05, max_steps=100, throw=False, **fixed)
    assert not bool(traj.succeeded)


def test_bad_steps_nan_states_and_runaway_fixed_steps_are_refused_by_name():
    ts = jnp.linspace(0.0, 10.0, 11)
    fixed = dict(solver=diffrax.Euler(), stepsize_controller=diffrax.ConstantStepSize())
    for bad in (0.0, -0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="dt0 must be a finite step > 0"):
            difflab.simulate(Relaxation(), None, ts, dt0=bad, **fixed)
    with pytest.raises(ValueError, match=r"y0\['y'\] must be finite"):
        difflab.simulate(Relaxation(), None, ts, y0={"y": jnp.asarray(jnp.nan)})
    # 1e9 time units at 0.05: 2e10 steps would run for hours; refused before anything runs
    with pytest.raises(ValueError, match=r"take 20,000,000,000 steps, more than the budget of 134,217,728"):
        difflab.simulate(Relaxation(), None, jnp.asarray([0.0, 1e9]), dt0=0.05, **fixed)


@pytest.mark.slow
def test_a_solution_that_turns_nan_is_not_a_success():
    from difflab.neuron import HodgkinHuxley

    # a huge current drives the potential to overflow within a few fixed steps
    huge = difflab.Step(1e300, 1.0, 3.0)
    ts = jnp.linspace(0.0, 5.0, 51)
    with pytest.raises(ValueError, match="the solution became non-finite: V is"):
        difflab.simulate(HodgkinHuxley.squid_axon(), huge, ts)
    traj = difflab.simulate(HodgkinHuxley.squid_axon(), huge, ts, throw=False)
    assert not bool(traj.succeeded)
    batch = difflab.make_batch(HodgkinHuxley.squid_axon(), gNa=[120.0, 120.0])
    runs = eqx.filter_vmap(lambda m, a: difflab.simulate(m, difflab.Step(a, 1.0, 3.0), ts, throw=False))(
        batch, jnp.asarray([10.0, 1e300])
    )
    assert np.asarray(runs.succeeded).tolist() == [True, False]


def test_misshapen_state_and_a_number_as_protocol_are_refused_by_name():
    three = difflab.make_batch(HodgkinHuxley.squid_axon(), gNa=[100.0, 110.0, 120.0])  # states of shape (3,)
    y0 = {k: jnp.broadcast_to(v[:2], (2,)) for k, v in three.initial_state().items()}
    with pytest.raises(
        ValueError, match=r"y0\['V'\] must have shape \(3,\) \(as model.initial_state\(\)\) or one that broadcasts"
    ):
        difflab.simulate(three, None, TS, y0=y0)
    # a larger state that broadcasts is a batch over a leading axis (an F-I curve's one cell per amplitude)
    traj = difflab.simulate(Relaxation(), None, TS, y0={"y": jnp.asarray([1.0, 2.0])})
    np.testing.assert_allclose(traj.ys["y"][-1], np.asarray([1.0, 2.0]) * np.exp(-TS[-1] / 2.0), rtol=1e-5)
    with pytest.raises(
        TypeError, match=r"protocol must be a difflab protocol \(e.g. difflab.Constant\(3.0\)\) or None"
    ):
        difflab.simulate(Relaxation(), 3.0, TS)


def test_one_initial_state_serves_every_member_of_a_batched_model():
    """A batched model given the initial state of one cell starts every member from it: the same solution as from
    the model's own (broadcast) initial state. It was a TypeError from inside the step."""
    one = HodgkinHuxley.squid_axon()
    three = difflab.make_batch(one, gNa=[100.0, 110.0, 120.0])
    protocol = difflab.Step(10.0, 1.0, 5.0)
    given = difflab.simulate(three, protocol, TS, y0=one.initial_state())
    np.testing.assert_array_equal(given.ys["V"], difflab.simulate(three, protocol, TS).ys["V"])
    assert given.ys["V"].shape == (TS.size, 3)


def test_a_runaway_default_step_names_the_model():
    fixed = dict(solver=diffrax.Euler(), stepsize_controller=diffrax.ConstantStepSize())

    class Stiff(Relaxation):
        def default_dt0(self):
            return 1e-12  # as a cell whose gates a high temperature makes very fast

    with pytest.raises(ValueError, match=r"dt0=1e-12 \(the default step of Stiff for its parameters\).*time scale"):
        difflab.simulate(Stiff(), None, TS, **fixed)
    # a model that names the parameters setting its step (step_parameters) gets their values in the message
    with pytest.raises(ValueError, match=r"HodgkinHuxley's default step follows its kinetics.*celsius = 200.0"):
        difflab.simulate(HodgkinHuxley.squid_axon().replace(celsius=200.0), None, TS)


def test_a_leading_axis_on_some_states_only_is_refused_by_name():
    from difflab.neuron import HodgkinHuxley

    hh = HodgkinHuxley.squid_axon()
    y0 = dict(hh.initial_state(), V=jnp.zeros(3))  # refused before anything runs (was a broadcasting error)
    with pytest.raises(ValueError, match=r"y0 entries must share one leading shape .*y0\['V'\] \(3,\), y0\['m'\] \(\)"):
        difflab.simulate(hh, None, TS, y0=y0)


def test_strings_and_complex_values_are_refused_naming_the_argument():
    from difflab.neuron import HodgkinHuxley

    hh = HodgkinHuxley.squid_axon()
    with pytest.raises(TypeError, match=r"ts must be a real number or an array of real numbers; got list \['0'"):
        difflab.simulate(hh, difflab.Step(10.0, 1.0, 3.0), ["0", "1", "2"])
    with pytest.raises(TypeError, match=r"gNa must be a real number or an array of real numbers; got str 'abc'"):
        hh.replace(gNa="abc")
    with pytest.raises(TypeError, match=r"gNa must be a real number .*; got complex \(1\+2j\)"):
        hh.replace(gNa=1 + 2j)
    with pytest.raises(TypeError, match=r"value must be a number or an array of numbers; got str 'abc'"):
        difflab.Constant("abc")
    with pytest.raises(TypeError, match=r"times must be a number or an array of numbers; got list"):
        difflab.Sampled(["a", "b"], [1.0, 2.0])


def test_a_fixed_step_count_beyond_the_budget_runs_in_the_loop_without_a_grid():
    """The advice to pass max_steps must hold: the scan's step grid (8 bytes a step) is never built that large."""
    import diffrax

    from difflab.core._simulate import FIXED_STEP_BUDGET, _scan_grid

    ts = np.array([0.0, 1e9])
    args = (diffrax.ConstantStepSize(), diffrax.RecursiveCheckpointAdjoint(), 0.0769, ts, 13_000_000_000)
    assert _scan_grid("auto", *args) is None  # returns at once: no 104 GB grid
    with pytest.raises(ValueError, match=rf"more than the scan's grid holds \({FIXED_STEP_BUDGET:,}\)"):
        _scan_grid("scan", *args)


class CountedDecay(difflab.AbstractModel):
    """dy/dt = -k y, counting how often its vector field is traced (once per trace of the solve)."""

    k: jnp.ndarray
    states = (difflab.StateInfo("y", "mV", "decaying variable"),)
    time_units = "ms"
    traces: ClassVar[list[int]] = [0]

    def __init__(self, k):
        self.k = jnp.asarray(k, dtype=float)

    def vector_field(self, t, y, args):
        CountedDecay.traces[0] += 1
        return {"y": -self.k * y["y"]}

    def initial_state(self):
        return {"y": jnp.ones(())}


@pytest.mark.parametrize("options", [{}, {"stepsize_controller": diffrax.ConstantStepSize(), "dt0": 0.05}])
def test_a_second_eager_solve_reuses_the_compiled_program(options):
    # adaptive (diffrax's loop) and fixed step (the scan): new parameter values, the same shapes, no new trace
    ts = np.linspace(0.0, 2.0, 21)
    observe = lambda t, y, protocol: {"y": y["y"]}  # noqa: E731
    for kwargs in ({}, {"observe": observe, "observe_info": CountedDecay.states}):
        first = difflab.simulate(CountedDecay(jnp.asarray(0.5)), None, ts, **options, **kwargs)
        traced = CountedDecay.traces[0]
        second = difflab.simulate(CountedDecay(jnp.asarray(1.5)), None, ts, **options, **kwargs)
        assert CountedDecay.traces[0] == traced > 0
        np.testing.assert_allclose(second.ys["y"], np.exp(-1.5 * ts), rtol=1e-4)
        np.testing.assert_allclose(first.ys["y"], np.exp(-0.5 * ts), rtol=1e-4)


def test_a_traced_fixed_step_solve_runs_inline_with_the_models_arrays_as_constants():
    """Inside `jit` the scan is traced into the caller's program, not called through the eager path's jitted
    wrapper: through it, the model's arrays became arguments of a nested call, and the 100-cell network of
    benchmarks/network_bench.py ran 3.9x slower (3.27 s against 0.85 s)."""
    model, stimulus = HodgkinHuxley.squid_axon(), difflab.Step(10.0, 10.0, 50.0)
    ts = np.arange(0.0, 20.0, 0.025)
    traced = jax.make_jaxpr(lambda: difflab.simulate(model, stimulus, ts)["V"])()
    assert "_scan_solve" not in str(traced)
    eager = difflab.simulate(model, stimulus, ts)["V"]
    np.testing.assert_allclose(jax.jit(lambda: difflab.simulate(model, stimulus, ts)["V"])(), eager, atol=1e-11)
