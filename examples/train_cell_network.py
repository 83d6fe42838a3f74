"""Train the dendritic synapses of a network of 12 ball-and-stick cells to map input patterns to output rates.

Four input cells project onto eight output cells, one `Exp2Synapses` from every input onto every output's dendrite
at dend(0.6) (32 synapses). Two input patterns drive the inputs through somatic clamps: in pattern A cells 0 and 1
fire, in pattern B cells 2 and 3. The task, set by a teacher network with known weights, is selectivity: outputs
4–7 fire 7 spikes in 100 ms under A and none under B, outputs 8–11 the other way round. The student starts from
equal weights, where every output fires once under either pattern.

The loss compares the outputs' mean somatic potential over the 100 ms with the teacher's, under both patterns
(a rate that changes smoothly with the weights: a spike count does not, and the soft count of a full spike has no
gradient). Adam (optax) steps the logarithms of the weights, so that they stay positive; both patterns run at once
(`jax.vmap` over the clamps) and the gradient is reverse mode through the whole solve. It is checked against a
central finite difference before training, and the weights and the optimiser's moments are saved every 5 steps to
a checkpoint that a rerun resumes.

    python examples/train_cell_network.py [--steps 40] [--checkpoint train_cell_network.npz]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

import difflab
from difflab.neuron import Cell, CellNetwork, Exp2Synapses, IClamp

jax.config.update("jax_enable_x64", True)

N_IN, N_OUT = 4, 8
TS = jnp.arange(0.0, 100.0, 0.1)
OUTPUTS = [f"cell{N_IN + k}.soma(0.5)" for k in range(N_OUT)]


def build() -> tuple[CellNetwork, IClamp]:
    """The network (inputs 0–3, outputs 4–11) and both input patterns as one batched clamp."""
    pre, post = np.meshgrid(np.arange(N_IN), N_IN + np.arange(N_OUT), indexing="ij")
    synapses = Exp2Synapses(pre.ravel(), post.ravel(), weight=0.001, delay=2.0, tau1=0.5, tau2=5.0)
    net = CellNetwork(Cell.ball_and_stick(nseg=7), synapses, where="dend(0.6)", counts=N_IN + N_OUT)

    def pattern(amplitudes):  # nA into the inputs' somata: 0.3 nA fires 7 spikes in 100 ms
        return IClamp({f"cell{i}.soma(0.5)": difflab.Step(a, 2.0, 98.0) for i, a in enumerate(amplitudes)})

    a, b = pattern([0.3, 0.3, 0.0, 0.0]), pattern([0.0, 0.0, 0.3, 0.3])
    return net, jax.tree.map(lambda x, y: jnp.stack([x, y]), a, b)


def teacher_weights() -> jnp.ndarray:
    """Strong synapses (0.0025 µS) from inputs 0–1 to outputs 4–7 and from 2–3 to 8–11, weak (0.0002) elsewhere."""
    w = np.full((N_IN, N_OUT), 0.0002)
    w[:2, :4] = w[2:, 4:] = 0.0025
    return jnp.asarray(w.ravel())


def make_run(net: CellNetwork, patterns: IClamp):
    """The outputs' somatic potentials, ``(pattern, output, time)``, for weights ``w`` (µS)."""
    observe, info = net.recorder(OUTPUTS)

    def run(w):
        model = net.replace(**{"synapses.0.weight": w})

        def one(clamp):
            traj = difflab.simulate(model, clamp, TS, observe=observe, observe_info=info)
            return jnp.stack([traj[name] for name in OUTPUTS])

        return jax.vmap(one)(patterns)

    return run


def spike_counts(V) -> np.ndarray:
    """Upward crossings of 0 mV along the last axis."""
    V = np.asarray(V)
    return ((V[..., 1:] >= 0.0) & (V[..., :-1] < 0.0)).sum(axis=-1)


def check_gradient(value_and_grad, loss, log_w) -> float:
    """Relative gap between the gradient's directional derivative and a central difference (step 1e-4)."""
    direction = jax.random.normal(jax.random.key(0), log_w.shape)
    direction = direction / jnp.linalg.norm(direction)
    _, grad = value_and_grad(log_w)
    eps = 1e-4
    fd = (loss(log_w + eps * direction) - loss(log_w - eps * direction)) / (2 * eps)
    return float(jnp.abs(grad @ direction - fd) / jnp.abs(fd))


def train(steps: int, checkpoint: Path) -> None:
    net, patterns = build()
    run = jax.jit(make_run(net, patterns))
    target_V = run(teacher_weights())
    target = jnp.mean(target_V, axis=-1)  # mV, (pattern, output)
    print("teacher's spike counts (pattern A, then B):", spike_counts(target_V).tolist())

    def loss(log_w):
        return jnp.mean((jnp.mean(run(jnp.exp(log_w)), axis=-1) - target) ** 2)

    loss_jit, value_and_grad = jax.jit(loss), jax.jit(jax.value_and_grad(loss))
    optimizer = optax.adam(0.1)
    log_w = jnp.log(net.synapses[0].weight)
    state, start = optimizer.init(log_w), 0
    if checkpoint.exists():  # resume: the weights, the optimiser's moments and the step
        saved = np.load(checkpoint)
        leaves = [jnp.asarray(saved[f"opt{i}"]) for i in range(len(jax.tree.leaves(state)))]
        log_w, state, start = jnp.asarray(saved["log_w"]), jax.tree.unflatten(jax.tree.structure(state), leaves), \
            int(saved["step"])  # fmt: skip
        print(f"resumed from {checkpoint} at step {start}")
    else:
        print(
            f"gradient against a central difference: relative gap {check_gradient(value_and_grad, loss_jit, log_w):.1e}"
        )
        print("student's spike counts before training:", spike_counts(run(jnp.exp(log_w))).tolist())
    t0 = time.perf_counter()
    for step in range(start, steps):
        value, grad = value_and_grad(log_w)
        updates, state = optimizer.update(grad, state)
        log_w = optax.apply_updates(log_w, updates)
        print(f"step {step:3d}  loss {float(value):.4f} mV^2  ({time.perf_counter() - t0:.0f} s)", flush=True)
        if (step + 1) % 5 == 0 or step + 1 == steps:
            leaves = {f"opt{i}": np.asarray(x) for i, x in enumerate(jax.tree.leaves(state))}
            np.savez(checkpoint, log_w=np.asarray(log_w), step=step + 1, **leaves)
    print(f"final loss {float(loss_jit(log_w)):.4f} mV^2")
    print("student's spike counts after training:", spike_counts(run(jnp.exp(log_w))).tolist())
    print("weights (µS, inputs × outputs):\n", np.round(np.exp(np.asarray(log_w)).reshape(N_IN, N_OUT), 4))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--checkpoint", type=Path, default=Path("train_cell_network.npz"))
    args = parser.parse_args()
    train(args.steps, args.checkpoint)
