"""Jaxley 0.14's own fitting workflow on the 300 ms recording of calibration_global.py (16 starts).

Run from an environment with Jaxley (it is not a difflab dependency):

    python benchmarks/calibration_global.py export                      # writes /tmp/hh_ou_fit.npz
    /path/to/jaxley-env/bin/python benchmarks/calibration_jaxley_ou.py /tmp/hh_ou_fit.npz [adam_steps]

Workflow as in Jaxley's training tutorial: one compartment with ``jaxley.channels.HH``, the recorded
current (held over each 0.025 ms sample) given to ``stimulate`` at ``delta_t`` = 0.025 ms (Jaxley's
default, backward Euler), ``make_trainable`` on HH_gNa, HH_gK, HH_gLeak with ``SigmoidTransform`` to the
same bounds, ``jax.jit(jax.vmap(jax.value_and_grad(loss)))`` over the 16 starts, ``optax.adam(0.05)``.
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
NAMES = ("HH_gNa", "HH_gK", "HH_gLeak")
BOUNDS = {"HH_gNa": (0.05, 0.2), "HH_gK": (0.01, 0.08), "HH_gLeak": (5e-5, 1e-3)}  # S/cm²
TRUE = {"HH_gNa": 0.12, "HH_gK": 0.036, "HH_gLeak": 0.0003}

data = np.load(sys.argv[1])
adam_steps = int(sys.argv[2]) if len(sys.argv) > 2 else 300
t_data, v_data, current = data["time"], data["V"], data["I_stim"]
t_max = float(t_data[-1])

comp = jx.Compartment()
comp.insert(HH())
comp.set("radius", RADIUS)
comp.set("length", LENGTH)
comp.set("v", -65.0)
comp.init_states()
comp.record("v", verbose=False)
comp.stimulate(jnp.asarray(current * AREA_CM2 * 1e3), verbose=False)  # µA/cm² → nA, one value per step
for name in NAMES:
    comp.make_trainable(name, verbose=False)
transform = jx.ParamTransform([{k: jt.SigmoidTransform(*BOUNDS[k])} for k in NAMES])


def loss(opt_params):
    v = jx.integrate(comp, params=transform.forward(opt_params), delta_t=DT, t_max=t_max)[0]
    return jnp.mean((v[: t_data.size] - v_data) ** 2)


batched = jax.jit(jax.vmap(jax.value_and_grad(loss)))
starts = transform.inverse([{"HH_gNa": jnp.asarray(data["start_gNa"])[:, None] * 1e-3},
                            {"HH_gK": jnp.asarray(data["start_gK"])[:, None] * 1e-3},
                            {"HH_gLeak": jnp.asarray(data["start_gL"])[:, None] * 1e-3}])  # fmt: skip
at_truth = float(loss(transform.inverse([{k: jnp.asarray([v])} for k, v in TRUE.items()])))
print(f"loss at the true parameters (1 mV² noise + Jaxley's discretisation error): {at_truth:.3f} mV²")
optimizer = optax.adam(learning_rate=0.05)
params, state = starts, optimizer.init(starts)
t0 = time.perf_counter()
for step in range(adam_steps):
    values, grads = batched(params)
    updates, state = optimizer.update(grads, state)
    params = optax.apply_updates(params, updates)
    if step in (0, 49, 99, 199) or step == adam_steps - 1:
        print(f"step {step + 1}: best loss {float(jnp.min(values)):.3f}, wall {time.perf_counter() - t0:.1f} s")
wall = time.perf_counter() - t0
final = transform.forward(params)
est = {k: np.asarray(d[k]).ravel() * 1e3 for d in final for k in d}
good = np.all([np.abs(est[k] / (TRUE[k] * 1e3) - 1) < 0.01 for k in NAMES], axis=0)
losses = np.asarray(jax.vmap(loss)(params))
best = int(np.argmin(losses))
print(
    f"Jaxley {adam_steps} Adam steps x 16 starts (vmapped): wall {wall:.1f} s incl. compilation; "
    f"{int(good.sum())}/16 starts within 1 % of the truth; best loss {losses[best]:.3f}; "
    f"best gNa {est['HH_gNa'][best]:.3f}, gK {est['HH_gK'][best]:.3f}, gL {est['HH_gLeak'][best]:.4f} mS/cm²"
)
