"""The fixed-step `lax.scan` loop of simulate: same values as diffrax's loop, gradients, step counts, failures,
and the choice of loop, solver and ensemble strategy per backend.

Exact system: tau y' = -y (Relaxation), y(t) = y0 exp(-t/tau), dy(T)/dtau = y0 T/tau^2 exp(-T/tau).
"""

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _systems import Relaxation

import difflab
from difflab.core import _backend
from difflab.neuron import HodgkinHuxley

FIXED = diffrax.ConstantStepSize()
HH_TS = jnp.arange(0.0, 30.0 + 1e-9, 0.025)  # save spacing below the step: several saves per step
STEP = difflab.Step(10.0, 5.0, 25.0)


def _both(model, protocol, ts, **kw):
    scan = difflab.simulate(model, protocol, ts, loop="scan", **kw)
    loop = difflab.simulate(model, protocol, ts, loop="while", **kw)
    assert dict(scan.provenance)["loop"] == "scan" and dict(loop.provenance)["loop"] == "while"
    return scan, loop


@pytest.mark.parametrize("dtype, atol", [(jnp.float64, 1e-11), (jnp.float32, 5e-4)])
def test_hh_default_solver_equals_diffrax_loop(dtype, atol):
    scan, loop = _both(HodgkinHuxley.squid_axon(dtype), STEP, HH_TS.astype(dtype))
    assert scan.ys["V"].dtype == dtype
    assert int(scan.stats["num_steps"]) == int(loop.stats["num_steps"]) == 384  # 30 ms at the default 5/64 ms
    assert float(jnp.max(scan.ys["V"])) > 20.0  # it fired: the comparison covers spikes
    for name in scan.ys:
        np.testing.assert_allclose(scan.ys[name], loop.ys[name], rtol=0, atol=atol)
    np.testing.assert_array_equal(scan.ts, loop.ts)


def test_unrolled_scan_equals_one_step_per_iteration(monkeypatch):
    """The accelerators' scan (several steps per loop iteration, 384 steps not a multiple of 5) gives the same
    trajectory as the CPU's one step per iteration, to rounding."""
    model = HodgkinHuxley.squid_axon()
    plain = difflab.simulate(model, STEP, HH_TS)
    monkeypatch.setattr(_backend, "ACCELERATOR_SCAN_UNROLL", 5)
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    assert _backend.scan_unroll() == 5
    unrolled = difflab.simulate(model, STEP, HH_TS)
    assert dict(unrolled.provenance)["loop"] == "scan" and int(unrolled.stats["num_steps"]) == 384
    np.testing.assert_allclose(unrolled.ys["V"], plain.ys["V"], rtol=0, atol=1e-10)


@pytest.mark.parametrize("solver", [diffrax.Tsit5(), difflab.UnrolledTsit5(), diffrax.Heun()])
def test_generic_solvers_equal_diffrax_loop_and_exact_solution(solver):
    # 0.3 does not divide 10: the last step is shorter; saves fall both between and on step boundaries
    ts = jnp.linspace(0.0, 10.0, 7)
    scan, loop = _both(Relaxation(tau=2.0), None, ts, solver=solver, stepsize_controller=FIXED, dt0=0.3)
    np.testing.assert_allclose(scan.ys["y"], loop.ys["y"], rtol=0, atol=1e-14)
    assert int(scan.stats["num_steps"]) == int(loop.stats["num_steps"]) == 34
    order_error = 3e-3 if isinstance(solver, diffrax.Heun) else 1e-6  # Heun: linear dense output
    np.testing.assert_allclose(scan.ys["y"], np.exp(-np.asarray(ts) / 2.0), atol=order_error)


def test_step_count_uses_the_resolved_dt0():
    # A held input sampled every 0.03 ms shortens the 5/64 ms default to 0.03 ms (it divides the sample spacing).
    times = jnp.arange(0.0, 6.0 + 1e-9, 0.03)
    protocol = difflab.Sampled(times, jnp.where(times > 1.0, 10.0, 0.0), mode="hold")
    scan, loop = _both(HodgkinHuxley.squid_axon(), protocol, jnp.linspace(0.0, 6.0, 13))
    assert int(scan.stats["num_steps"]) == int(loop.stats["num_steps"]) == 200
    assert dict(scan.provenance)["dt0"] == "0.03"
    np.testing.assert_allclose(scan.ys["V"], loop.ys["V"], atol=1e-11)


@pytest.mark.parametrize("adjoint", [diffrax.RecursiveCheckpointAdjoint(), diffrax.ForwardMode()])
@pytest.mark.parametrize("solver", [difflab.UnrolledTsit5(), diffrax.Tsit5()], ids=["UnrolledTsit5", "Tsit5"])
def test_gradients_match_exact_and_diffrax_loop(adjoint, solver):
    ts = jnp.linspace(0.0, 4.0, 5)

    def y_end(tau, loop):
        traj = difflab.simulate(Relaxation(tau=tau), None, ts, solver=solver, stepsize_controller=FIXED,
                                dt0=0.01, adjoint=adjoint, loop=loop)  # fmt: skip
        return traj.ys["y"][-1]

    tau = 2.0
    exact = 4.0 / tau**2 * np.exp(-4.0 / tau)
    for loop in ("scan", "while"):
        if isinstance(adjoint, diffrax.ForwardMode):
            value = jax.jvp(lambda t, loop=loop: y_end(t, loop), (tau,), (1.0,))[1]
        else:
            value = jax.grad(y_end)(tau, loop)
        np.testing.assert_allclose(value, exact, rtol=1e-8)


@pytest.mark.slow
def test_hh_gradient_matches_finite_differences():
    ts = jnp.linspace(0.0, 15.0, 61)

    def loss(gNa, loop):
        model = HodgkinHuxley.squid_axon().replace(gNa=gNa)
        return jnp.mean(difflab.simulate(model, STEP, ts, loop=loop).ys["V"] ** 2)

    grad = jax.grad(loss)(120.0, "scan")
    fwd = jax.jacfwd(loss)(120.0, "scan")
    fd = (loss(120.0 + 1e-4, "scan") - loss(120.0 - 1e-4, "scan")) / 2e-4
    np.testing.assert_allclose(grad, jax.grad(loss)(120.0, "while"), rtol=1e-9)
    np.testing.assert_allclose(fwd, grad, rtol=1e-9)
    np.testing.assert_allclose(grad, fd, rtol=1e-5)


def test_jit_and_vmap_run_the_scan_when_ts_is_closed_over():
    ts = jnp.linspace(0.0, 10.0, 11)

    @jax.jit
    def y(tau):
        traj = difflab.simulate(Relaxation(tau=tau), None, ts, solver=diffrax.Tsit5(), stepsize_controller=FIXED,
                                dt0=0.05, loop="scan")  # fmt: skip
        return traj.ys["y"]

    taus = jnp.array([1.0, 2.0, 4.0])
    np.testing.assert_allclose(jax.vmap(y)(taus), np.exp(-np.asarray(ts)[None] / np.asarray(taus)[:, None]), atol=1e-9)


def test_step_budget_and_max_steps_hold_in_the_scan():
    ts = jnp.array([0.0, 10.0])
    kw = dict(solver=diffrax.Euler(), stepsize_controller=FIXED, loop="scan")
    with pytest.raises(ValueError, match="more than the budget of 134,217,728"):
        difflab.simulate(Relaxation(), None, ts, dt0=1e-8, **kw)
    with pytest.raises(ValueError, match=r"max_steps=10 is too small: .* take 100"):
        difflab.simulate(Relaxation(), None, ts, dt0=0.1, max_steps=10, **kw)
    with pytest.raises(
        ValueError, match="loop='scan' cannot run this solve: it takes 100 steps, more than max_steps=10"
    ):
        difflab.simulate(Relaxation(), None, ts, dt0=0.1, max_steps=10, throw=False, **kw)
    # the automatic choice falls back to diffrax's loop, which reports the failure as a value
    traj = difflab.simulate(Relaxation(), None, ts, dt0=0.1, max_steps=10, throw=False, solver=diffrax.Euler(),
                            stepsize_controller=FIXED, loop="auto")  # fmt: skip
    assert not bool(traj.succeeded)


def test_non_finite_solutions_are_reported_by_the_scan():
    bad = Relaxation(tau=0.0)  # y' = -y / 0
    kw = dict(solver=diffrax.Euler(), stepsize_controller=FIXED, dt0=0.1, loop="scan")
    with pytest.raises(ValueError, match=r"the solution became non-finite: y is .* at t = "):
        difflab.simulate(bad, None, jnp.linspace(0.0, 1.0, 3), **kw)
    traj = difflab.simulate(bad, None, jnp.linspace(0.0, 1.0, 3), throw=False, **kw)
    assert not bool(traj.succeeded)


def test_loop_argument_is_checked():
    with pytest.raises(ValueError, match=r"loop must be one of \('auto', 'scan', 'while'\); got 'fast'"):
        difflab.simulate(Relaxation(), None, HH_TS, loop="fast")
    with pytest.raises(ValueError, match=r"it needs diffrax\.ConstantStepSize, got PIDController"):
        difflab.simulate(Relaxation(), None, HH_TS, loop="scan")
    with pytest.raises(ValueError, match="adjoint BacksolveAdjoint is not one of"):
        difflab.simulate(HodgkinHuxley.squid_axon(), STEP, HH_TS, loop="scan", adjoint=diffrax.BacksolveAdjoint())
    with pytest.raises(ValueError, match="it needs a concrete dt0 and concrete ts"):
        jax.jit(lambda ts: difflab.simulate(HodgkinHuxley.squid_axon(), STEP, ts, loop="scan").ys["V"])(HH_TS)


def test_backend_picks_loop_solver_and_strategy(monkeypatch):
    assert (_backend.default_loop("cpu"), _backend.default_loop("gpu"), _backend.default_loop("tpu")) == (
        "scan", "scan", "scan")  # fmt: skip
    # on the CPU a large state saved several times per step keeps diffrax's loop (it evaluates only owned saves)
    assert _backend.default_loop("cpu", saves_per_step=4, state_size=4000) == "while"
    assert _backend.default_loop("cpu", saves_per_step=1, state_size=4000) == "scan"
    assert _backend.default_loop("cpu", saves_per_step=4, state_size=1024) == "scan"
    assert _backend.default_loop("gpu", saves_per_step=4, state_size=4000) == "scan"
    monkeypatch.setattr(jax, "default_backend", lambda: "cpu")
    batch = HodgkinHuxley.squid_axon().replace(gNa=jnp.linspace(0.1, 0.14, 1000))  # 4000 numbers of state
    dense_saves = difflab.simulate(batch, STEP, HH_TS[:401])  # 0.025 ms saves, 5/64 ms steps: 4 per step
    assert dict(dense_saves.provenance)["loop"] == "while"
    assert isinstance(_backend.default_solver("cpu"), difflab.UnrolledTsit5)
    assert isinstance(_backend.default_solver("gpu"), difflab.UnrolledTsit5)  # faster on an H200 too
    assert (_backend.scan_unroll("cpu"), _backend.scan_unroll("gpu")) == (1, _backend.ACCELERATOR_SCAN_UNROLL)
    strategy = difflab.default_strategy
    assert strategy("gpu", adaptive=True, state_size=7200) == "vmap"
    assert strategy("cpu", adaptive=True, state_size=7200) == "map"
    assert strategy("cpu", adaptive=True, state_size=4) == "vmap"
    assert strategy("cpu", adaptive=False, state_size=7200) == "vmap"
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    traj = difflab.simulate(HodgkinHuxley.squid_axon(), STEP, HH_TS[:41])
    assert dict(traj.provenance)["loop"] == "scan"
    assert dict(difflab.simulate(Relaxation(), None, HH_TS[:41]).provenance)["solver"] == "UnrolledTsit5"
    assert strategy(adaptive=True, state_size=7200) == "vmap"
    monkeypatch.setattr(jax, "default_backend", lambda: "cpu")
    assert dict(difflab.simulate(HodgkinHuxley.squid_axon(), STEP, HH_TS[:41]).provenance)["loop"] == "scan"
    assert dict(difflab.simulate(Relaxation(), None, HH_TS[:41]).provenance)["loop"] == "while"  # adaptive steps
    assert strategy(adaptive=True, state_size=7200) == "map"


def test_scan_runs_inside_jit_with_closed_over_times():
    """Save times closed over by a jitted function stay concrete: the scan (the default fixed-step loop) runs
    there and equals diffrax's loop outside jit to rounding."""
    model = Relaxation(tau=jnp.asarray(2.0))
    ts = np.linspace(0.0, 3.0, 7)

    @jax.jit
    def run(tau):
        return difflab.simulate(
            model.replace(tau=tau), None, ts, dt0=0.01, solver=diffrax.Heun(), stepsize_controller=FIXED, loop="scan"
        ).ys

    scan = run(jnp.asarray(2.0))
    loop = difflab.simulate(
        model, None, ts, dt0=0.01, solver=diffrax.Heun(), stepsize_controller=FIXED, loop="while"
    ).ys
    for name in loop:
        np.testing.assert_allclose(scan[name], loop[name], rtol=1e-13)


def test_saves_on_step_boundaries_need_no_dense_output():
    """Saving every step (the start included) is one save per step, taken from the states, equal to diffrax's."""
    from difflab.core._fixed_steps import save_slots, saves_on_grid, saves_per_step, step_grid

    grid = step_grid(0.0, 1.0, 0.025, np.float64)
    ts = np.arange(41) * 0.025
    assert saves_per_step(grid, ts) == 1  # t0 is the initial state; 3 * 0.025 (an ulp above 0.075) is on a boundary
    assert saves_on_grid(grid, save_slots(grid, ts[1:])[1])
    assert not saves_on_grid(grid, save_slots(grid, ts[1:] - 0.01)[1])  # between boundaries: dense output
    model = HodgkinHuxley.squid_axon()
    ts = jnp.asarray(np.arange(401) * 0.025)
    scan = difflab.simulate(model, STEP, ts, dt0=0.025, loop="scan")
    loop = difflab.simulate(model, STEP, ts, dt0=0.025, loop="while")
    np.testing.assert_allclose(np.asarray(scan.ys["V"]), np.asarray(loop.ys["V"]), rtol=0, atol=1e-9)
    assert float(scan.ys["V"][0]) == float(model.initial_state()["V"])
