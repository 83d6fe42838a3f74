"""calibrate on a Dask cluster (a LocalCluster with a worker process): every start fitted as locally, the merged
result equal to the local fit's, several recordings, bad uses refused by name.

One worker process runs every block: the blocks still travel to another process and back (cloudpickled options,
the worker's own compilation, the merge), and one process compiles each block shape once, where two would each
compile it on the same two cores."""

import jax
import numpy as np
import pytest
from _systems import Decay, decay_data

import difflab
from difflab.calibration._distributed import merge_blocks
from difflab.ensembles import ClusterError, _cluster

distributed = pytest.importorskip("distributed")

PARAMS = {"k": (0.05, 5.0), "y0": (0.5, 5.0)}


def fit(data, **run):
    return difflab.calibrate(Decay(1.5, 1.0), None, data, params=PARAMS, steps=30, starts=4,
                             key=jax.random.key(3), run=difflab.RunOptions(**run))  # fmt: skip


def assert_same_fit(remote, local):
    # The same starts from the same initial values through the same code: LM may take a few more steps in a
    # block whose members converge later, so the final values agree to the solver's tolerance, not bit for bit.
    np.testing.assert_allclose(remote.losses, local.losses, rtol=1e-6, atol=1e-12)
    for name in ("k", "y0", "k_stderr", "y0_stderr"):
        np.testing.assert_allclose(remote.estimates[name], local.estimates[name], rtol=1e-6)
    np.testing.assert_allclose(remote.model.k, local.model.k, rtol=1e-6)
    assert remote.losses.dims == local.losses.dims and remote.history.sizes["start"] == 4
    assert remote.solver_ok.values.all()


@pytest.mark.slow
def test_multistart_fits_on_a_local_cluster_equal_the_local_fit():
    one = decay_data(k=0.8, y0=2.5, noise=0.01, seed=1)
    two = decay_data(k=0.3, y0=1.2, noise=0.01, seed=2)
    both = {"time": one["time"], "y": np.stack([one["y"], two["y"]])}
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster,
        distributed.Client(cluster) as client,
    ):
        local = fit(one)
        remote = fit(one, client=client, starts_per_task=2)  # two blocks of 2 starts (uneven blocks: below)
        assert_same_fit(remote, local)
        np.testing.assert_allclose(remote.estimates["k"], 0.8, rtol=0.02)  # the truth, within the noise
        # two recordings (blocks of 2 and 2 starts): each takes its best start from whichever block holds it
        local2, remote2 = fit(both), fit(both, client=client, starts_per_task=2)
        assert_same_fit(remote2, local2)
        np.testing.assert_allclose(remote2.estimates["k"], [0.8, 0.3], rtol=0.02)
        assert remote2.model.k.shape == (2,)


def test_merged_blocks_equal_one_fit_of_all_starts():
    # merge_blocks alone (no cluster): blocks of 1 and 2 explicit starts against one fit of the three
    data = decay_data(k=0.8, y0=2.5, noise=0.01)
    starts = {"k": [0.2, 3.0, 1.0], "y0": [1.0, 4.0, 2.0]}
    whole = difflab.calibrate(Decay(), None, data, params=PARAMS, steps=30, starts=starts)
    parts = [difflab.calibrate(Decay(), None, data, params=PARAMS, steps=30,
                               starts={n: v[i:j] for n, v in starts.items()}) for i, j in [(0, 1), (1, 3)]]  # fmt: skip
    merged = merge_blocks(parts)
    np.testing.assert_allclose(merged.losses, whole.losses, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(merged.estimates["k"], whole.estimates["k"], rtol=1e-6)
    np.testing.assert_array_equal(merged.losses["start"], [0, 1, 2])
    # a block that stopped early is carried forward at its last values, as its members stay put in one fit
    assert merged.history.sizes["step"] == max(p.history.sizes["step"] for p in parts)
    np.testing.assert_allclose(merged.history["k"].isel(step=-1), whole.history["k"].isel(step=-1), rtol=1e-6)
    assert np.isfinite(merged.history["loss"].values).all()


def test_cluster_fits_refuse_what_cannot_run_remotely(tmp_path, monkeypatch):
    monkeypatch.setattr(_cluster, "CONNECT_TIMEOUT_S", 1.0)  # nothing listens on port 1: no need to wait 10 s
    data = decay_data()
    with pytest.raises(ValueError, match="client: checkpoint, resume and callback are not available"):
        fit(data, client="tcp://127.0.0.1:1", checkpoint=tmp_path / "c.nc")
    with pytest.raises(ValueError, match="starts_per_task must be a whole number >= 1; got 0"):
        fit(data, client="tcp://127.0.0.1:1", starts_per_task=0)
    with pytest.raises(ClusterError, match=r"client: no Dask scheduler answered at 'tcp://127\.0\.0\.1:1' within 1 s"):
        fit(data, client="tcp://127.0.0.1:1")
