"""One of two JAX processes (2 CPU devices each) joined by ``jax.distributed``: a sharded ensemble over all 4.

    python _multihost_check.py PORT PROCESS_ID OUT.npz

Saves the gathered sharded result and, for comparison, the same ensemble on one local device.
"""

import sys
from pathlib import Path

import jax

port, process_id, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
# the coordinator (process 0) listens on localhost; both processes block here until both have joined
jax.distributed.initialize(
    coordinator_address=f"127.0.0.1:{port}", num_processes=2, process_id=process_id, initialization_timeout=120
)

import numpy as np  # noqa: E402
from jax.experimental import multihost_utils  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the shared systems
from _systems import Decay  # noqa: E402

import difflab  # noqa: E402

assert jax.process_count() == 2 and len(jax.devices()) == 4 and len(jax.local_devices()) == 2, jax.devices()
ks = np.linspace(0.1, 3.0, 8)  # ascending k: step counts grow, so the order of the members is checked too
ts = np.linspace(0.0, 4.0, 9)
batch = difflab.make_batch(Decay(), k=ks)
sharded = difflab.run_ensemble(batch, None, ts, strategy="map")  # over jax.devices(): both processes
single = difflab.run_ensemble(batch, None, ts, strategy="map", devices=jax.local_devices()[:1])
np.savez(
    out,
    ks=ks,
    ts=ts,
    sharded_y=multihost_utils.process_allgather(sharded.ys["y"], tiled=True),
    sharded_steps=multihost_utils.process_allgather(sharded.stats["num_steps"], tiled=True),
    single_y=np.asarray(single.ys["y"]),
    single_steps=np.asarray(single.stats["num_steps"]),
    devices_used=np.array(sorted({d.process_index for d in sharded.ys["y"].sharding.device_set})),
)
print("MULTIHOST-OK", process_id)
