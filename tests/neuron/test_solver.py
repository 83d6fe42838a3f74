"""The tailored solver: exact passive membrane and gradients, convergence order, invariants, batching."""

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
import difflab.datasets
from difflab.neuron import HodgkinHuxley, RushLarsenCN, spike_times

PASSIVE_TS = jnp.linspace(0.0, 20.0, 401)


def passive(gL=0.3, C=1.0):
    return HodgkinHuxley.squid_axon().replace(gNa=0.0, gK=0.0, gL=gL, C=C)


def test_passive_membrane_is_the_exact_exponential():
    """gNa = gK = 0: C dV/dt = I - gL (V - EL), a pulse of 5 µA/cm² on [2, 12) ms."""
    gL, C, EL, V0, A = 0.3, 1.0, -54.3, -65.0, 5.0
    tau = C / gL
    t = np.asarray(PASSIVE_TS)
    on = np.clip(t, 2.0, 12.0) - 2.0
    pulse = A / gL * (1 - np.exp(-on / tau)) * np.exp(-(np.maximum(t, 12) - 12) / tau)
    exact = EL + (V0 - EL) * np.exp(-t / tau) + pulse
    run = jax.jit(lambda dt: difflab.simulate(passive(), difflab.Step(A, 2.0, 12.0), PASSIVE_TS, dt0=dt).ys["V"])
    errors = [np.max(np.abs(np.asarray(run(dt)) - exact)) for dt in (0.1, 0.05)]
    # the voltage update is the exact exponential for frozen conductances; what is left is e^{-z} evaluated as
    # 1/T4(z) (relative error z^5/120 per step, z = gL h / C), so fourth order: measured 6.4e-8 and 4.0e-9 mV
    # (Crank–Nicolson had 1.7e-4 mV at h = 0.05 ms)
    assert errors[0] < 1e-7 and errors[1] < 1e-8, errors
    assert 14 < errors[0] / errors[1] < 18, errors


def test_passive_gradient_wrt_gL_and_C_is_exact():
    """V(T) = EL + (V0 - EL) exp(-gL T / C); derivatives wrt gL and C in closed form."""
    T, EL, V0 = 20.0, -54.3, -65.0

    def v_end(gL, C):
        traj = difflab.simulate(passive(gL, C), None, PASSIVE_TS, dt0=0.0125, adjoint=diffrax.ForwardMode())
        return traj.ys["V"][-1]

    gL, C = 0.3, 1.2
    d_gL, d_C = jax.jit(jax.jacfwd(v_end, argnums=(0, 1)))(gL, C)
    decay = np.exp(-gL * T / C)
    # discretise-then-differentiate: exact up to the scheme's O(dt²) error (2e-6 at dt = 0.0125)
    np.testing.assert_allclose(d_gL, (V0 - EL) * (-T / C) * decay, rtol=5e-6)
    np.testing.assert_allclose(d_C, (V0 - EL) * (gL * T / C**2) * decay, rtol=5e-6)


def test_convergence_order_against_neuron():
    """Slope of log(max |V - V_NEURON|) against log(dt) over the first spike (0-20 ms)."""
    ref = difflab.datasets.load("hh/hh_step_10uA")
    ts = jnp.asarray(ref.time.values[:801])
    v_ref = ref.V.values[0, :801]
    model = HodgkinHuxley.squid_axon()
    protocol = difflab.Step(10.0, 10.0, 110.0)
    run = jax.jit(lambda dt: difflab.simulate(model, protocol, ts, dt0=dt).ys["V"])
    dts = np.asarray([0.05, 0.025, 0.0125, 0.00625])
    errors = np.asarray([np.max(np.abs(np.asarray(run(dt)) - v_ref)) for dt in dts])
    slope = np.polyfit(np.log(dts), np.log(errors), 1)[0]
    # second order: measured 1.84 (errors 1.33, 0.40, 0.11, 0.029 mV; successive ratios 3.3, 3.6, 3.8 -> 4)
    assert 1.7 < slope < 2.5, (slope, errors)
    assert errors[-1] < 0.05, errors


def test_gates_stay_in_unit_interval_over_the_parameter_range():
    key_na, key_k = jax.random.split(jax.random.PRNGKey(0))
    n = 64
    model = HodgkinHuxley.squid_axon().replace(
        gNa=jax.random.uniform(key_na, (n,), minval=80.0, maxval=160.0),
        gK=jax.random.uniform(key_k, (n,), minval=24.0, maxval=48.0),
    )
    ts = jnp.arange(0.0, 40.0, 0.025)
    run = jax.jit(lambda m, ts: difflab.simulate(m, difflab.Step(20.0, 5.0, 35.0), ts))
    for dtype in (jnp.float64, jnp.float32):
        traj = run(model.astype(dtype), ts.astype(dtype))
        gates = np.stack([np.asarray(traj.ys[k]) for k in "mhn"])
        assert np.isfinite(gates).all() and np.isfinite(np.asarray(traj.ys["V"])).all()
        assert gates.min() >= 0.0 and gates.max() <= 1.0, (gates.min(), gates.max())
        assert np.asarray(traj.ys["V"]).max() > 20.0  # they do spike


def test_batched_runs_equal_member_runs_and_second_call_does_not_recompile():
    traces = []

    @eqx.filter_jit
    def run(model):
        traces.append(1)
        return difflab.simulate(model, difflab.Step(10.0, 2.0, 30.0), jnp.arange(0.0, 30.0, 0.025)).ys["V"]

    gNa = jnp.asarray([90.0, 120.0, 150.0])
    base = HodgkinHuxley.squid_axon()
    members = [np.asarray(run(base.replace(gNa=g))) for g in gNa]
    assert len(traces) == 1  # new parameter values, same compiled function
    batched = np.asarray(run(base.replace(gNa=gNa)))  # parameters with a member axis
    vmapped = np.asarray(eqx.filter_vmap(lambda g: run(base.replace(gNa=g)))(gNa))
    np.testing.assert_allclose(batched.T, np.stack(members), atol=1e-10)
    np.testing.assert_allclose(vmapped, np.stack(members), atol=1e-10)


def test_generic_diffrax_solver_and_adaptive_control_reach_neuron_spike_times():
    ref = difflab.datasets.load("hh/hh_step_10uA")
    ts = jnp.asarray(ref.time.values[:1201])  # 0-30 ms: the first two spikes
    want = ref.spike_times.values[0, :2]
    model = HodgkinHuxley.squid_axon()
    protocol = difflab.Step(10.0, 10.0, 110.0)
    for solver, controller, max_steps in (
        (RushLarsenCN(), diffrax.PIDController(rtol=1e-4, atol=1e-4), 4000),
        (diffrax.Tsit5(), diffrax.PIDController(rtol=1e-6, atol=1e-8), 400),
    ):
        traj = difflab.simulate(model, protocol, ts, solver=solver, stepsize_controller=controller)
        assert bool(traj.succeeded) and int(traj.stats["num_steps"]) < max_steps
        np.testing.assert_allclose(spike_times(ts, traj.ys["V"], max_spikes=2), want, atol=0.02)


def test_relaxation_factor_is_a_bounded_monotone_stand_in_for_the_exponential():
    from difflab.neuron._solver import _relaxation_factor

    z = np.concatenate([np.linspace(0.0, 1.0, 1001), np.logspace(0.01, 4, 400)])
    r = np.asarray(_relaxation_factor(jnp.asarray(z)))
    assert r[0] == 1.0
    assert np.all((r > 0) & (r <= 1))
    assert np.all(np.diff(r) < 0)  # strictly decreasing: stiffer gates relax further
    assert r[-1] < 1e-14  # tends to 0 like e^{-z}: a very stiff gate lands on x_inf
    small = z <= 1.0
    rel = np.abs(r[small] / np.exp(-z[small]) - 1)
    # below the leading term z^5/120 of the error (measured: 0.44 of it at z = 1, 3.7e-3 relative)
    assert np.all(rel <= z[small] ** 5 / 120 + 1e-15), rel.max()


@pytest.mark.slow
def test_default_step_follows_the_gate_kinetics_with_temperature():
    """5/64 ms at 6.3 °C, halved per doubling of hh's q10 factor; spike times stay at the 6.3 °C accuracy."""
    cell = HodgkinHuxley.squid_axon()
    steps = {c: cell.replace(celsius=c).default_dt0() for c in (0.0, 6.3, 10.0, 15.0, 20.0)}
    # q10 factors 3^((T - 6.3)/10): 0.50, 1, 1.50, 2.60, 4.50 -> 2^k >= factor: 1, 1, 2, 4, 8
    assert steps == {0.0: 0.078125, 6.3: 0.078125, 10.0: 0.0390625, 15.0: 0.01953125, 20.0: 0.009765625}
    # traced temperature (jit, vmap): the same steps, as arrays
    traced = jax.jit(jax.vmap(lambda c: cell.replace(celsius=c).default_dt0()))(jnp.asarray([6.3, 20.0]))
    np.testing.assert_array_equal(traced, [0.078125, 0.009765625])

    warm = cell.replace(celsius=20.0)
    ts = jnp.arange(4801, dtype=jnp.float64) * 0.025
    protocol = difflab.Step(10.0, 10.0, 110.0)
    ref = difflab.simulate(
        warm,
        protocol,
        ts,
        solver=diffrax.Tsit5(),
        stepsize_controller=diffrax.PIDController(rtol=1e-10, atol=1e-10),
        dt0=0.001,
        max_steps=200_000,
    )
    want = np.asarray(spike_times(ts, ref.ys["V"], max_spikes=32))
    got = np.asarray(spike_times(ts, difflab.simulate(warm, protocol, ts).ys["V"], max_spikes=32))
    assert np.sum(~np.isnan(want)) == 21  # 4.5x faster kinetics: 21 spikes in the 100 ms step
    # measured 0.0078 ms (at a fixed 5/64 ms step: 0.86 ms)
    np.testing.assert_allclose(got, want, atol=0.02)


def test_default_step_follows_the_membrane_stiffness():
    """Halved per doubling of Σḡ/C over twice hh's 156.3 mS/µF (Σḡ h / C = 24.4 at 5/64 ms)."""
    cell = HodgkinHuxley.squid_axon()
    assert float(cell.max_conductance()) == pytest.approx(156.3)
    # Σḡ/C over 312.6: 0.5, 0.88 (gNa 240), 1.08 (gNa 300), 2.0 (C 0.25), 8.1 (gNa 2500) -> k = 0, 0, 1, 1, 4
    cells = (cell, cell.replace(gNa=240.0), cell.replace(gNa=300.0), cell.replace(C=0.25), cell.replace(gNa=2500.0))
    steps = [c.default_dt0() for c in cells]
    assert steps == [0.078125, 0.078125, 0.0390625, 0.0390625, 0.078125 / 16]
    assert isinstance(steps[2], float)
    # traced conductances (jit, vmap): the same steps, as arrays
    traced = jax.jit(jax.vmap(lambda g: cell.replace(gNa=g).default_dt0()))(jnp.asarray([120.0, 300.0, 2500.0]))
    np.testing.assert_array_equal(traced, [0.078125, 0.0390625, 0.078125 / 16])


def test_a_fixed_step_that_does_not_resolve_the_input_fails_instead_of_reporting_success():
    """10^4 µA/cm² at the default step had given V from -242 to 687 mV with succeeded true (tight CVODE-like
    adaptive solve: -77 to 363 mV). Now that member fails by name; a resolvable input in the same batch does not."""
    model, ts = HodgkinHuxley.squid_axon(), jnp.arange(0.0, 5.0, 0.025)
    with pytest.raises(ValueError, match=r"V is nan at t = 1; .*a fixed step \(dt0 = 0.0769231\) too large for the "
                       r"dynamics.*pass a smaller dt0 or an adaptive stepsize_controller"):  # fmt: skip
        difflab.simulate(model, difflab.Step(1e4, 1.0, 3.0), ts)
    ok = jax.vmap(lambda a: difflab.simulate(model, difflab.Step(a, 1.0, 3.0), ts, throw=False).succeeded)
    assert np.asarray(ok(jnp.array([10.0, 1000.0, 5000.0]))).tolist() == [True, True, False]
    # a smaller step resolves it, and agrees with an adaptive solve at tight tolerance
    fine = difflab.simulate(model, difflab.Step(5000.0, 1.0, 3.0), ts, dt0=0.0025)["V"]
    pid = diffrax.PIDController(rtol=1e-8, atol=1e-8)
    tight = difflab.simulate(model, difflab.Step(5000.0, 1.0, 3.0), ts, stepsize_controller=pid, dt0=0.001)["V"]
    assert float(jnp.max(jnp.abs(fine - tight))) < 2.0  # mV, on a peak of about 238 mV
