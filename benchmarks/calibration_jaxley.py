"""Jaxley 0.14's own fitting workflow on the same data and parameters as calibration_hh.py.

Run with the Jaxley environment (Jaxley is not a difflab dependency):

    PEER_PYTHON benchmarks/calibration_jaxley.py /tmp/hh_fit_data.npz [adam_steps] [--no-sweep]

Workflow as in Jaxley's training tutorial: a single-compartment cell with ``jaxley.channels.HH``,
``make_trainable`` on HH_gNa, HH_gK, HH_gLeak, ``ParamTransform`` with ``SigmoidTransform`` bounds,
``jax.jit(jax.value_and_grad(loss))`` on ``jx.integrate`` (backward Euler, dt = 0.025 ms, its
default) and ``optax.adam``. The two starts (all ×0.5, all ×1.5) run one after the other.
Also times a 41 × 41 (gNa, gK) firing-rate sweep with ``jax.vmap`` over ``jx.integrate``.
"""

import sys
import time

import jax
import jax.numpy as jnp
import jaxley as jx
import jaxley.optimize.transforms as jt
import numpy as np
import optax
from jaxley.channels import HH

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platform_name", "cpu")

DT = 0.025
RADIUS, LENGTH = 1.0, 10.0  # µm (Jaxley's defaults): area 2π r L = 62.83 µm²
AREA_CM2 = 2 * np.pi * RADIUS * LENGTH * 1e-8
I_NA = 10.0 * AREA_CM2 * 1e3  # 10 µA/cm² in nA

data = np.load(sys.argv[1])
adam_steps = int(sys.argv[2]) if len(sys.argv) > 2 else 400
t_data, v_data = data["time"], data["V"]
t_max = float(t_data[-1])
stride = round((t_data[1] - t_data[0]) / DT)


def cell(t_end):
    comp = jx.Compartment()
    comp.insert(HH())
    comp.set("radius", RADIUS)
    comp.set("length", LENGTH)
    comp.set("v", -65.0)
    comp.init_states()
    comp.record("v", verbose=False)
    comp.stimulate(jx.step_current(10.0, 100.0, I_NA, DT, t_end), verbose=False)
    return comp


comp = cell(t_max)
for name in ("HH_gNa", "HH_gK", "HH_gLeak"):
    comp.make_trainable(name, verbose=False)
bounds = {"HH_gNa": (0.05, 0.2), "HH_gK": (0.01, 0.08), "HH_gLeak": (1e-4, 1e-3)}  # S/cm²
transform = jx.ParamTransform([{k: jt.SigmoidTransform(*bounds[k])} for k in ("HH_gNa", "HH_gK", "HH_gLeak")])


def loss(opt_params):
    params = transform.forward(opt_params)
    v = jx.integrate(comp, params=params, delta_t=DT, t_max=t_max)[0]
    pred = v[: len(t_data) * stride : stride]
    return jnp.mean((pred - v_data) ** 2)


grad_fn = jax.jit(jax.value_and_grad(loss))
true_params = transform.inverse([{"HH_gNa": jnp.asarray([0.12])}, {"HH_gK": jnp.asarray([0.036])},
                                 {"HH_gLeak": jnp.asarray([0.0003])}])  # fmt: skip
at_truth = float(loss(true_params))
print(f"loss at the true parameters (noise variance 1 mV² + Jaxley's discretisation error): {at_truth:.3f}")
optimizer = optax.adam(learning_rate=0.05)
results = []
t0 = time.perf_counter()
for s in range(2):
    start = [
        {"HH_gNa": jnp.asarray([data["start_gNa"][s] * 1e-3])},
        {"HH_gK": jnp.asarray([data["start_gK"][s] * 1e-3])},
        {"HH_gLeak": jnp.asarray([data["start_gL"][s] * 1e-3])},
    ]
    opt_params = transform.inverse(start)
    state = optimizer.init(opt_params)
    history = []
    for _ in range(adam_steps):
        value, grads = grad_fn(opt_params)
        updates, state = optimizer.update(grads, state)
        opt_params = optax.apply_updates(opt_params, updates)
        history.append(float(value))
    final = transform.forward(opt_params)
    results.append((float(loss(opt_params)), {k: float(v[0]) * 1e3 for d in final for k, v in d.items()}, history))
wall = time.perf_counter() - t0
best = min(results, key=lambda r: r[0])
print(f"jaxley {jx.__version__ if hasattr(jx, '__version__') else '0.14'}: Adam {adam_steps} steps x 2 starts, "
      f"wall {wall:.1f} s (incl. compile)")  # fmt: skip
print("final losses", [round(r[0], 4) for r in results], "best", {k: round(v, 4) for k, v in best[1].items()})
hist = np.minimum.accumulate(np.min([r[2] for r in results], axis=0))
print(
    "best loss at steps 25/50/100/200/last:",
    [round(float(hist[min(i, len(hist)) - 1]), 3) for i in (25, 50, 100, 200, len(hist))],
)

if "--no-sweep" in sys.argv:
    sys.exit(0)

# ---- sweep throughput: 41 x 41 (gNa, gK) grid, 110 ms, firing rate in [10, 110) ms -------------------------
sweep_cell = cell(110.0)
sweep_cell.make_trainable("HH_gNa", verbose=False)
sweep_cell.make_trainable("HH_gK", verbose=False)
gna, gk = np.meshgrid(np.linspace(60, 180, 41), np.linspace(18, 54, 41), indexing="ij")


def rate(gna_i, gk_i):
    params = [{"HH_gNa": gna_i[None] * 1e-3}, {"HH_gK": gk_i[None] * 1e-3}]
    v = jx.integrate(sweep_cell, params=params, delta_t=DT, t_max=110.0)[0]
    up = (v[:-1] < 0) & (v[1:] >= 0)
    t = jnp.arange(v.shape[0] - 1) * DT
    return jnp.sum(up & (t >= 10.0)) * 10.0  # spikes per 100 ms -> Hz


batched = jax.jit(jax.vmap(rate))
chunk = 41
flat_na, flat_k = gna.ravel(), gk.ravel()
jax.block_until_ready(batched(jnp.asarray(flat_na[:chunk]), jnp.asarray(flat_k[:chunk])))
t0 = time.perf_counter()
rates = [
    batched(jnp.asarray(flat_na[i : i + chunk]), jnp.asarray(flat_k[i : i + chunk])) for i in range(0, gna.size, chunk)
]
rates = np.concatenate([np.asarray(r) for r in rates])
wall = time.perf_counter() - t0
steps = int(110.0 / DT)
standard = rates[np.argmin(abs(flat_na - 120) + abs(flat_k - 36))]
print(f"jaxley sweep 41x41: {wall:.1f} s (compiled), {gna.size / wall:.1f} sims/s, "
      f"{gna.size * steps / wall:,.0f} cell-steps/s; rate at (120, 36): {standard} Hz")  # fmt: skip
