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
    direct = q.steadystate(H, [np.sqrt(0.8) * a], method="direct")
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
    for method in ("direct", "iterative"):
        with pytest.raises(ValueError, match="2-dimensional null space: no unique steady state"):
            q.steadystate(SZ, [0.3 * SZ], method=method)
    with pytest.raises(ValueError, match="method must be one of"):
        q.steadystate(SZ, [SM], method="svd")
    with pytest.raises(ValueError, match=r"jump_ops\[0\] has shape \(3, 3\) but H acts on dimension 2"):
        q.steadystate(SZ, [np.eye(3)])


# A qubit that nothing touches beside a damped 17-level cavity: sigma_z (x) 1 is conserved, so every qubit
# population over the cavity's vacuum is stationary (n = 34, above the singular-value check's 32 levels).
DECOUPLED_H = np.kron(SZ, np.eye(17))
DECOUPLED_JUMPS = [np.kron(np.eye(2), np.asarray(q.destroy(17)))]


def test_probe_refuses_a_second_stationary_state_above_32_levels():
    with pytest.raises(ValueError, match=r"no unique steady state.*\(moved by 0.5 at the rate, 0.5 at a tenth of it\)"):
        q.steadystate(DECOUPLED_H, DECOUPLED_JUMPS, method="iterative", check_unique=True)
    # without the probe, one of the stationary states comes back (documented): L rho = 0 holds
    rho = np.asarray(q.steadystate(DECOUPLED_H, DECOUPLED_JUMPS, method="iterative"))
    L = np.asarray(q.liouvillian(DECOUPLED_H, DECOUPLED_JUMPS))
    assert np.abs(L @ rho.T.reshape(-1)).max() < 1e-12
    # inside jit the refusal is raised when the program runs
    probed = jax.jit(
        lambda g: q.steadystate(DECOUPLED_H, [g * DECOUPLED_JUMPS[0]], method="iterative", check_unique=True)
    )
    with pytest.raises(Exception, match="no unique steady state"):
        probed(jnp.asarray(1.0 + 0j)).block_until_ready()


def test_probe_passes_a_unique_state_above_32_levels():
    n, kappa, n_th = 40, 0.3, 0.4
    a = np.asarray(q.destroy(n))
    jumps = [np.sqrt(kappa * (1 + n_th)) * a, np.sqrt(kappa * n_th) * a.conj().T]
    rho = np.asarray(q.steadystate(2.0 * a.conj().T @ a, jumps, method="iterative", check_unique=True))
    p = (n_th / (1 + n_th)) ** np.arange(n)
    np.testing.assert_allclose(rho, np.diag(p / p.sum()), atol=1e-10)


def test_probe_passes_a_unique_state_with_a_small_gap():
    # A weakly damped Kerr oscillator (kappa = 0.01 against max|G| = 35): the probe's channel moves the state by
    # 1.5e-3 at its rate and 1.5e-4 at a tenth of it, in proportion, so it is unique. A rule on the size alone
    # (moved by more than sqrt(rtol) at 1e-8 max|G|: 1.5e-5) refused it.
    n, kappa = 40, 0.01
    a = np.asarray(q.destroy(n))
    ad = a.conj().T
    H, jumps = -1.0 * ad @ a + 0.05 * ad @ ad @ a @ a + 1.0 * (a + ad), [np.sqrt(kappa) * a]
    rho = q.steadystate(H, jumps, method="iterative", check_unique=True)
    np.testing.assert_allclose(rho, q.steadystate(H, jumps, method="direct"), atol=1e-9)


def test_probe_that_does_not_converge_warns(monkeypatch):
    from difflab.quantum import _steadystate

    rho = q.steadystate(DECOUPLED_H, DECOUPLED_JUMPS, method="iterative")
    monkeypatch.setattr(_steadystate, "_probe", lambda *args: (rho, rho, jnp.asarray(False)))
    with pytest.warns(RuntimeWarning, match="uniqueness probe .* did not converge"):
        q.steadystate(DECOUPLED_H, DECOUPLED_JUMPS, method="iterative", check_unique=True)


def test_gmres_that_does_not_converge_is_refused():
    with pytest.raises(RuntimeError, match=r"GMRES \(steadystate's iterative method\) did not reach rtol/atol"):
        q.steadystate(DECOUPLED_H, DECOUPLED_JUMPS, method="iterative", max_steps=2)


def test_iterative_at_an_exceptional_point_of_the_effective_generator():
    # G = -iH - L^dag L / 2 = [[-i g... ]] is defective at g = gamma / 4 (a PT-symmetric exceptional point): its
    # eigenbasis is singular, and the preconditioner falls back to the diagonal one; the state is the same.
    gamma = 0.25
    H = np.array([[0.0, gamma / 4], [gamma / 4, 0.0]], complex)
    jumps = [np.sqrt(gamma) * np.array([[0.0, 0.0], [1.0, 0.0]], complex)]
    direct = q.steadystate(H, jumps, method="direct")
    np.testing.assert_allclose(q.steadystate(H, jumps, method="iterative"), direct, atol=1e-12)


@pytest.mark.parametrize(("levels", "expected"), [(16, "direct"), (17, "iterative")])
def test_auto_solves_small_spaces_directly_and_large_ones_iteratively(monkeypatch, levels, expected):
    from difflab.quantum import _steadystate

    used = []
    for name in ("direct", "iterative"):
        solve = getattr(_steadystate, f"_{name}")
        monkeypatch.setattr(_steadystate, f"_{name}", lambda *a, _s=solve, _n=name: used.append(_n) or _s(*a))
    a = np.asarray(q.destroy(levels))
    rho = np.asarray(q.steadystate(2.0 * a.conj().T @ a, [np.sqrt(0.42) * a, np.sqrt(0.12) * a.conj().T]))
    assert used == [expected]
    p = (0.12 / 0.42) ** np.arange(levels)  # detailed balance, as the thermal cavity above
    np.testing.assert_allclose(rho, np.diag(p / p.sum()), atol=1e-10)
