"""Multi-host JAX on one machine: two processes joined by ``jax.distributed.initialize`` (coordinator on localhost,
2 CPU devices each) run one sharded ensemble of dy/dt = -k y across both; it equals the single-process result."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).with_name("_multihost_check.py")


@pytest.mark.slow
def test_ensemble_sharded_over_two_processes_equals_one_process(tmp_path):
    with socket.socket() as s:  # a free port for the coordinator
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **os.environ,
        "JAX_PLATFORMS": "cpu",
        "XLA_FLAGS": "--xla_force_host_platform_device_count=2",
        "JAX_NUMPY_RANK_PROMOTION": "raise",
    }
    procs = [
        subprocess.Popen(
            [sys.executable, str(SCRIPT), str(port), str(i), str(tmp_path / f"p{i}.npz")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in range(2)
    ]
    outputs = []
    try:
        for p in procs:
            outputs.append(p.communicate(timeout=300)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for i, (p, out) in enumerate(zip(procs, outputs)):
        assert p.returncode == 0 and f"MULTIHOST-OK {i}" in out, out[-3000:]
    results = [np.load(tmp_path / f"p{i}.npz") for i in range(2)]
    for r in results:
        assert r["devices_used"].tolist() == [0, 1]  # the result lives on the devices of both processes
        np.testing.assert_allclose(r["sharded_y"], r["single_y"], rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(r["sharded_steps"], r["single_steps"])
        exact = 2.0 * np.exp(-r["ks"][:, None] * r["ts"][None, :])
        np.testing.assert_allclose(r["sharded_y"], exact, rtol=1e-5, atol=1e-7)
        assert (np.diff(r["sharded_steps"]) >= 0).all() and r["sharded_steps"][-1] > r["sharded_steps"][0]
    np.testing.assert_array_equal(results[0]["sharded_y"], results[1]["sharded_y"])  # both see one global result
