"""`smesolve` (homodyne unravelling) against `mesolve` and against the exact solutions of a damped cavity.

Two systems, each compiled once: a driven qubit with decay (measured, η = 0.8) and dephasing (measured, η = 0.5),
200 trajectories; a detuned damped cavity (N = 6) from the coherent state |0.5⟩, measured with η = 0.7, 200
trajectories. Both run the default step, Rouchon's positive map (test_smesolve_rouchon.py compares it with
Euler–Maruyama and Itô–Milstein), and take steps
of DT = 2e-3 ns over 3 ns, saved every 0.2 ns (15 bins).

Statistical bounds are 4 standard errors (a false alarm rate of ~6e-5 per comparison for a correct unravelling);
bounds on the discretisation are stated in units of DT (the step has weak order 1).
"""

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
import difflab.quantum as q
import difflab.quantum._smesolve as smesolve_module

DT, NTRAJ = 2e-3, 200
TS = np.linspace(0.0, 3.0, 16)
BIN = TS[1] - TS[0]
KEY = jax.random.key(7)

SX, SY, SZ, SM = (np.asarray(f()) for f in (q.sigmax, q.sigmay, q.sigmaz, q.sigmam))
OMEGA, DETUNING, GAMMA, GAMMA_PHI = 2.0, 0.5, 1.0, 0.5
QUBIT_JUMPS = [np.sqrt(GAMMA) * SM, np.sqrt(GAMMA_PHI / 2) * SZ]
QUBIT_ETAS = np.array([0.8, 0.5])
QUBIT_EXP = {"1": np.eye(2), "x": SX, "y": SY, "z": SZ}

N, ALPHA, KAPPA, CAVITY_DETUNING, CAVITY_ETA = 6, 0.5, 1.0, 1.0, 0.7
A = np.asarray(q.destroy(N))
CAVITY_EXP = {"a": A, "n": A.conj().T @ A, "1": np.eye(N)}
Z = 1j * CAVITY_DETUNING + KAPPA / 2  # <a>(t) = ALPHA exp(-Z t): no backaction on a coherent state


def qubit_H(omega):
    return (0.5 * omega) * jnp.asarray(SX) + (0.5 * DETUNING) * jnp.asarray(SZ)


def solve_qubit(omega=OMEGA, etas=QUBIT_ETAS, key=KEY):
    return q.smesolve(
        qubit_H(omega), q.basis(2, 0), TS, QUBIT_JUMPS, etas=etas, ntraj=NTRAJ, key=key, exp_ops=QUBIT_EXP, dt0=DT
    )


@pytest.fixture(scope="module")
def qubit():
    # module fixtures start before the per-test strict promotion (tests/conftest.py): set it here too, so that the
    # library is held to it and the tests' own solves reuse this compiled program (the setting is part of its key)
    with jax.numpy_dtype_promotion("strict"):
        return solve_qubit()


@pytest.fixture(scope="module")
def qubit_exact():
    H = np.asarray(qubit_H(OMEGA))
    with jax.numpy_dtype_promotion("strict"):
        result = q.mesolve(H, q.basis(2, 0), TS, jump_ops=QUBIT_JUMPS, exp_ops=QUBIT_EXP, rtol=1e-10, atol=1e-12)
    return np.asarray(result.expects.real)


@pytest.fixture(scope="module")
def cavity():
    H = CAVITY_DETUNING * CAVITY_EXP["n"]
    with jax.numpy_dtype_promotion("strict"):
        return q.smesolve(H, q.coherent(N, ALPHA), TS, [np.sqrt(KAPPA) * A], etas=CAVITY_ETA, ntraj=NTRAJ, key=KEY,
                          exp_ops=CAVITY_EXP, dt0=DT)  # fmt: skip


def test_qubit_mean_within_four_standard_errors_of_mesolve(qubit, qubit_exact):
    mean, err = np.asarray(qubit.expects.real), np.asarray(qubit.expects_stderr.real)
    assert mean.shape == err.shape == (16, 4)
    np.testing.assert_allclose(mean[0], qubit_exact[0], atol=1e-12)  # every trajectory starts in |0>
    assert np.all(err[1:, 1:] > 0.005)  # the measurement spreads the trajectories: the comparison is not vacuous
    assert np.all(np.abs(mean[1:, 1:] - qubit_exact[1:, 1:]) < 4 * err[1:, 1:])
    # the trajectory-averaged final state is the master equation's, within the same statistics
    rho = np.asarray(qubit.final_state)
    bloch = [np.trace(P @ rho).real for P in (SX, SY, SZ)]
    assert np.all(np.abs(np.array(bloch) - qubit_exact[-1, 1:]) < 4 * err[-1, 1:])


def test_trace_and_hermiticity_kept_on_every_trajectory(qubit):
    values = np.asarray(qubit.trajectory_expects)
    assert values.shape == (NTRAJ, 16, 4)
    np.testing.assert_allclose(values[..., 0].real, 1.0, atol=1e-12)  # tr rho
    # tr(P rho) is real for the identity and the three Paulis exactly when the qubit's rho is Hermitian
    np.testing.assert_allclose(values.imag, 0.0, atol=1e-12)
    # and positive: the Bloch vector stays in the unit ball (Euler–Maruyama left it by up to 3.3 % here)
    assert np.linalg.norm(values[..., 1:].real, axis=-1).max() < 1 + 1e-12
    rho = np.asarray(qubit.final_state)
    np.testing.assert_allclose(rho, rho.conj().T, atol=1e-14)
    assert abs(np.trace(rho) - 1) < 1e-12


def test_without_detection_the_state_is_deterministic_and_the_currents_white_noise(qubit_exact):
    blind = solve_qubit(etas=np.zeros(2))
    values = np.asarray(blind.trajectory_expects.real)
    np.testing.assert_array_equal(values, np.broadcast_to(values[0], values.shape))  # no backaction at all
    assert np.abs(values[0] - qubit_exact).max() < 2 * DT  # the step's global error, O(DT) (measured 1.0e-3)
    currents = np.asarray(blind.currents)
    assert currents.shape == (NTRAJ, 15, 2)
    samples = currents.reshape(-1, 2)  # J = ΔW / BIN: mean 0, variance 1 / BIN, channels independent
    n = samples.shape[0]
    assert np.all(np.abs(samples.mean(axis=0)) < 4 / np.sqrt(BIN * n))
    assert np.all(np.abs(samples.var(axis=0, ddof=1) * BIN - 1) < 4 * np.sqrt(2 / (n - 1)))
    assert abs(np.corrcoef(samples.T)[0, 1]) < 4 / np.sqrt(n)


def test_coherent_state_stays_coherent_on_every_trajectory(cavity):
    values = np.asarray(cavity.trajectory_expects)
    exact = ALPHA * np.exp(-Z * TS)
    # <a> follows the damped amplitude on each trajectory, and <n> = |<a>|^2 (zero variance of a: a coherent
    # state), up to the step's error (measured: 1.6e-3 and 1.3e-5); a state with backaction
    # would spread by ~0.1 here
    assert np.abs(values[..., 0] - exact).max() < 2 * DT
    assert np.abs(values[..., 1].real - np.abs(values[..., 0]) ** 2).max() < DT / 4
    # the normalised map keeps the trace and a real <n> too
    np.testing.assert_allclose(values[..., 2], 1.0, atol=1e-12)
    np.testing.assert_allclose(values[..., 1].imag, 0.0, atol=1e-12)
    # the average equals the master equation's (the spread is ~1e-4, so the step's bias is what remains)
    H = CAVITY_DETUNING * CAVITY_EXP["n"]
    me = q.mesolve(H, q.coherent(N, ALPHA), TS, jump_ops=[np.sqrt(KAPPA) * A], exp_ops=CAVITY_EXP, rtol=1e-10,
                   atol=1e-12).expects  # fmt: skip
    err = np.asarray(cavity.expects_stderr.real)
    assert np.all(np.abs(np.asarray(cavity.expects - me)) < 4 * err + DT)


def test_cavity_mean_current_is_the_damped_x_quadrature(cavity):
    currents = np.asarray(cavity.currents[..., 0])
    # E[J] over a bin = sqrt(eta kappa) <a + a^dag> averaged over the bin, with <a>(t) = ALPHA exp(-Z t)
    integral = 2 * np.real(ALPHA * (np.exp(-Z * TS[:-1]) - np.exp(-Z * TS[1:])) / Z)
    expected = np.sqrt(CAVITY_ETA * KAPPA) * integral / BIN
    err = currents.std(axis=0, ddof=1) / np.sqrt(NTRAJ)
    np.testing.assert_allclose(err, 1 / np.sqrt(BIN * NTRAJ), rtol=0.4)  # white noise of intensity 1
    assert expected.max() > 3 * err.max()  # the signal is resolved: the comparison is not vacuous
    assert np.all(np.abs(currents.mean(axis=0) - expected) < 4 * err)


@pytest.fixture(scope="module")
def heterodyne_cavity():
    H = CAVITY_DETUNING * CAVITY_EXP["n"]
    with jax.numpy_dtype_promotion("strict"):
        return q.smesolve(H, q.coherent(N, ALPHA), TS, [np.sqrt(KAPPA) * A], measured={0: "heterodyne"},
                          etas=CAVITY_ETA, ntraj=NTRAJ, key=KEY, exp_ops=CAVITY_EXP, dt0=DT)  # fmt: skip


def test_heterodyne_currents_are_both_quadratures_of_the_damped_field(heterodyne_cavity):
    r = heterodyne_cavity
    assert r.currents.shape == (NTRAJ, TS.size - 1, 2) and r.measured == (0, 0) and r.quadratures == ("I", "Q")
    # E[J_I] + i E[J_Q] over a bin = sqrt(2 eta kappa) <a> averaged over the bin (half the signal of each
    # quadrature's homodyne record, sqrt(eta kappa) <a + a^dag>, since each record sees L / sqrt(2))
    mean_a = ALPHA * (np.exp(-Z * TS[:-1]) - np.exp(-Z * TS[1:])) / Z / BIN
    expected = np.sqrt(2 * CAVITY_ETA * KAPPA) * np.stack([mean_a.real, mean_a.imag], axis=-1)
    currents = np.asarray(r.currents)
    err = currents.std(axis=0, ddof=1) / np.sqrt(NTRAJ)
    np.testing.assert_allclose(err, 1 / np.sqrt(BIN * NTRAJ), rtol=0.4)  # each record's own unit white noise
    assert expected[:, 0].max() > 3 * err[:, 0].max()  # the in-phase signal is resolved
    assert np.abs(expected[:, 1]).max() > 1.5 * err[:, 1].max()  # and the quadrature's, less so
    assert np.all(np.abs(currents.mean(axis=0) - expected) < 4 * err)
    # the two records' noises are independent: their correlation over all bins is within sampling error of 0
    noise = (currents - expected).reshape(-1, 2)
    assert abs(np.corrcoef(noise.T)[0, 1]) < 4 / np.sqrt(noise.shape[0])


def test_heterodyne_leaves_a_coherent_state_coherent_on_every_trajectory(heterodyne_cavity):
    values = np.asarray(heterodyne_cavity.trajectory_expects)
    # a coherent state is an eigenstate of both records' operators: no backaction, every trajectory is the
    # damped amplitude up to the step's error (measured 1.3e-3)
    assert np.abs(values[..., 0] - ALPHA * np.exp(-Z * TS)).max() < 2 * DT
    np.testing.assert_allclose(values[..., 2], 1.0, atol=1e-12)


def test_homodyne_and_heterodyne_channels_mix():
    how = {1: "heterodyne", 0: "homodyne"}
    r = q.smesolve(np.asarray(qubit_H(OMEGA)), q.basis(2, 0), TS, QUBIT_JUMPS, measured=how, etas=[0.8, 0.5],
                   ntraj=2, key=KEY, dt0=0.05)  # fmt: skip
    # records in the order `measured` gives its channels (as for a list of indices), the efficiencies too
    assert r.measured == (1, 1, 0) and r.quadratures == ("I", "Q", "homodyne")
    np.testing.assert_array_equal(np.asarray(r.etas), [0.8, 0.8, 0.5])
    ds = r.to_xarray()
    assert ds["current"].shape == (2, TS.size - 1, 3) and list(ds["quadrature"].values) == ["I", "Q", "homodyne"]
    assert "homodyne and heterodyne" in ds.attrs["equation"]


PULSE = difflab.Step(4.0, 0.5, 1.7)  # rad/ns from 0.5 to 1.7 ns: edges between save times (every 0.2 ns)


def test_a_constant_drive_is_the_static_hamiltonian_on_every_trajectory():
    H0 = 0.5 * DETUNING * jnp.asarray(SZ)
    static = q.smesolve(qubit_H(OMEGA), q.basis(2, 0), TS, QUBIT_JUMPS, ntraj=4, key=KEY, exp_ops=QUBIT_EXP, dt0=0.01)
    driven = q.smesolve([H0, q.Drive(OMEGA, 0.5 * jnp.asarray(SX))], q.basis(2, 0), TS, QUBIT_JUMPS, ntraj=4, key=KEY,
                        exp_ops=QUBIT_EXP, dt0=0.01)  # fmt: skip
    # the same noise and the same generator at every step: the same trajectories and records to round-off
    np.testing.assert_allclose(driven.trajectory_expects, static.trajectory_expects, atol=1e-13)
    np.testing.assert_allclose(driven.currents, static.currents, atol=1e-12)


def test_a_pulsed_drive_averages_to_the_master_equation():
    H0, drive = 0.5 * DETUNING * SZ, q.Drive(PULSE, 0.5 * SX)
    r = q.smesolve([H0, drive], q.basis(2, 0), TS, QUBIT_JUMPS, etas=QUBIT_ETAS, ntraj=NTRAJ, key=KEY,
                   exp_ops=QUBIT_EXP, dt0=DT)  # fmt: skip
    me = q.mesolve(H0, q.basis(2, 0), TS, jump_ops=QUBIT_JUMPS, drives=[drive], exp_ops=QUBIT_EXP, rtol=1e-10,
                   atol=1e-12)  # fmt: skip
    undriven = q.mesolve(H0, q.basis(2, 0), TS, jump_ops=QUBIT_JUMPS, exp_ops=QUBIT_EXP, rtol=1e-10, atol=1e-12)
    assert np.abs(np.asarray(me.expects - undriven.expects)).max() > 0.5  # the pulse matters (measured 0.59)
    err = np.asarray(r.expects_stderr.real)
    # within 4 standard errors plus the weak-order-1 bias (measured: 2.2 standard errors at worst)
    assert np.all(np.abs(np.asarray(r.expects.real - me.expects.real)) < 4 * err + 10 * DT)


def test_gradient_through_a_drive_amplitude_matches_a_central_difference():
    def final_z(amplitude):
        H = [0.5 * DETUNING * jnp.asarray(SZ), q.Drive(difflab.Step(amplitude, 0.5, 1.7), 0.5 * jnp.asarray(SX))]
        r = q.smesolve(H, q.basis(2, 0), TS, QUBIT_JUMPS, ntraj=8, key=KEY, exp_ops={"z": SZ}, dt0=0.01)
        return r.expects[-1, 0].real

    grad = jax.grad(final_z)(4.0)
    h = 1e-4
    central = (final_z(4.0 + h) - final_z(4.0 - h)) / (2 * h)
    np.testing.assert_allclose(grad, central, rtol=1e-5)
    assert abs(float(grad)) > 1e-2  # not a vanishing derivative


def test_gradient_matches_a_central_difference_with_the_same_noise(qubit):
    def objective(omega):
        result = solve_qubit(omega)
        return jnp.mean(result.expects[:, 3].real) + jnp.mean(result.currents[..., 0])

    grad = float(jax.grad(objective)(OMEGA))
    h = 1e-4
    central = float((objective(OMEGA + h) - objective(OMEGA - h)) / (2 * h))
    assert abs(grad) > 0.05
    assert abs(grad - central) < 1e-6 * abs(central)


def test_same_key_reproduces_another_key_differs(qubit):
    again = solve_qubit()
    np.testing.assert_array_equal(again.currents, qubit.currents)
    np.testing.assert_array_equal(again.trajectory_expects, qubit.trajectory_expects)
    other = solve_qubit(key=jax.random.key(8))
    assert np.abs(np.asarray(other.currents - qubit.currents)).min() > 0


def test_trajectories_do_not_depend_on_batches_or_ntraj(qubit, monkeypatch):
    # batches of 64 trajectories: 200 = 3 x 64 + 8, the last batch padded to 64
    monkeypatch.setattr(smesolve_module, "BATCH_FLOATS", 64 * 176)
    batched = solve_qubit()
    np.testing.assert_array_equal(batched.currents, qubit.currents)
    np.testing.assert_array_equal(batched.trajectory_expects, qubit.trajectory_expects)
    fewer = q.smesolve(qubit_H(OMEGA), q.basis(2, 0), TS, QUBIT_JUMPS, etas=QUBIT_ETAS, ntraj=64, key=KEY,
                       exp_ops=QUBIT_EXP, dt0=DT)  # fmt: skip
    np.testing.assert_array_equal(fewer.currents, qubit.currents[:64])


def test_dataset(qubit):
    ds = qubit.to_xarray()
    assert ds["expect"].dims == ("time", "observable") and list(ds["observable"].values) == ["1", "x", "y", "z"]
    assert ds["current"].dims == ("trajectory", "bin", "measured") and ds["current"].attrs["units"] == "1/sqrt(ns)"
    np.testing.assert_array_equal(ds["eta"].values, QUBIT_ETAS)
    assert ds.attrs["ntraj"] == NTRAJ and list(ds["measured"].values) == [0, 1]


BAD_INPUTS = [
    ({"ntraj": 0}, ValueError, "ntraj must be an integer >= 1; got 0"),
    ({"ntraj": 2.5}, ValueError, "ntraj must be an integer >= 1; got 2.5"),
    ({"etas": 1.2}, ValueError, r"etas must lie in \[0, 1\] \(a detection efficiency\); got etas\[0\] = 1.2"),
    ({"etas": [0.5, -0.1]}, ValueError, r"etas must lie in \[0, 1\].*got etas\[1\] = -0.1"),
    ({"etas": [0.5, 0.5, 0.5]}, ValueError, r"one efficiency per measured operator \(2\); got shape \(3,\)"),
    ({"etas": np.nan}, ValueError, r"etas must lie in \[0, 1\].*= nan"),
    ({"measured": [True]}, ValueError, r"boolean mask must have one entry per jump operator \(2\); got 1"),
    ({"measured": [2]}, ValueError, r"measured holds 2, which is not an index of jump_ops \(0 to 1\)"),
    ({"measured": [False, False]}, ValueError, "measured must select at least one of jump_ops"),
    (
        {"measured": {0: "heterodyn"}},
        ValueError,
        r"measured\[0\] must be one of \('homodyne', 'heterodyne'\).*got 'het",
    ),
    ({"measured": {"0": "heterodyne"}}, TypeError, "measured as a mapping must have integer indices into jump_ops"),
    ({"H": [q.Drive(1.0, SX)]}, ValueError, "H as a list must start with the static Hamiltonian"),
    ({"H": [0 * SZ, q.Drive(1.0, SX), "x"]}, TypeError, r"H\[2\] must be a Drive\(protocol, operator\).*got str"),
    ({"H": [0 * SZ, q.Drive(1.0, np.eye(3))]}, ValueError, r"H\[1\]\.operator acts on dimension 3 but H\[0\] on 2"),
    ({"H": [0 * SZ, q.Drive(1.0, SM)]}, ValueError, r"H\[1\]\.operator must be Hermitian"),
    ({"measured": {3: "heterodyne"}}, ValueError, r"measured holds 3, which is not an index of jump_ops \(0 to 1\)"),
    ({"H": np.asarray(SM)}, ValueError, "H must be Hermitian"),
    ({"H": np.ones((2, 3))}, ValueError, r"H must be a square matrix \(n, n\); got shape \(2, 3\)"),
    ({"H": np.array([[0, np.nan], [np.nan, 0]])}, ValueError, "H must be finite"),
    ({"jump_ops": [np.eye(3)]}, ValueError, r"jump_ops\[0\] has shape \(3, 3\) but H acts on dimension 2"),
    ({"jump_ops": [np.array([[0, np.inf], [0, 0]])]}, ValueError, r"jump_ops\[0\] must be finite"),
    ({"jump_ops": []}, ValueError, "jump_ops must hold at least one jump operator"),
    ({"exp_ops": [np.full((2, 2), np.nan)]}, ValueError, r"exp_ops\['e0'\] must be finite"),
    ({"rho0": np.array([np.nan, 0.0])}, ValueError, "rho0 must be finite"),
    ({"rho0": np.eye(2)}, ValueError, "rho0 must have trace 1; got trace 2"),
    ({"dt0": 0.0}, ValueError, r"dt0 must be a finite step > 0"),
    ({"dt0": np.inf}, ValueError, r"dt0 must be a finite step > 0"),
    ({"ts": np.array([0.0, 2.0, 1.0])}, ValueError, r"ts must be strictly increasing; ts\[2\] = 1.0 follows"),
    ({"ts": np.array([0.0, np.nan, 1.0])}, ValueError, "ts must be finite"),
    ({"key": 0}, TypeError, r"key must be one JAX random key, made by jax\.random\.key\(seed\).*; got int"),
    ({"solver": diffrax.Heun()}, ValueError, "solver must be an Itô SDE solver.*got Heun, which solves the Strat"),
    ({"rtol": 1e-6}, ValueError, "smesolve takes fixed steps of at most dt0"),
]


@pytest.mark.parametrize(("change", "error", "message"), BAD_INPUTS, ids=[m[:24] for *_, m in BAD_INPUTS])
def test_bad_input_refused(change, error, message):
    args = {"H": np.asarray(qubit_H(OMEGA)), "rho0": q.basis(2, 0), "ts": TS, "jump_ops": QUBIT_JUMPS}
    keywords = {"ntraj": 2, "key": KEY, "dt0": 0.1, **{k: v for k, v in change.items() if k not in args}}
    args.update({k: v for k, v in change.items() if k in args})
    with pytest.raises(error, match=message):
        q.smesolve(args["H"], args["rho0"], args["ts"], args["jump_ops"], **keywords)


def test_default_step_needs_concrete_operators():
    def final_z(omega):
        return q.smesolve(qubit_H(omega), q.basis(2, 0), TS, QUBIT_JUMPS, ntraj=2, key=KEY).expects[-1, 0].real

    with pytest.raises(ValueError, match="dt0 must be given when H, the drives or jump_ops are traced"):
        jax.grad(final_z)(OMEGA)
