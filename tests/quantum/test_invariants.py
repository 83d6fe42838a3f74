"""Physical invariants along driven trajectories: trace 1, Hermitian, positive; unit norm for kets."""

import math

import diffrax
import numpy as np

import difflab.quantum as q

TS = np.linspace(0.0, 20.0, 41)


def test_lindblad_state_stays_physical():
    # Driven, detuned, damped qutrit-cavity-like system: transmon 3 levels with a Gaussian drive and decay.
    n = 3
    a = q.destroy(n)
    H = 2 * math.pi * 0.05 * q.number(n) - 2 * math.pi * 0.1 * 0.5 * (a.conj().T @ a.conj().T @ a @ a)
    drive = q.Drive(q.GaussianPulse(0.6, center=10.0, sigma=2.0), a + a.conj().T)
    ds = q.mesolve(
        H, q.fock(n, 0), TS, drives=[drive], jump_ops=[np.sqrt(0.05 + 0j) * a, np.sqrt(0.02 + 0j) * q.number(n)],
        save_states=True, exp_ops={"n": q.number(n)},
    ).to_xarray()  # fmt: skip
    rho = ds.rho_re.values + 1j * ds.rho_im.values
    np.testing.assert_allclose(np.trace(rho, axis1=-2, axis2=-1), 1.0, atol=1e-10)
    np.testing.assert_allclose(rho, np.conj(np.swapaxes(rho, -1, -2)), atol=1e-14)
    assert np.linalg.eigvalsh(rho).min() >= -1e-10
    assert ds.expect.sel(observable="n").max() > 0.05  # the pulse did excite the system


def test_schrodinger_norm_is_conserved():
    spins = 4
    ops = [q.tensor(*[q.sigmaz() if k == i else q.eye(2) for k in range(spins)]) for i in range(spins)]
    flips = [q.tensor(*[q.sigmax() if k == i else q.eye(2) for k in range(spins)]) for i in range(spins)]
    H = sum(ops[i] @ ops[i + 1] for i in range(spins - 1)) + 0.7 * sum(flips)
    psi0 = q.tensor(*[q.basis(2, 0)] * spins)
    # Runge–Kutta does not conserve the norm exactly: the drift follows the tolerance (2e-6 at rtol = 1e-6).
    tight = diffrax.PIDController(rtol=1e-10, atol=1e-10)
    result = q.sesolve(H, psi0, TS, save_states=True, exp_ops=ops, stepsize_controller=tight)
    psi = np.asarray(result.states)
    np.testing.assert_allclose(psi, result.to_xarray().psi_re.values + 1j * result.to_xarray().psi_im.values)
    np.testing.assert_allclose(np.linalg.norm(psi, axis=-1), 1.0, atol=1e-8)
