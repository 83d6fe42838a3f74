"""`mcsolve` against `mesolve`: a damped cavity from a Fock state, 500 trajectories.

The trajectory mean must lie within 4 standard errors of the master equation at every save time (a false alarm
rate of ~6e-5 per time, for a correct unravelling); the jump count of a trajectory that decays to the vacuum is
exactly the initial photon number.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum as q

N, KAPPA, START = 6, 0.5, 2
A = np.asarray(q.destroy(N))
H = 1.0 * A.conj().T @ A
TS = jnp.linspace(0.0, 4.0, 11)
JUMPS = [np.sqrt(KAPPA) * A]
EXP = {"n": A.conj().T @ A, "x": A + A.conj().T}


@pytest.fixture(scope="module")
def result():
    return q.mcsolve(H, q.fock(N, START), TS, JUMPS, ntraj=500, key=jax.random.key(3), exp_ops=EXP)


def test_mean_within_four_standard_errors_of_mesolve(result):
    exact = np.asarray(q.mesolve(H, q.fock(N, START), TS, jump_ops=JUMPS, exp_ops=EXP).expects.real)
    np.testing.assert_allclose(exact[:, 0], START * np.exp(-KAPPA * np.asarray(TS)), atol=1e-6)
    mean, err = np.asarray(result.expects.real), np.asarray(result.expects_stderr.real)
    assert mean.shape == err.shape == (11, 2)
    np.testing.assert_allclose(mean[0], exact[0], atol=1e-12)  # every trajectory starts in the same state
    assert np.all(err[1:, 0] > 0.01)  # the photon number's spread is resolved, the test is not vacuous
    assert np.all(np.abs(mean[1:, 0] - exact[1:, 0]) < 4 * err[1:, 0])
    np.testing.assert_allclose(mean[:, 1], 0.0, atol=1e-12)  # <x> = 0 in a Fock state and after any jump


def test_jumps_and_dataset(result):
    jumps = np.asarray(result.num_jumps)
    assert jumps.min() >= 0 and jumps.max() <= START
    times = np.asarray(result.jump_times)
    assert np.all(np.isnan(times[:, START:]))
    assert np.all((times[:, :START] > 0) | np.isnan(times[:, :START]))
    # the fraction of trajectories still in |2> at the end: exp(-2 κ T) within 4 binomial standard errors
    p = np.exp(-2 * KAPPA * 4.0)
    assert abs(np.mean(jumps == 0) - p) < 4 * np.sqrt(p * (1 - p) / 500)
    ds = result.to_xarray()
    assert ds["expect"].dims == ("time", "observable") and ds.attrs["ntraj"] == 500
    assert list(ds["observable"].values) == ["n", "x"]


def test_reproducible_with_the_same_key():
    kwargs = dict(ntraj=4, key=jax.random.key(5), exp_ops=EXP)
    first = q.mcsolve(H, q.fock(N, START), TS, JUMPS, **kwargs)
    second = q.mcsolve(H, q.fock(N, START), TS, JUMPS, **kwargs)
    np.testing.assert_array_equal(first.jump_times, second.jump_times)


def test_bad_input_refused():
    psi0 = q.fock(N, START)
    with pytest.raises(ValueError, match="ntraj must be an integer >= 1; got 0"):
        q.mcsolve(H, psi0, TS, JUMPS, ntraj=0, key=jax.random.key(0))
    with pytest.raises(ValueError, match="jump_ops must hold at least one jump operator"):
        q.mcsolve(H, psi0, TS, [], key=jax.random.key(0))
    with pytest.raises(TypeError, match=r"key must be one JAX random key, made by jax\.random\.key\(seed\).*; got int"):
        q.mcsolve(H, psi0, TS, JUMPS, key=0)
    with pytest.raises(ValueError, match="psi0 must have unit norm"):
        q.mcsolve(H, 2 * psi0, TS, JUMPS, key=jax.random.key(0))
    with pytest.raises(RuntimeError, match=r"4 of 4 trajectories took more than max_steps = 3 steps between two jumps"):
        q.mcsolve(H, psi0, TS, JUMPS, ntraj=4, key=jax.random.key(0), max_steps=3)


def test_jump_times_of_a_decaying_qubit_are_exact():
    # From |e> under L = sqrt(gamma) sigma_-, the no-jump norm is exp(-gamma t): the jump comes where it falls to
    # the trajectory's threshold r, at t = -ln(r) / gamma exactly, and |g> never jumps again. Trajectory j draws its
    # first r from the second of jax.random.split(split(key, ntraj)[j], 3).
    gamma, ntraj, key = 0.8, 64, jax.random.key(7)
    ts = jnp.linspace(0.0, 3.0, 7)
    r = q.mcsolve(0.3 * q.sigmaz(), q.basis(2, 0), ts, [np.sqrt(gamma + 0j) * q.sigmam()], ntraj=ntraj, key=key,
                  exp_ops={"pe": np.diag([1.0 + 0j, 0.0])}, rtol=1e-10, atol=1e-12)  # fmt: skip
    thresholds = np.array([jax.random.uniform(jax.random.split(k, 3)[1]) for k in jax.random.split(key, ntraj)])
    exact = -np.log(thresholds) / gamma
    jumped = exact < 3.0
    np.testing.assert_array_equal(np.asarray(r.num_jumps), jumped.astype(int))
    np.testing.assert_allclose(np.asarray(r.jump_times)[jumped, 0], exact[jumped], atol=1e-9)
    # the excited population of each trajectory is 1 before its jump and 0 after it
    pe = np.asarray(r.trajectory_expects[..., 0].real)
    np.testing.assert_allclose(pe, (np.asarray(ts)[None, :] < exact[:, None]).astype(float), atol=1e-12)
