"""`smesolve(..., solver=Rouchon())`: every trajectory a density matrix, the averages the master equation's, and each
trajectory the exact filter of its own record.

Systems:
- the driven qubit of test_smesolve.py (Ω = 2, δ = 0.5 rad/ns, decay γ = 1/ns and dephasing γφ = 0.5/ns), here both
  channels detected perfectly (η = 1) at a coarse step, 0.01 ns over 3 ns: the regime where Euler–Maruyama leaves the
  set of density matrices (measured with `diffrax.Euler()` on these trajectories: 59 of 64 Bloch vectors past 1.01,
  up to 2.23 long, and one trajectory diverged to NaN);
- a qubit under a continuous QND measurement (H = (ω/2)σz, L = √k diag(1.5, −0.5), η = 1) from |+⟩, whose filter is
  exact: with the record Y(t) (H and L diagonal, L's entries l_i), the unnormalised state is
  ρ̃_ij(t) = ρ_ij(0) exp([−i(h_i − h_j) + l_i l_j − (l_i² + l_j²)/2 − (l_i + l_j)²/2] t + (l_i + l_j) Y(t))
  (Wiseman & Milburn 2010, ch. 4: the linear SME in the record, normalised), so each trajectory's error can be
  measured against its own record.
"""

import warnings

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum as q
import difflab.quantum._smesolve_checks as smesolve_checks

KEY = jax.random.key(11)
SX, SY, SZ, SM = (np.asarray(f()) for f in (q.sigmax, q.sigmay, q.sigmaz, q.sigmam))
PAULIS = {"x": SX, "y": SY, "z": SZ}

TS = np.linspace(0.0, 3.0, 16)
QUBIT_H = 1.0 * SX + 0.25 * SZ
QUBIT_JUMPS = [SM, np.sqrt(0.25) * SZ]
COARSE, NTRAJ = 0.01, 64

OMEGA, K = 1.0, 1.0
QND_TS = np.linspace(0.0, 1.0, 11)
# not a multiple of a Pauli matrix: L² is not the identity, so Milstein's term of the Kraus operator matters
QND_L = np.array([1.5, -0.5])
PLUS = np.array([1.0, 1.0]) / np.sqrt(2)


def solve_qubit(solver=None, etas=1.0, ntraj=NTRAJ):
    return q.smesolve(QUBIT_H, q.basis(2, 0), TS, QUBIT_JUMPS, etas=etas, ntraj=ntraj, key=KEY, exp_ops=PAULIS,
                      dt0=COARSE, solver=solver)  # fmt: skip


@pytest.fixture(scope="module")
def rouchon():
    with jax.numpy_dtype_promotion("strict"):
        return solve_qubit()  # Rouchon is smesolve's default step


def test_every_trajectory_stays_a_density_matrix(rouchon):
    bloch = np.asarray(rouchon.trajectory_expects.real)  # (trajectory, time, xyz)
    assert bloch.shape == (NTRAJ, 16, 3)
    # a qubit's rho is positive exactly when its Bloch vector lies in the unit ball; with both channels detected
    # perfectly the state stays pure, so the vector stays on the sphere
    length = np.linalg.norm(bloch, axis=-1)
    assert length.max() < 1 + 1e-12
    np.testing.assert_allclose(length, 1.0, atol=1e-12)
    np.testing.assert_allclose(np.asarray(rouchon.trajectory_expects.imag), 0.0, atol=1e-14)  # Hermitian
    rho = np.asarray(rouchon.final_state)
    assert np.linalg.eigvalsh(rho).min() > -1e-14 and abs(np.trace(rho) - 1) < 1e-12


def test_the_average_is_the_master_equations(rouchon):
    me = q.mesolve(QUBIT_H, q.basis(2, 0), TS, jump_ops=QUBIT_JUMPS, exp_ops=PAULIS, rtol=1e-10, atol=1e-12)
    mean, err = np.asarray(rouchon.expects.real), np.asarray(rouchon.expects_stderr.real)
    assert np.all(err[1:] > 0.01)  # the trajectories spread: the comparison is not vacuous
    # within 4 standard errors plus the weak-order-1 bias of the coarse step (measured: 1.8 standard errors at worst)
    assert np.all(np.abs(mean - np.asarray(me.expects.real)) < 4 * err + 5 * COARSE)


def test_partial_detection_keeps_the_state_positive_and_mixed():
    """η = (0.5, 0.3): the unread part of each channel mixes the state; it stays in the ball, not on the sphere."""
    result = solve_qubit(q.Rouchon(), etas=np.array([0.5, 0.3]), ntraj=16)  # the step named: the same as the default
    length = np.linalg.norm(np.asarray(result.trajectory_expects.real), axis=-1)
    assert length.max() < 1 + 1e-12
    assert length[:, -1].max() < 0.99  # measured 0.94: information is lost, the states are mixed


def exact_filter(records: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """<σx>, <σy>, <σz> of the exact QND filter of records Y(t) (trajectory, time): module docstring."""
    l = np.sqrt(K) * QND_L
    h = 0.5 * OMEGA * np.array([1.0, -1.0])
    li, lj = l[:, None], l[None, :]
    a = -1j * (h[:, None] - h[None, :]) + li * lj - 0.5 * (li**2 + lj**2) - 0.5 * (li + lj) ** 2
    rho0 = np.outer(PLUS, PLUS)
    # exponents relative to the largest diagonal one, so that exp() stays finite
    expo = a[None, None] * ts[None, :, None, None] + (li + lj)[None, None] * records[..., None, None]
    expo = expo - np.max(expo[..., [0, 1], [0, 1]].real, axis=-1)[..., None, None]
    rho = rho0 * np.exp(expo)
    rho = rho / np.trace(rho, axis1=-2, axis2=-1)[..., None, None]
    return np.stack([np.einsum("ij,...ji->...", P, rho).real for P in (SX, SY, SZ)], axis=-1)


def qnd_errors(solver, dt):
    H, L = 0.5 * OMEGA * SZ, np.sqrt(K) * np.diag(QND_L)
    r = q.smesolve(H, PLUS, QND_TS, [L], ntraj=48, key=KEY, exp_ops=PAULIS, dt0=dt, solver=solver)
    # Y(t) from the bins' currents: J = ΔY / Δt, Y(0) = 0
    Y = np.concatenate([np.zeros((48, 1)), np.cumsum(np.asarray(r.currents[..., 0]) * np.diff(QND_TS), axis=1)], 1)
    got = np.asarray(r.trajectory_expects.real)
    return np.sqrt(np.mean((got - exact_filter(Y, QND_TS)) ** 2))


def test_each_trajectory_follows_the_exact_filter_of_its_record_to_first_order():
    """Rouchon's step with Milstein's term inside its Kraus operator has strong order 1 here: a step 4× smaller
    leaves a 4× smaller error (measured: RMS 8.1e-3 → 1.8e-3, ratio 4.6). Without that term it has strong order 1/2
    (3.3e-2 → 1.8e-2, ratio 1.8); on the same trajectories Itô–Milstein gives 2.5e-2 → 7.4e-3 and Euler–Maruyama
    9.8e-2 → 4.2e-2."""
    coarse, fine = qnd_errors(q.Rouchon(), 0.02), qnd_errors(q.Rouchon(), 0.005)
    assert coarse < 0.015
    assert coarse / fine > 3.0


def test_gradient_through_the_positive_step_matches_a_central_difference():
    def final_z(omega):
        H = (0.5 * omega) * jnp.asarray(SX) + 0.25 * jnp.asarray(SZ)
        r = q.smesolve(H, q.basis(2, 0), TS, QUBIT_JUMPS, etas=jnp.array([0.9, 0.6]), ntraj=8, key=KEY,
                       exp_ops={"z": SZ}, dt0=0.02, solver=q.Rouchon())  # fmt: skip
        return r.expects[-1, 0].real

    grad = jax.grad(final_z)(2.0)
    h = 1e-4
    central = (final_z(2.0 + h) - final_z(2.0 - h)) / (2 * h)
    np.testing.assert_allclose(grad, central, rtol=1e-5)
    assert abs(float(grad)) > 1e-2


def test_the_positive_step_outside_smesolve_is_refused_by_name():
    term = diffrax.MultiTerm(
        diffrax.ODETerm(lambda t, y, args: -y),
        diffrax.ControlTerm(lambda t, y, args: y, diffrax.VirtualBrownianTree(0.0, 1.0, 1e-3, (), key=KEY)),
    )
    with pytest.raises(TypeError, match="Rouchon steps the stochastic master equation of smesolve"):
        diffrax.diffeqsolve(term, q.Rouchon(), 0.0, 1.0, 0.1, jnp.array(1.0))


def test_trajectories_that_leave_the_density_matrices_are_reported():
    """Euler–Maruyama at the coarse step takes most of these trajectories out of the unit ball (measured: 59 of 64
    Bloch vectors past 1.01 at some save time, 32 final states with a negative eigenvalue down to −0.23, one
    trajectory NaN): smesolve says so instead of returning their averages silently."""
    with pytest.warns(RuntimeWarning, match=r"of 64 trajectories, \d+ diverged \(NaN/inf\) and \d+ ended outside the "
                      r"density matrices \(lowest eigenvalue -[\d.e+-]+\) with solver Euler"):  # fmt: skip
        solve_qubit(diffrax.Euler())


def test_milstein_with_several_records_is_reported_and_with_one_is_not():
    """The decay and dephasing records' noise terms do not commute: diffrax's Milstein step, without Lévy areas, is
    of strong order 1/2 there, and smesolve says so; with one record it is Milstein's method and nothing is said."""
    with pytest.warns(RuntimeWarning, match=r"solver: diffrax.ItoMilstein\(\) with 2 measured records is not "):
        solve_qubit(diffrax.ItoMilstein(), ntraj=2)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        q.smesolve(0.5 * SZ, PLUS, QND_TS, [np.diag(QND_L)], ntraj=2, key=KEY, dt0=0.05, solver=diffrax.ItoMilstein())
    assert not [w for w in said if str(w.message).startswith("solver: diffrax.ItoMilstein")]


def kerr_cavity(n):
    a = np.asarray(q.destroy(n))
    return a.conj().T @ a + 0.5 * (a + a.conj().T) + 0.2 * a.conj().T @ a.conj().T @ a @ a, a


def test_a_step_that_does_not_resolve_the_generator_is_reported():
    """A driven Kerr cavity (K = 0.2 rad/ns, heterodyne, η = 0.8) at dt = 0.002 ns for 3 ns. With 40 levels the top
    one turns at 336 rad/ns (ω dt = 0.67): each step multiplies it by 1.38 relative to the slowest mode, and over the
    1500 steps it takes over the state, which stays positive (measured: ⟨n⟩ = 36 at 3 ns against the master
    equation's 0.26). With 20 levels (87 rad/ns, damped faster than the step amplifies it) the same step is right:
    it agrees with QuTiP (benchmarks/quantum_sme_qutip.py) and is not reported."""
    H, a = kerr_cavity(40)
    message = r"dt0 = 0.002 does not resolve .* frequency 336 by 1.38 .* \(10\^208 over the 1500 steps\).* 2.67e-05"
    with pytest.warns(RuntimeWarning, match=message):
        q.smesolve(H, q.basis(40, 0), np.linspace(0.0, 3.0, 3), [a], measured={0: "heterodyne"}, etas=0.8, ntraj=1,
                   key=KEY, dt0=0.002)  # fmt: skip
    H, a = kerr_cavity(20)
    smesolve_checks.warn_unresolved_step(H, a[None], 0.002, 1500)  # no warning: warnings are errors in the suite
