"""`steadystate` against analytic stationary states, the iterative method against the direct one, and gradients.

- Damped driven qubit, H = (Δ/2)σz + (Ω/2)σx, L = sqrt(γ)σ- (|0> excited, QuTiP's convention): excited
  population p = (Ω²/4) / (Δ² + γ²/4 + Ω²/2) and <σ-> = i(Ω/2)(2p - 1) / (iΔ + γ/2) (optical Bloch equations).
- Thermal cavity, L1 = sqrt(κ(1 + n_th)) a, L2 = sqrt(κ n_th) a†: detailed balance between neighbouring Fock
  levels gives p_k ∝ (n_th / (1 + n_th))^k, exactly, also in the truncated space.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum as q

DELTA, OMEGA, GAMMA = 0.4, 0.9, 0.5
SZ, SX, SM = (np.asarray(op) for op in (q.sigmaz(), q.sigmax(), q.sigmam()))


def qubit_state(delta, omega, method="direct"):
    H = (0.5 * delta) * SZ + (0.5 * omega) * SX
    return q.steadystate(H, [np.sqrt(GAMMA) * SM], method=method)


def excited_population(delta, omega):
    return (omega**2 / 4) / (delta**2 + GAMMA**2 / 4 + omega**2 / 2)


@pytest.mark.parametrize("method", ["direct", "iterative"])
def test_damped_driven_qubit(method):
    rho = np.asarray(qubit_state(DELTA, OMEGA, method))
    p = excited_population(DELTA, OMEGA)
    np.testing.assert_allclose(rho[0, 0], p, atol=1e-10)
    np.testing.assert_allclose(rho[0, 1], 1j * (OMEGA / 2) * (2 * p - 1) / (1j * DELTA + GAMMA / 2), atol=1e-10)
    np.testing.assert_allclose(np.trace(rho), 1.0, atol=1e-14)


@pytest.mark.parametrize("method", ["direct", "iterative"])
def test_thermal_cavity(method):
    n, kappa, n_th = 12, 0.3, 0.4
    a = np.asarray(q.destroy(n))
    H = 2.0 * a.conj().T @ a
    jumps = [np.sqrt(kappa * (1 + n_th)) * a, np.sqrt(kappa * n_th) * a.conj().T]
    rho = np.asarray(q.steadystate(H, jumps, method=method))
    p = (n_th / (1 + n_th)) ** np.arange(n)
    np.testing.assert_allclose(rho, np.diag(p / p.sum()), atol=1e-8)


def test_iterative_matches_direct_on_a_driven_kerr_oscillator():
    n = 10
    a = np.asarray(q.destroy(n))
    ad = a.conj().T
    H = -0.5 * ad @ a + 0.2 * ad @ ad @ a @ a + 0.6 * (a + ad)
    direct = q.steadystate(H, [np.sqrt(0.8) * a])
    iterative = q.steadystate(H, [np.sqrt(0.8) * a], method="iterative")
    np.testing.assert_allclose(iterative, direct, atol=1e-8)
    # the stationary state is a fixed point of the Liouvillian
    L = np.asarray(q.liouvillian(H, [np.sqrt(0.8) * a]))
    assert np.abs(L @ np.asarray(direct).T.reshape(-1)).max() < 1e-12


@pytest.mark.parametrize("method", ["direct", "iterative"])
def test_gradient_against_finite_differences_and_analytic(method):
    def population(omega):
        return jnp.real(qubit_state(DELTA, omega, method)[0, 0])

    grad = jax.grad(population)(OMEGA)
    h = 1e-6
    fd = (population(OMEGA + h) - population(OMEGA - h)) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-6)
    c = DELTA**2 + GAMMA**2 / 4
    np.testing.assert_allclose(grad, OMEGA * c / 2 / (c + OMEGA**2 / 2) ** 2, rtol=1e-8)  # d/dΩ of p(Ω)


def test_refuses_no_unique_steady_state():
    with pytest.raises(ValueError, match="jump_ops must hold at least one jump operator"):
        q.steadystate(SZ, [])
    # pure dephasing: every diagonal state is stationary (a 2-dimensional null space)
    with pytest.raises(ValueError, match="2-dimensional null space: no unique steady state"):
        q.steadystate(SZ, [0.3 * SZ])
    with pytest.raises(ValueError, match="method must be one of"):
        q.steadystate(SZ, [SM], method="svd")
    with pytest.raises(ValueError, match=r"jump_ops\[0\] has shape \(3, 3\) but H acts on dimension 2"):
        q.steadystate(SZ, [np.eye(3)])
