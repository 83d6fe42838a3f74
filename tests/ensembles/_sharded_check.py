"""Run in a subprocess with 4 host devices: sharded ensemble results equal the unsharded run."""

import sys
from pathlib import Path

import jax
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the shared systems

from _systems import Decay

from difflab.ensembles import make_batch, run_ensemble

assert len(jax.devices()) == 4, jax.devices()
ks = np.linspace(0.1, 3.0, 10)  # 10 members: not a multiple of 4, so padding is exercised
batch = make_batch(Decay(), k=ks)
ts = np.linspace(0.0, 4.0, 9)
partial = Decay().replace(k=ks)  # only k carries the member axis; y0 stays 0-d and shared
for strategy, b in (("vmap", batch), ("map", batch), ("chunked", batch), ("vmap", partial), ("map", partial)):
    sharded = run_ensemble(b, None, ts, strategy=strategy, chunk_size=2)
    single = run_ensemble(batch, None, ts, strategy=strategy, chunk_size=2, devices=jax.devices()[:1])
    np.testing.assert_allclose(sharded.ys["y"], single.ys["y"], rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(sharded.stats["num_steps"], single.stats["num_steps"])
    exact = 2.0 * np.exp(-ks[:, None] * ts[None, :])
    np.testing.assert_allclose(sharded.ys["y"], exact, rtol=1e-5, atol=1e-7)
# Members are dealt out to the devices (device d gets d, d + 4, ...) and put back in order: one block of 8
# members (the result stays on the devices), and blocks of 4 forced by a small memory budget.
ks8 = ks[:8]
for budget in (2**30, 4 * 8 * (ts.size + 64)):
    sharded = run_ensemble(make_batch(Decay(), k=ks8), None, ts, strategy="map", memory_budget=budget)
    np.testing.assert_allclose(sharded.ys["y"], 2.0 * np.exp(-ks8[:, None] * ts[None, :]), rtol=1e-5, atol=1e-7)
    steps = np.asarray(sharded.stats["num_steps"])
    assert (np.diff(steps) >= 0).all() and steps[-1] > steps[0], steps  # step counts grow with k, in order
print("SHARDED-OK")
