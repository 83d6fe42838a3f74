"""sweep on a Dask cluster (a LocalCluster of 2 worker processes): equal to a local run bit for bit, one
compilation per worker, a worker killed mid-chunk loses nothing, bad clusters refused by name."""

import os
import signal
import socket
import threading
import time

import jax
import numpy as np
import pytest
import xarray as xr
from _systems import Decay
from typer.testing import CliRunner

from difflab.ensembles import ClusterError, Grid, _cluster, sweep, worker_report

distributed = pytest.importorskip("distributed")

TS = np.linspace(0.0, 2.0, 5)
DESIGN = Grid(k=np.linspace(0.1, 1.0, 7), y0=[1.0, 2.0])  # 14 points: chunks of 4, the last one padded


def final(traj):
    return traj.ys["y"][-1]


@pytest.mark.slow
def test_sweep_on_a_local_cluster_of_two_worker_processes(tmp_path):
    # one cluster for every check (starting one costs more than the checks): 2 processes of 1 thread each
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster,
        distributed.Client(cluster) as client,
    ):
        # one problem for both checks, so that the workers compile it once: `final` plus 0.0 until `arm` exists
        arm = tmp_path / "arm"
        obs = {"final": (stalling_final(arm), "mV")}
        local = sweep(Decay(), None, TS, DESIGN, obs, chunk_size=4, directory=tmp_path / "local").load()
        exact = (local["y0"] * np.exp(-local["k"] * 2.0)).transpose("k", "y0")
        np.testing.assert_allclose(local["final"], exact, rtol=1e-5)
        equal_to_the_local_run_and_compiled_once_per_worker(client, obs, local, tmp_path / "equal")
        a_worker_killed_mid_chunk_loses_nothing(client, obs, local, arm, tmp_path / "killed")
        workers_of_another_difflab_version_are_refused(client, tmp_path / "version")
        a_folder_the_workers_cannot_see_is_refused(client, tmp_path / "unshared")
        the_cli_runs_on_a_scheduler(client, tmp_path / "cli")


def equal_to_the_local_run_and_compiled_once_per_worker(client, obs, local, tmp_path):
    remote = sweep(Decay(), None, TS, DESIGN, obs, chunk_size=4, directory=tmp_path / "cluster", client=client)
    xr.testing.assert_identical(remote.load(), local)  # values, coordinates and attributes, bit for bit
    files = sorted(p.name for p in (tmp_path / "cluster").iterdir())
    assert files == [f"chunk_{i:05d}.nc" for i in range(4)]  # no marker, no private folder left
    for worker, report in client.run(worker_report).items():
        mine = [c for c in report["chunks"] if c["chunk"] in range(4)]
        assert all(c["compiles"] == 0 for c in mine[1:]), (worker, mine)  # only a worker's first chunk compiles
    mtimes = {p: p.stat().st_mtime_ns for p in (tmp_path / "cluster").glob("chunk_*.nc")}
    again = sweep(Decay(), None, TS, DESIGN, obs, chunk_size=4, directory=tmp_path / "cluster", client=client)
    xr.testing.assert_identical(again.load(), local)
    assert all(p.stat().st_mtime_ns == t for p, t in mtimes.items())  # finished chunks were not resent


def stalling_final(arm):
    """`final` plus 0.0 from a host callback; the first chunk to find the file `arm` claims it and hangs there."""

    def callback(y):
        try:
            os.rename(arm, f"{arm}.taken")  # atomic: exactly one chunk stalls
        except FileNotFoundError:
            return np.zeros_like(y)
        (arm.parent / "stalled_pid").write_text(str(os.getpid()))
        time.sleep(120)
        return np.zeros_like(y)

    def stalling(traj):
        y = traj.ys["y"][-1]
        return y + jax.pure_callback(callback, jax.ShapeDtypeStruct(y.shape, y.dtype), y, vmap_method="broadcast_all")

    return stalling


def a_worker_killed_mid_chunk_loses_nothing(client, obs, local, arm, tmp_path):
    arm.write_text("")
    killed = []

    def kill_the_stalled_worker():
        pid_file = arm.parent / "stalled_pid"
        deadline = time.monotonic() + 60
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)  # the pid is written just before the stall
        killed.append(int(pid_file.read_text()))
        os.kill(killed[0], signal.SIGKILL)  # a worker process of the cluster this module started

    watcher = threading.Thread(target=kill_the_stalled_worker, daemon=True)
    watcher.start()
    remote = sweep(Decay(), None, TS, DESIGN, obs, chunk_size=4, directory=tmp_path / "cluster", client=client)
    watcher.join(timeout=5)
    assert killed and killed[0] not in client.run(os.getpid).values()  # the worker is gone mid-chunk
    xr.testing.assert_identical(remote.load(), local)  # its chunk ran again elsewhere, bit for bit
    assert sorted(p.name for p in (tmp_path / "cluster").iterdir()) == [f"chunk_{i:05d}.nc" for i in range(4)]


def workers_of_another_difflab_version_are_refused(client, tmp_path):
    import difflab

    ours = difflab.__version__

    def set_version(v):
        import difflab

        difflab.__version__ = v

    client.run(set_version, "0.0.1-other")
    try:
        with pytest.raises(ClusterError, match=rf"client: worker tcp://\S+ runs difflab 0.0.1-other but this process "
                                               rf"runs difflab {ours}"):  # fmt: skip
            sweep(Decay(), None, TS, DESIGN, [final], chunk_size=4, directory=tmp_path, client=client)
    finally:
        client.run(set_version, ours)
    assert not list(tmp_path.glob("chunk_*.nc")) and not list(
        tmp_path.glob(".difflab-*")
    )  # refused before any chunk: the marker file is gone too


def a_folder_the_workers_cannot_see_is_refused(client, tmp_path):
    tmp_path.mkdir()
    # /proc/self/fd/N is this process's open folder; in a worker process the same path names nothing
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        here_only = f"/proc/self/fd/{fd}/out"
        with pytest.raises(ClusterError, match=r"directory: '/proc/self/fd/\d+/out' is not shared with worker tcp://"):
            sweep(Decay(), None, TS, DESIGN, [final], chunk_size=4, directory=here_only, client=client)
    finally:
        os.close(fd)


def test_unreachable_scheduler_and_bad_client_arguments(tmp_path, monkeypatch):
    monkeypatch.setattr(_cluster, "CONNECT_TIMEOUT_S", 1.0)
    with socket.socket() as s:  # a free port that nobody listens on
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(ClusterError, match=rf"client: no Dask scheduler answered at '{address}' within 1 s"):
        sweep(Decay(), None, TS, DESIGN, [final], directory=tmp_path, client=address)
    with pytest.raises(TypeError, match=r"client must be a distributed.Client or a scheduler address .* got int"):
        sweep(Decay(), None, TS, DESIGN, [final], directory=tmp_path, client=8786)
    with pytest.raises(ValueError, match=r"directory is required with client: .* got directory=None"):
        sweep(Decay(), None, TS, DESIGN, [final], client=address)


def the_cli_runs_on_a_scheduler(client, tmp_path):
    tmp_path.mkdir()
    from difflab.cli import app

    config = tmp_path / "sweep.toml"
    config.write_text(
        'protocol = "step:10,10,110"\n[model]\npreset = "hodgkin_huxley/squid_axon"\n[time]\nend = 30.0\ndt = 0.5\n'
        "[design]\ntype = 'grid'\n[design.parameters]\ngNa = [100.0, 120.0, 140.0]\n"  # one chunk: one worker compiles
        "[observables]\nspikes = { kind = 'spike_count', variable = 'V' }\n"
        "[output]\ndirectory = 'out'\nchunk_size = 3\n"
    )
    runner = CliRunner()
    result = runner.invoke(app, ["sweep", str(config), "--scheduler", client.scheduler.address])
    assert result.exit_code == 0, result.output
    ds = xr.open_mfdataset(sorted((tmp_path / "out").glob("chunk_*.nc")), combine="nested", concat_dim="sample").load()
    assert ds.sizes["sample"] == 3 and int(ds["solver_ok"].sum()) == 3
    # squid axon: first spike at 11.90 ms (NEURON), then about every 14 ms (70 Hz): 2 spikes by 30 ms
    assert int(ds["spikes"].where(ds["gNa"] == 120.0, drop=True).item()) == 2
    bad = runner.invoke(app, ["sweep", str(config), "--scheduler", "tcp://127.0.0.1:1", "--scheduler-timeout", "1"])
    assert bad.exit_code == 2 and "no Dask scheduler answered at 'tcp://127.0.0.1:1'" in bad.output
