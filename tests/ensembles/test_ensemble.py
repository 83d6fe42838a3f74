"""Ensembles on dy/dt = -k y: batching helpers, strategies, chunking, sharding over 4 host devices."""

from pathlib import Path

import jax
import numpy as np
import pytest
from _host_devices import run_with_host_devices
from _systems import Decay

from difflab.ensembles import default_strategy, make_batch, member, n_members, run_ensemble, stack, unstack

KS = np.linspace(0.1, 3.0, 10)
TS = np.linspace(0.0, 4.0, 9)
EXACT = 2.0 * np.exp(-KS[:, None] * TS[None, :])


def test_make_batch_and_helpers():
    batch = make_batch(Decay(), k=KS)
    assert n_members(batch) == 10
    assert batch.k.shape == (10,) and batch.y0.shape == (10,)
    assert float(member(batch, 3).k) == pytest.approx(KS[3])
    again = stack(unstack(batch))
    np.testing.assert_array_equal(again.k, batch.k)
    with pytest.raises(ValueError, match="one leading member axis"):
        make_batch(Decay(), k=KS, y0=np.ones(3))
    with pytest.raises(KeyError, match="unknown parameter 'q'"):
        make_batch(Decay(), q=KS)
    with pytest.raises(ValueError, match=r"leading axes of its arrays are \[3, 10\].*only 0-d leaves"):
        n_members(Decay(k=KS, y0=np.ones(3)))


@pytest.mark.parametrize("strategy", ["vmap", "map", "chunked"])
def test_strategies_match_the_exact_solution(strategy):
    traj = run_ensemble(make_batch(Decay(), k=KS), None, TS, strategy=strategy, chunk_size=4)
    np.testing.assert_allclose(traj.ys["y"], EXACT, rtol=1e-5, atol=1e-7)
    steps = np.asarray(traj.stats["num_steps"])
    assert steps.shape == (10,) and (np.diff(steps) >= 0).all() and steps[-1] > steps[0]
    ds = traj.to_xarray(member_coords={"k": KS})
    assert ds["y"].dims == ("member", "time")


@pytest.mark.parametrize("strategy", ["vmap", "map"])
def test_partially_batched_model_shares_its_scalar_leaves(strategy):
    # model.replace(k=values) batches k only; y0 stays 0-d and is shared by every member
    partial = Decay(y0=2.0).replace(k=KS)
    assert partial.y0.shape == () and n_members(partial) == 10
    traj = run_ensemble(partial, None, TS, strategy=strategy, memory_budget=8 * 73 * 3)
    np.testing.assert_allclose(traj.ys["y"], EXACT, rtol=1e-5, atol=1e-7)
    assert float(member(partial, 4).k) == pytest.approx(KS[4]) and member(partial, 4).y0.shape == ()


def test_memory_budget_splits_into_blocks():
    traj = run_ensemble(make_batch(Decay(), k=KS), None, TS, strategy="vmap", memory_budget=8 * 73 * 3)
    np.testing.assert_allclose(traj.ys["y"], EXACT, rtol=1e-5, atol=1e-7)


def test_default_strategy_per_backend():
    assert default_strategy("cpu") == "vmap"  # measured: see docs/backends.md
    assert default_strategy("gpu", adaptive=False) == "vmap"
    assert default_strategy("cpu", adaptive=True, state_size=7200) == "map"
    with pytest.raises(ValueError, match=r"strategy must be one of \('vmap', 'map', 'chunked'\); got 'pmap'"):
        run_ensemble(make_batch(Decay(), k=KS), None, TS, strategy="pmap")


@pytest.mark.parametrize("strategy", ["vmap", "map"])
def test_fixed_step_ensemble_runs_as_one_scan_and_equals_diffrax_loop(strategy):
    # HH members with per-member gNa (make_batch repeats every other leaf): they share the default step, which
    # run_ensemble resolves once so that each member runs the scan with ts as a constant
    from difflab import Step
    from difflab.neuron import HodgkinHuxley

    batch = make_batch(HodgkinHuxley.squid_axon(), gNa=np.array([80.0, 120.0, 160.0]))
    ts = np.linspace(0.0, 20.0, 81)
    scan = run_ensemble(batch, Step(10.0, 5.0, 15.0), ts, strategy=strategy, loop="scan")
    loop = run_ensemble(batch, Step(10.0, 5.0, 15.0), ts, strategy=strategy, loop="while")
    assert dict(scan.provenance)["loop"] == "scan" and dict(loop.provenance)["loop"] == "while"
    np.testing.assert_allclose(scan.ys["V"], loop.ys["V"], rtol=0, atol=1e-10)
    np.testing.assert_array_equal(scan.stats["num_steps"], [256, 256, 256])
    assert np.all(np.asarray(scan.succeeded))


@pytest.mark.slow
def test_sharded_equals_unsharded_on_four_host_devices():
    assert "SHARDED-OK" in run_with_host_devices(Path(__file__).with_name("_sharded_check.py"))


def test_single_device_visible_in_this_process():
    assert len(jax.devices()) >= 1


def test_member_index_outside_the_batch_is_refused():
    from difflab.neuron import HodgkinHuxley

    batch = make_batch(HodgkinHuxley.squid_axon(), gNa=[100.0, 120.0])
    assert float(member(batch, -1).parameters()["gNa"]) == 120.0
    for bad in (2, -3, 1.0):
        with pytest.raises(IndexError, match=r"member index i must be an integer in \[-2, 2\) for a batch of 2"):
            member(batch, bad)


def test_empty_batches_no_devices_and_bad_chunk_sizes_are_refused_by_name():
    with pytest.raises(ValueError, match=r"make_batch values must hold at least one member; got lengths \{'k': 0\}"):
        make_batch(Decay(), k=[])
    batch = make_batch(Decay(), k=KS[:2])
    with pytest.raises(ValueError, match=r"devices must name at least one device"):
        run_ensemble(batch, None, TS, devices=[])
    for bad in (0, -1, 2.5):
        with pytest.raises(ValueError, match=rf"chunk_size must be a whole number >= 1 .*; got {bad}"):
            run_ensemble(batch, None, TS, strategy="chunked", chunk_size=bad)
    for bad in (0, -5, 1e9):
        with pytest.raises(ValueError, match=rf"memory_budget must be a whole number of bytes >= 1; got {bad}"):
            run_ensemble(batch, None, TS, memory_budget=bad)
    with pytest.raises(ValueError, match=r"make_batch value of k must have shape \(1,\) \(per member\); got \(1, 2\)"):
        make_batch(Decay(), k=[[0.5, 0.6]])
    with pytest.raises(KeyError, match=r"'Q' is not a saved variable of this trajectory; saved: y"):
        run_ensemble(batch, None, TS)["Q"]
