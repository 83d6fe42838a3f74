"""VQE energy + full gradient: difflab.quantum.circuits versus PennyLane default.qubit (JAX interface).

Problem (same on both sides): n qubits, a hardware-efficient ansatz of L layers (RY and RZ on every wire, then a CNOT
ladder 0→1→…→n−1), energy of the open transverse-field Ising chain H = −Σ Z_i Z_{i+1} − 0.7 Σ X_i from |0…0⟩,
and its gradient with respect to all 2·n·L angles (reverse mode), jitted. Parameters drawn with
`numpy.random.default_rng(0)`; the two energies and gradients are compared (float64).

    python benchmarks/circuits_bench.py --peer-python /work/venv-ref-circuits/bin/python --qubits 4 8 12 16
    python benchmarks/circuits_bench.py --memory 24   # energy and gradient at 24 qubits: peak memory


The peer half (`--peer`) imports only PennyLane and JAX and runs in its own environment
(`pip install pennylane==0.45.1 "jax[cpu]==0.10.2"`). Timings: median of `--repeats` calls after one warm-up call
(compilation reported separately).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

H_FIELD = 0.7


def angles(n: int, layers: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(-np.pi, np.pi, size=(layers, n, 2))


def timed(fn, x, repeats: int) -> dict:
    import jax

    t = time.perf_counter()
    value, grad = jax.block_until_ready(fn(x))
    first = time.perf_counter() - t
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        jax.block_until_ready(fn(x))
        times.append(time.perf_counter() - t)
    return {"first_s": first, "median_s": float(np.median(times)), "energy": float(value),
            "grad": np.asarray(grad).ravel().tolist()}  # fmt: skip


def run_difflab(n: int, layers: int, repeats: int) -> dict:
    import jax

    import difflab  # noqa: F401  (float64)
    import difflab.quantum.circuits as qc

    h = qc.tfim_hamiltonian(n, 1.0, H_FIELD)

    def energy(p):
        return qc.expectation(h, qc.hardware_efficient(p).statevector())

    return timed(jax.jit(jax.value_and_grad(energy)), jax.numpy.asarray(angles(n, layers)), repeats)


def run_memory(n: int, layers: int) -> None:
    """Energy and full gradient at `n` qubits; prints the peak resident memory against one state vector's size.

    A full 2ⁿ × 2ⁿ gate matrix at n = 24 would take 4.5 PB; the run fits in a few state vectors.
    """
    import resource

    import jax

    t = time.perf_counter()
    out = run_difflab(n, layers, 1)
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # kB on Linux
    state_gb = 2**n * 16 / 2**30
    print(f"{n} qubits, {layers} layers: energy {out['energy']:.10f}, |grad| {np.linalg.norm(out['grad']):.6f}, "
          f"first call {time.perf_counter() - t:.1f} s, warm call {out['median_s']:.2f} s; peak resident memory "
          f"{peak_gb:.2f} GiB = {peak_gb / state_gb:.1f} state vectors of {state_gb:.2f} GiB "
          f"(jax {jax.__version__})")  # fmt: skip


def run_pennylane(n: int, layers: int, repeats: int) -> dict:
    import jax
    import pennylane as qml

    jax.config.update("jax_enable_x64", True)
    coeffs = [-1.0] * (n - 1) + [-H_FIELD] * n
    obs = [qml.PauliZ(i) @ qml.PauliZ(i + 1) for i in range(n - 1)] + [qml.PauliX(i) for i in range(n)]
    hamiltonian = qml.Hamiltonian(coeffs, obs)
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev, interface="jax", diff_method="backprop")
    def energy(p):
        for layer in range(layers):
            for w in range(n):
                qml.RY(p[layer, w, 0], wires=w)
                qml.RZ(p[layer, w, 1], wires=w)
            for w in range(n - 1):
                qml.CNOT(wires=[w, w + 1])
        return qml.expval(hamiltonian)

    out = timed(jax.jit(jax.value_and_grad(energy)), jax.numpy.asarray(angles(n, layers)), repeats)
    out["version"] = qml.__version__
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qubits", type=int, nargs="+", default=[4, 8, 12])
    parser.add_argument("--layers", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--peer", action="store_true", help="run the PennyLane half only, print JSON")
    parser.add_argument("--peer-python", help="python of the PennyLane environment")
    parser.add_argument("--memory", type=int, help="only the peak-memory run at this many qubits")
    args = parser.parse_args()
    if args.memory:
        run_memory(args.memory, args.layers)
        return
    if args.peer:
        print(json.dumps({n: run_pennylane(n, args.layers, args.repeats) for n in args.qubits}))
        return
    peer = {}
    if args.peer_python:
        cmd = [args.peer_python, __file__, "--peer", "--layers", str(args.layers), "--repeats", str(args.repeats),
               "--qubits", *map(str, args.qubits)]  # fmt: skip
        peer = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[-1])
    print("| qubits | layers | difflab median (s) | difflab first call (s) | PennyLane median (s) | "
          "PennyLane first call (s) | speed-up | max abs difference (energy, gradient) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for n in args.qubits:
        ours = run_difflab(n, args.layers, args.repeats)
        theirs = peer.get(str(n))
        if theirs is None:
            print(f"| {n} | {args.layers} | {ours['median_s']:.4f} | {ours['first_s']:.1f} | – | – | – | – |")
            continue
        diff = max(abs(ours["energy"] - theirs["energy"]),
                   float(np.max(np.abs(np.subtract(ours["grad"], theirs["grad"])))))  # fmt: skip
        print(f"| {n} | {args.layers} | {ours['median_s']:.4f} | {ours['first_s']:.1f} | {theirs['median_s']:.4f} | "
              f"{theirs['first_s']:.1f} | {theirs['median_s'] / ours['median_s']:.1f}× | {diff:.1e} |")  # fmt: skip
        sys.stdout.flush()


if __name__ == "__main__":
    main()
