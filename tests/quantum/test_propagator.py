"""Propagators against closed forms: U(t) = exp(-iHt) for a constant drive, the superoperator against `mesolve`.

A driven qubit H = (Δ/2)σz + (Ω/2)σx has U(t) = cos(ωt/2) I - i sin(ωt/2)(Δσz + Ωσx)/ω with ω = sqrt(Δ² + Ω²).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum as q

DELTA, OMEGA = 1.3, 0.7
W = np.hypot(DELTA, OMEGA)
H_QUBIT = 0.5 * DELTA * np.asarray(q.sigmaz()) + 0.5 * OMEGA * np.asarray(q.sigmax())
TIGHT = dict(rtol=1e-10, atol=1e-12)


def exact_u(t):
    generator = (DELTA * np.asarray(q.sigmaz()) + OMEGA * np.asarray(q.sigmax())) / W
    return np.cos(W * t / 2) * np.eye(2) - 1j * np.sin(W * t / 2) * generator


@pytest.fixture(scope="module")
def qubit():
    return q.sepropagator(H_QUBIT, jnp.linspace(0.0, 6.0, 7), **TIGHT)


def test_sepropagator_matches_closed_form(qubit):
    U = np.asarray(qubit.propagators)
    assert U.shape == (7, 2, 2)
    for k, t in enumerate(np.asarray(qubit.ts)):
        np.testing.assert_allclose(U[k], exact_u(t), atol=1e-9)


def test_composition_for_constant_hamiltonian(qubit):
    U = np.asarray(qubit.propagators)  # ts = 0, 1, ..., 6
    np.testing.assert_allclose(U[5], U[3] @ U[2], atol=1e-9)  # U(2 + 3) = U(3) U(2)
    np.testing.assert_allclose(U[6], U[1] @ U[5], atol=1e-9)


def test_dataset_and_fidelity(qubit):
    ds = qubit.to_xarray()
    assert ds["propagator_re"].dims == ("time", "row", "col")
    np.testing.assert_allclose(ds["propagator_im"].values[-1], exact_u(6.0).imag, atol=1e-9)
    U = qubit.propagators
    np.testing.assert_allclose(q.gate_fidelity(U[-1], exact_u(6.0)), 1.0, atol=1e-12)
    # against the identity: F = (d + |tr U|^2) / (d (d + 1)) with tr U = 2 cos(ωt/2)
    expected = (2 + 4 * np.cos(W * np.asarray(qubit.ts) / 2) ** 2) / 6
    np.testing.assert_allclose(q.gate_fidelity(U, np.eye(2)), expected, atol=1e-9)


def test_fidelity_and_leakage_on_a_subspace():
    # a rotation by θ between levels 1 and 2 of a qutrit leaks sin²θ of |1> out of {0, 1}
    theta = 0.3
    U = np.eye(3, dtype=complex)
    U[1:, 1:] = [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]
    np.testing.assert_allclose(q.leakage(U, [0, 1]), np.sin(theta) ** 2 / 2, atol=1e-15)
    # M = diag(1, cos θ): F = (1 + cos²θ + (1 + cos θ)²) / 6
    expected = (1 + np.cos(theta) ** 2 + (1 + np.cos(theta)) ** 2) / 6
    np.testing.assert_allclose(q.gate_fidelity(U, np.eye(2), subspace=[0, 1]), expected, atol=1e-15)
    with pytest.raises(ValueError, match=r"subspace must be distinct level indices in \[0, 3\)"):
        q.leakage(U, [0, 3])
    with pytest.raises(ValueError, match=r"target must be a \(2, 2\) gate"):
        q.gate_fidelity(U, np.eye(3), subspace=[0, 1])


def test_fidelity_gradient_through_the_propagator():
    # F(Ω) against the exact gate at Ω = 0.7: dF/dΩ = 0 at the optimum; at a detuned drive it matches differences
    target = exact_u(2.0)

    def infidelity(omega):
        H = 0.5 * DELTA * q.sigmaz() + (0.5 * omega) * q.sigmax().astype(complex)
        U = q.sepropagator(H, jnp.array([0.0, 2.0]), **TIGHT).propagators[-1]
        return 1.0 - q.gate_fidelity(U, target)

    grad = jax.grad(infidelity)(0.9)
    h = 1e-5
    fd = (infidelity(0.9 + h) - infidelity(0.9 - h)) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-5)


def test_mepropagator_reproduces_mesolve():
    n = 4
    a = np.asarray(q.destroy(n))
    H = a.conj().T @ a + 0.3 * (a + a.conj().T)
    jumps = [0.4 * a, 0.2 * (a.conj().T @ a)]
    psi = np.asarray(q.coherent(n, 0.5, max_lost_weight=1e-3))
    rho0 = 0.6 * np.outer(psi, psi.conj()) + 0.4 * np.asarray(q.fock_dm(n, 2))
    ts = jnp.array([0.0, 0.7, 1.5])
    S = np.asarray(q.mepropagator(H, ts, jump_ops=jumps, **TIGHT).propagators)
    assert S.shape == (3, n * n, n * n)
    np.testing.assert_allclose(S[0], np.eye(n * n), atol=1e-15)
    states = np.asarray(q.mesolve(H, rho0, ts, jump_ops=jumps, save_states=True, **TIGHT).states)
    for k in range(1, 3):
        rho = (S[k] @ rho0.T.reshape(-1)).reshape(n, n).T  # vec stacks columns
        np.testing.assert_allclose(rho, states[k], atol=1e-8)
    # column stacking: with no jumps, S(t) = conj(U) ⊗ U (QuTiP's to_super of U)
    S0 = np.asarray(q.mepropagator(H, ts, **TIGHT).propagators[-1])
    U = np.asarray(q.sepropagator(H, ts, **TIGHT).propagators[-1])
    np.testing.assert_allclose(S0, np.kron(U.conj(), U), atol=1e-9)


def _jaynes_cummings(n):
    a = np.kron(np.eye(2), np.asarray(q.destroy(n)))
    sm = np.kron(np.asarray(q.sigmam()), np.eye(n))
    return a.conj().T @ sm + a @ sm.conj().T, [np.sqrt(0.1) * a, np.sqrt(0.05) * sm]


def _kerr(n):
    a = np.asarray(q.destroy(n))
    ad = a.conj().T
    return -1.0 * ad @ a + 0.05 * ad @ ad @ a @ a + 1.0 * (a + ad), [a]


@pytest.mark.parametrize(
    "system",
    [lambda: (H_QUBIT, [np.sqrt(0.3) * np.asarray(q.sigmam())]), lambda: _jaynes_cummings(4), lambda: _kerr(6)],
    ids=["driven qubit", "Jaynes-Cummings 2x4", "driven Kerr 6"],
)
def test_mepropagator_equals_the_exponential_of_the_liouvillian(system):
    # For a constant generator S(t) = exp(L t) exactly (QuTiP's reference for propagators: (L t).expm()).
    import scipy.linalg

    H, jumps = system()
    S = np.asarray(q.mepropagator(H, jnp.array([0.0, 1.0]), jump_ops=jumps, **TIGHT).propagators[-1])
    np.testing.assert_allclose(S, scipy.linalg.expm(np.asarray(q.liouvillian(H, jumps))), atol=1e-8)
