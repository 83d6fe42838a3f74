"""Analytic Rabi, T1 decay and Ramsey solutions and their exact gradients.

Systems (ħ = 1, time in µs, angular frequencies in rad/µs; |e> = (1, 0)):
- Rabi: H = (Δ/2) σz + (Ω/2) σx from |g>: P_e(t) = Ω²/Ω_R² sin²(Ω_R t/2), Ω_R = √(Ω² + Δ²), ⟨σz⟩ = 2 P_e − 1.
- T1 decay: H = 0, L = √(1/T1) σ− from |e>: ⟨σz⟩ = 2 e^{−t/T1} − 1.
- Ramsey: H = (Δ/2) σz, L1 = √(1/T1) σ−, L2 = √(γφ/2) σz with γφ = 1/T2 − 1/(2T1), from |+x> = (|e> + |g>)/√2:
  ⟨σx⟩ = cos(Δt) e^{−t/T2}, ⟨σy⟩ = sin(Δt) e^{−t/T2}, ⟨σz⟩ = e^{−t/T1} − 1.
Gradients of the simulated values (forward mode through the solver for the Rabi and Ramsey sets, reverse mode for
T1) are compared with the derivatives of these closed forms; tolerances follow the solver tolerance
rtol = atol = 1e-10. Values and Jacobians come from one compiled call to keep the suite fast.
"""

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum as q

TS = jnp.linspace(0.0, 2.0, 9)
TOL = dict(stepsize_controller=diffrax.PIDController(rtol=1e-10, atol=1e-10), max_steps=4096)
SX, SY, SZ = (q.dia(op) for op in (q.sigmax(), q.sigmay(), q.sigmaz()))
SM = q.dia(q.sigmam())


FORWARD = diffrax.ForwardMode()


def _expect(model, adjoint=FORWARD):
    traj = q.solve_model(model, TS, exp_ops=(SX, SY, SZ), adjoint=adjoint, **TOL)
    return traj.ys["expect_re"]


def value_and_jacfwd(f):
    """Jitted `x -> (f(x), df/dx)` from one forward-mode pass."""
    return jax.jit(jax.jacfwd(lambda x: (f(x), f(x)), has_aux=True))


def rabi_sim(params):
    omega, delta = params
    H = delta * (0.5 * SZ) + omega * (0.5 * SX)
    return _expect(q.SchrodingerModel(H, psi0=q.basis(2, 1), time_units="us"))[:, 2]


def rabi_exact(params):
    omega, delta = params
    omega_r = jnp.sqrt(omega**2 + delta**2)
    return 2 * omega**2 / omega_r**2 * jnp.sin(omega_r * TS / 2) ** 2 - 1


def decay_sim(t1):
    model = q.LindbladModel(q.dia(np.zeros((2, 2))), (), [jnp.sqrt(1 / t1) * SM], rho0=q.basis(2, 0))
    return _expect(model, adjoint=diffrax.RecursiveCheckpointAdjoint())[:, 2]


def ramsey_sim(params):
    delta, t1, t2 = params
    gphi = 1 / t2 - 1 / (2 * t1)
    jumps = [jnp.sqrt(1 / t1) * SM, jnp.sqrt(gphi / 2) * SZ]
    plus = (q.basis(2, 0) + q.basis(2, 1)) / 2**0.5
    return _expect(q.LindbladModel(delta * (0.5 * SZ), (), jumps, rho0=plus))


def ramsey_exact(params):
    delta, t1, t2 = params
    decay = jnp.exp(-TS / t2)
    return jnp.stack([jnp.cos(delta * TS) * decay, jnp.sin(delta * TS) * decay, jnp.exp(-TS / t1) - 1], axis=-1)


@pytest.mark.slow
def test_rabi_values_and_gradients():
    params = jnp.array([2 * np.pi * 1.3, 2 * np.pi * 0.4])
    jac, value = value_and_jacfwd(rabi_sim)(params)
    np.testing.assert_allclose(value, rabi_exact(params), atol=1e-8)
    np.testing.assert_allclose(jac, jax.jacfwd(rabi_exact)(params), atol=1e-7)


@pytest.mark.slow
def test_t1_decay_value_and_gradient():
    t1 = jnp.array(1.7)
    exact = 2 * jnp.exp(-TS / t1) - 1
    d_exact = 2 * TS / t1**2 * jnp.exp(-TS / t1)
    value, vjp = jax.jit(lambda t1: jax.vjp(decay_sim, t1))(t1)
    np.testing.assert_allclose(value, exact, atol=1e-9)
    # Reverse mode: the cotangent e_k picks d<sz>(t_k)/dT1; one-hot cotangents give the whole Jacobian.
    jac = jax.vmap(lambda c: vjp(c)[0])(jnp.eye(TS.shape[0]))
    np.testing.assert_allclose(jac, d_exact, atol=1e-8)


@pytest.mark.slow
def test_ramsey_values_and_gradients():
    params = jnp.array([2 * np.pi * 0.8, 3.0, 2.2])
    jac, value = value_and_jacfwd(ramsey_sim)(params)
    np.testing.assert_allclose(value, ramsey_exact(params), atol=1e-9)
    np.testing.assert_allclose(jac, jax.jacfwd(ramsey_exact)(params), atol=1e-8)


def test_without_observables_the_states_are_returned():
    """No `exp_ops`: the states are the result (as QuTiP returns them), not an error inside the solve.

    Rabi rotation H = (Ω/2) σx from |0>: ψ(t) = (cos(Ωt/2), −i sin(Ωt/2)); for `mesolve` without jumps ρ = ψψ†."""
    omega, ts = 1.3, np.linspace(0.0, 2.0, 6)
    psi = np.stack([np.cos(omega * ts / 2), -1j * np.sin(omega * ts / 2)], axis=1)
    tight = {"rtol": 1e-10, "atol": 1e-12}
    r = q.sesolve(0.5 * omega * q.sigmax(), q.basis(2, 0), ts, **tight)
    np.testing.assert_allclose(np.asarray(r.states), psi, atol=1e-8)
    assert np.shape(r.expects) == (ts.size, 0)
    assert r.to_xarray()["psi_re"].shape == (ts.size, 2)
    m = q.mesolve(0.5 * omega * q.sigmax(), q.basis(2, 0), ts, **tight)
    np.testing.assert_allclose(np.asarray(m.states), np.einsum("ti,tj->tij", psi, psi.conj()), atol=1e-8)
