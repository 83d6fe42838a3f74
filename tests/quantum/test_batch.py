"""Batching over parameters and initial states: labelled dimensions, same numbers as single solves, one compile."""

from pathlib import Path

import numpy as np
from _host_devices import run_with_host_devices

import difflab.quantum as q
from difflab.quantum import _batch

N = 4
A = q.tensor(q.eye(2), q.destroy(N))
SM = q.tensor(q.sigmam(), q.eye(N))
H = A.conj().T @ SM + A @ SM.conj().T
TS = np.linspace(0.0, 5.0, 11)
KAPPAS = np.array([0.05, 0.2, 0.5])
STATES = [q.tensor(q.basis(2, 0), q.fock(N, 0)), q.tensor(q.basis(2, 1), q.fock(N, 1))]
EXP = {"n": A.conj().T @ A, "pe": SM.conj().T @ SM}


def _batched(mode="map"):
    return q.mesolve(
        H, STATES, TS, jump_ops=[np.sqrt(KAPPAS)[:, None, None] * A], exp_ops=EXP, batch_dim="kappa",
        batch_coords={"kappa": KAPPAS}, batch=mode,
    )  # fmt: skip


def test_batched_solve_matches_single_solves():
    ds = _batched()
    assert ds.expect.dims == ("kappa", "initial_state", "time", "observable")
    np.testing.assert_array_equal(ds.kappa.values, KAPPAS)
    single = q.mesolve(H, STATES[1], TS, jump_ops=[np.sqrt(KAPPAS[2]) * A], exp_ops=EXP)
    assert single.expect.dims == ("time", "observable")
    np.testing.assert_allclose(ds.expect.isel(kappa=2, initial_state=1), single.expect, atol=1e-12)
    # Photon decay is faster for larger kappa (|g, 1> start).
    n_end = ds.expect.sel(observable="n").isel(initial_state=1, time=-1).values
    assert n_end[0] > n_end[1] > n_end[2]
    assert ds.attrs["time_units"] == "ns" and ds.time.attrs["units"] == "ns"


def test_vmap_matches_map():
    np.testing.assert_allclose(_batched("vmap").expect, _batched("map").expect, atol=1e-6)


def test_second_call_does_not_recompile():
    _batched()
    size = _batch._mapped._cached._cache_size()
    _batched()
    assert _batch._mapped._cached._cache_size() == size


def test_sesolve_batch_of_initial_states():
    ds = q.sesolve(q.sigmax() * np.pi, [q.basis(2, 0), q.basis(2, 1)], np.linspace(0, 0.5, 3), exp_ops=[q.sigmaz()])
    # A pi/2 rotation angle per 0.25 time units: |e> -> |g> at t = 0.5 and |g> -> |e>.
    np.testing.assert_allclose(ds.expect.isel(time=-1, observable=0), [-1.0, 1.0], atol=1e-6)


def test_members_split_over_four_host_devices_match_one_device():
    assert "SHARDED-OK" in run_with_host_devices(Path(__file__).with_name("_sharded_check.py"))
