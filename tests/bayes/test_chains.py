"""How `posterior`'s chains run: blocks of draws, progress, checkpoints with Ctrl-C and resume, a Dask cluster.

The straight line of `test_posterior.py` with the same settings (4 chains, 200 warm-up steps): this file joins that
file's worker, so the sampler compiled there serves here. Draw i of a chain has its own key, so every way of running
the chains (in blocks, interrupted and resumed, longer, on a cluster) must give the same draws as one local run:
bit for bit in one process, to 1e-12 across processes with other batch widths.
"""

import re
import signal

import jax
import numpy as np
import pytest
import xarray as xr
from _systems import Line

import difflab
from difflab.bayes import _chains

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("tests/bayes/test_posterior.py")]

TS = np.linspace(0.0, 2.0, 21)
SIGMA = 0.1
BOUNDS = {"a": (-5.0, 5.0), "b": (-5.0, 5.0)}
DATA = {"time": TS, "y": 0.7 * TS + 0.3 + SIGMA * np.random.default_rng(0).standard_normal(TS.size)}


def sample(draws=300, noise=SIGMA, key=0, **run):
    sampling = difflab.Sampling(chains=4, warmup=200, draws=draws, **run)
    return difflab.posterior(Line(), difflab.Constant(0.0), DATA, params=BOUNDS, noise=noise,
                             key=jax.random.key(key), sampling=sampling)  # fmt: skip


def one_draw(**run):
    """A run of one draw per chain (to write a checkpoint quickly): it warns that one draw shows no convergence."""
    with pytest.warns(RuntimeWarning, match=re.escape("no R-hat (one chain or draw), bulk ESS nan")) as record:
        post = sample(draws=1, **run)
    assert {w.filename for w in record} == {__file__}  # the warning names the caller's line, not difflab's
    return post


@pytest.fixture(scope="module")
def whole():
    """One uninterrupted local run of 300 draws per chain, in blocks of 100."""
    return sample()


def assert_same_draws(post, whole, draws, rtol=0.0):
    for name in ("a", "b"):
        np.testing.assert_allclose(post[name].values, whole[name].values[:, :draws], rtol=rtol, atol=0)
    np.testing.assert_array_equal(post["divergent"].values, whole["divergent"].values[:, :draws])


def test_ctrl_c_stops_after_the_block_in_progress_writes_the_checkpoint_and_resume_continues_exactly(
    whole, tmp_path, monkeypatch
):
    path = tmp_path / "post.nc"
    blocks = []
    draw_block = _chains.draw_block

    def ctrl_c_during_the_second_block(*args):
        blocks.append(args[4])  # the first draw of the block
        if len(blocks) == 2:
            signal.raise_signal(signal.SIGINT)  # as a user's Ctrl-C: the block still ends, then the loop stops
        return draw_block(*args)

    monkeypatch.setattr(_chains, "draw_block", ctrl_c_during_the_second_block)
    with pytest.raises(KeyboardInterrupt):
        sample(checkpoint=path, checkpoint_every=100)
    monkeypatch.undo()
    assert [int(b) for b in blocks] == [0, 100]
    stored = xr.open_dataset(path)
    assert stored.attrs["draws_done"] == 200 and stored["z"].shape == (4, 200, 2)
    stored.close()
    # an existing checkpoint is never overwritten by a new run; resuming it goes on writing it
    with pytest.raises(FileExistsError, match=re.escape(f"pass resume={str(path)!r} to continue that posterior")):
        sample(checkpoint=path)
    resumed = sample(checkpoint=path, resume=path)
    assert_same_draws(resumed, whole, 300)
    assert xr.open_dataset(path).attrs["draws_done"] == 300
    # fewer draws: the first ones, and the file stays as it was; more draws: the chains go on (another seed's
    # chains are other draws, so the equality above is not the same numbers twice)
    fewer = sample(draws=150, resume=path)
    assert_same_draws(fewer, whole, 150)
    longer = sample(draws=350, resume=path, checkpoint=tmp_path / "longer.nc")
    assert_same_draws(longer.isel(draw=slice(0, 300)), whole, 300)
    assert longer["a"].shape == (4, 350) and np.all(np.isfinite(longer["a"].values))
    assert xr.open_dataset(path).attrs["draws_done"] == 300
    assert not np.allclose(one_draw(key=1)["a"].values, whole["a"].values[:, :1])


def test_blocks_of_any_size_give_the_same_draws_and_progress_is_shown_per_block(whole, capsys):
    post = sample(draws=130, checkpoint_every=60, progress=True)  # blocks 0-59, 60-119 and a short 120-129
    assert_same_draws(post, whole, 130)
    log = capsys.readouterr().err
    assert "posterior: warm-up of 4 chains, 200 steps each (the sampler compiles first)" in log
    assert re.search(r"posterior: 330/330 \[\d+ s\] 130 draws, 0 divergent", log)


@pytest.mark.parametrize(
    ("change", "part"),
    [(dict(noise=2 * SIGMA), "noise"), (dict(key=5), "key"), (dict(noise=2 * SIGMA, key=5), "noise and key")],
)
def test_a_resume_of_another_posterior_is_refused_naming_what_differs(whole, tmp_path, change, part):
    path = tmp_path / "post.nc"
    one_draw(checkpoint=path)
    message = f"was written for a different posterior: it differs from this one in its {part}; start a new"
    with pytest.raises(ValueError, match=re.escape(message)):
        sample(resume=path, **change)


def test_a_corrupt_or_foreign_checkpoint_is_refused(whole, tmp_path):
    path = tmp_path / "post.nc"
    one_draw(checkpoint=path)
    with xr.open_dataset(path) as stored:
        tampered = stored.load()
    tampered["z"] = tampered["z"] + 1.0
    tampered.to_netcdf(tmp_path / "tampered.nc")
    with pytest.raises(ValueError, match="is corrupt: its arrays do not match the checksum"):
        sample(resume=tmp_path / "tampered.nc")
    xr.Dataset(attrs={"format": "difflab-calibration-checkpoint-1"}).to_netcdf(tmp_path / "fit.nc")
    with pytest.raises(ValueError, match="is not a difflab posterior checkpoint"):
        sample(resume=tmp_path / "fit.nc")


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        (dict(checkpoint_every=0), ValueError, "checkpoint_every must be a whole number >= 1; got 0"),
        (dict(checkpoint=3), TypeError, "checkpoint must be a file path (str or os.PathLike) or None; got 3"),
        (dict(progress="yes"), TypeError, "progress must be True, False or None; got 'yes'"),
        (dict(client="tcp://x:1", checkpoint="p.nc"), ValueError, "client: checkpoint and resume are not available"),
        (dict(chains_per_task=0), ValueError, "chains_per_task must be a whole number >= 1; got 0"),
    ],
)
def test_run_settings_are_checked_when_made(settings, error, message):
    with pytest.raises(error, match=re.escape(message)):
        difflab.Sampling(**settings)


def test_chains_on_a_local_cluster_draw_what_they_draw_locally(whole):
    distributed = pytest.importorskip("distributed")
    # a worker thread: the tasks still go through cloudpickle (the density and settings are pickled by hand) and
    # run two chains each, a batch width of their own
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster,
        distributed.Client(cluster) as client,
    ):
        remote = sample(client=client, chains_per_task=2)
    assert_same_draws(remote, whole, 300, rtol=1e-12)
    np.testing.assert_allclose(remote.attrs["step_sizes"], whole.attrs["step_sizes"], rtol=1e-12)


def test_the_draws_as_arviz_inference_data(whole):
    arviz = pytest.importorskip("arviz")
    idata = difflab.as_inference_data(whole)
    for name in ("a", "b"):
        np.testing.assert_array_equal(idata.posterior[name].values, whole[name].values)
        assert idata.posterior[name].attrs["units"] == whole[name].attrs["units"]
    np.testing.assert_array_equal(idata.sample_stats["diverging"].values, whole["divergent"].values)
    np.testing.assert_array_equal(idata.sample_stats["n_steps"].values, whole["leapfrog_steps"].values)
    assert np.mean(whole["leapfrog_steps"].values) == pytest.approx(whole.attrs["gradients_per_draw"], rel=1e-12)
    np.testing.assert_array_equal(idata.sample_stats["step_size"].values[:, 0], whole.attrs["step_sizes"])
    # ArviZ's own diagnostics of the same draws: its bulk ESS is blackjax's (the rank-normalised estimator of
    # Vehtari et al. 2021), its R-hat the rank-normalised split one where blackjax's is Gelman–Rubin's
    ess, rhat = arviz.ess(idata, method="bulk"), arviz.rhat(idata)
    np.testing.assert_allclose([float(ess[n]) for n in ("a", "b")], whole["ess_bulk"].values, rtol=1e-6)
    np.testing.assert_allclose([float(rhat[n]) for n in ("a", "b")], whole["rhat"].values, atol=0.005)
    with pytest.raises(TypeError, match=r"post must be the xarray Dataset returned by difflab\.posterior; got dict"):
        difflab.as_inference_data({"a": 1})
