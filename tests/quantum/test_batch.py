"""Batching over parameters and initial states: labelled dimensions, same numbers as single solves, one compile,
the ensemble strategies, the differentiable result and the deprecated spellings."""

from pathlib import Path

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _host_devices import run_with_host_devices

import difflab
import difflab.quantum as q
from difflab.ensembles import _sharding

N = 4
A = q.tensor(q.eye(2), q.destroy(N))
SM = q.tensor(q.sigmam(), q.eye(N))
H = A.conj().T @ SM + A @ SM.conj().T
TS = np.linspace(0.0, 5.0, 11)
KAPPAS = np.array([0.05, 0.2, 0.5])
STATES = [q.tensor(q.basis(2, 0), q.fock(N, 0)), q.tensor(q.basis(2, 1), q.fock(N, 1))]
EXP = {"n": A.conj().T @ A, "pe": SM.conj().T @ SM}

JUMPS = [np.sqrt(KAPPAS + 0j)[:, None, None] * A[None]]  # complex factors: strict promotion takes no mix


def _batched(strategy="map"):
    return q.mesolve(
        H, STATES, TS, jump_ops=JUMPS, exp_ops=EXP,
        batching=q.Batching(dim="kappa", coords={"kappa": KAPPAS}, strategy=strategy),
    )  # fmt: skip


def test_batched_solve_matches_single_solves():
    result = _batched()
    assert result.expects.shape == (3, 2, 11, 2)
    ds = result.to_xarray()
    assert ds.expect.dims == ("kappa", "initial_state", "time", "observable")
    np.testing.assert_array_equal(ds.kappa.values, KAPPAS)
    single = q.mesolve(H, STATES[1], TS, jump_ops=[np.sqrt(KAPPAS[2] + 0j) * A], exp_ops=EXP).to_xarray()
    assert single.expect.dims == ("time", "observable")
    np.testing.assert_allclose(ds.expect.isel(kappa=2, initial_state=1), single.expect, atol=1e-12)
    np.testing.assert_allclose(result.expects[2, 1].real, single.expect.values, atol=1e-12)
    # Photon decay is faster for larger kappa (|g, 1> start).
    n_end = ds.expect.sel(observable="n").isel(initial_state=1, time=-1).values
    assert n_end[0] > n_end[1] > n_end[2]
    assert ds.attrs["time_units"] == "ns" and ds.time.attrs["units"] == "ns"


@pytest.mark.parametrize("strategy", ["vmap", "chunked"])
def test_strategies_match_map(strategy):
    np.testing.assert_allclose(_batched(strategy).expects, _batched("map").expects, atol=1e-6)


def test_second_call_does_not_recompile():
    _batched()
    size = _sharding._mapped._cached._cache_size()
    _batched()
    assert _sharding._mapped._cached._cache_size() == size


def test_sesolve_batch_of_initial_states():
    result = q.sesolve(q.sigmax() * np.pi, [q.basis(2, 0), q.basis(2, 1)], np.linspace(0, 0.5, 3), exp_ops=[q.sigmaz()])
    # A pi/2 rotation angle per 0.25 time units: |e> -> |g> at t = 0.5 and |g> -> |e>.
    np.testing.assert_allclose(result.expects[:, -1, 0].real, [-1.0, 1.0], atol=1e-6)
    assert result.ts.shape == (3,) and result.num_steps.shape == (2,)


@pytest.mark.slow
def test_result_is_a_pytree_that_jit_and_grad_pass_through():
    # T1 decay of |e>: <sigma_z>(t) = 2 exp(-gamma t) - 1, so d<sigma_z>(T)/d gamma = -2 T exp(-gamma T).
    tight = diffrax.PIDController(rtol=1e-10, atol=1e-10)

    @jax.jit
    def run():
        return q.mesolve(q.sigmaz(), q.basis(2, 0), TS, jump_ops=[np.sqrt(0.3 + 0j) * q.sigmam()], exp_ops=[q.sigmaz()],
                         stepsize_controller=tight)  # fmt: skip

    result = run()
    assert isinstance(result, q.QuantumResult)
    np.testing.assert_allclose(result.expects[:, 0].real, 2 * np.exp(-0.3 * TS) - 1, atol=1e-8)

    def z_end(gamma):
        model = q.LindbladModel(q.sigmaz(), jump_ops=[jnp.sqrt(gamma) * q.sigmam()], rho0=q.basis(2, 0))
        traj = q.solve_model(model, TS, exp_ops=(q.sigmaz(),), stepsize_controller=tight)
        return traj.ys["expect_re"][-1, 0]

    np.testing.assert_allclose(jax.grad(z_end)(0.3), -2 * TS[-1] * np.exp(-0.3 * TS[-1]), rtol=1e-6)


def test_old_batch_keywords_warn_and_give_the_same_result():
    jumps = JUMPS
    with pytest.warns(DeprecationWarning) as caught:
        old = q.mesolve(H, STATES, TS, jump_ops=jumps, exp_ops=EXP, batch_dim="kappa", batch_coords={"kappa": KAPPAS},
                        strategy="map")  # fmt: skip
    assert sorted(str(w.message) for w in caught) == [
        f"mesolve({name}=...) is deprecated and goes at 0.3: pass batching=difflab.quantum.Batching({field}=...)"
        for name, field in (("batch_coords", "coords"), ("batch_dim", "dim"), ("strategy", "strategy"))
    ]
    new = _batched()
    np.testing.assert_array_equal(old.expects, new.expects)
    assert (
        old.to_xarray().expect.dims == new.to_xarray().expect.dims == ("kappa", "initial_state", "time", "observable")
    )
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="batch_dim given both as keywords and"):
        q.sesolve(q.sigmaz(), q.basis(2, 0), TS, batch_dim="g", batching=q.Batching())


def test_deprecated_spellings_still_work_with_a_warning():
    with pytest.warns(DeprecationWarning, match=r"mesolve\(batch=...\) is deprecated and goes at 0.3: pass batching="):
        old = q.mesolve(H, STATES, TS, jump_ops=JUMPS, exp_ops=EXP, batch="vmap")
    tol = q.mesolve(H, STATES, TS, jump_ops=JUMPS, exp_ops=EXP, rtol=1e-9)
    with pytest.warns(DeprecationWarning, match=r"call result.to_xarray\(\).expect"):
        values = old.expect.values
    with pytest.warns(DeprecationWarning, match=r"call result.to_xarray\(\)\['expect'\]"):
        same = old["expect"].values
    np.testing.assert_array_equal(values, same)
    np.testing.assert_allclose(values, _batched().expects.real, atol=1e-6)
    np.testing.assert_allclose(tol.expects, _batched().expects, atol=1e-5)  # rtol 1e-9 against the default 1e-6
    # rtol is a field of SolveOptions (no warning): the default controller tightened, its maximum step kept
    same_tol = q.mesolve(H, STATES, TS, jump_ops=[np.sqrt(KAPPAS + 0j)[:, None, None] * A[None]], exp_ops=EXP,
                         options=difflab.SolveOptions(rtol=1e-9))  # fmt: skip
    np.testing.assert_array_equal(same_tol.expects, tol.expects)
    with pytest.warns(DeprecationWarning, match=r"dtmax is deprecated"):
        capped = q.solve_model(q.LindbladModel(q.sigmaz(), rho0=q.basis(2, 0)), TS, exp_ops=(q.sigmaz(),), dtmax=0.05)
    assert int(capped.stats["num_steps"]) >= int(np.ceil((TS[-1] - TS[0]) / 0.05))
    with pytest.raises(AttributeError, match="no attribute 'no_such_thing'"):
        old.no_such_thing


@pytest.mark.slow
def test_members_split_over_four_host_devices_match_one_device():
    assert "SHARDED-OK" in run_with_host_devices(Path(__file__).with_name("_sharded_check.py"))


def test_a_jitted_solve_can_then_be_vmapped():
    # Dephasing L = sz / 2 of a precessing |+>: <sx>(t) = cos(w t) exp(-t / 2). The jump operator is a constant
    # array, converted inside the first trace; the vmap's trace must not see that trace's values (it raised
    # UnexpectedTracerError when the conversion kept them).
    plus, sz, dephasing, sx = (q.basis(2, 0) + q.basis(2, 1)) / 2**0.5, q.sigmaz(), 0.5 * q.sigmaz(), q.sigmax()

    @jax.jit
    def x_end(w):
        H = 0.5 * jnp.asarray(w, complex) * sz
        return q.mesolve(H, plus, [0.0, 1.0], jump_ops=[dephasing], exp_ops=[sx]).expects[-1, 0].real

    ws = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(x_end(2.0), np.cos(2.0) * np.exp(-0.5), atol=1e-6)
    np.testing.assert_allclose(jax.vmap(x_end)(ws), np.cos(ws) * np.exp(-0.5), atol=1e-6)
