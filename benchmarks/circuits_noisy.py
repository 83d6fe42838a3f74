"""Noisy density-matrix circuit: difflab.quantum.circuits versus Qiskit Aer's density-matrix simulator.

Problem (same on both sides): n qubits from |0…0⟩, L layers of [RY and RZ on every wire, a CNOT ladder
0→1→…→n−1, then on every wire a depolarising channel (p = 0.01: X, Y, Z each with probability p/3) and amplitude
damping (γ = 0.02)]; the output is the final density matrix (2ⁿ × 2ⁿ). Angles from `numpy.random.default_rng(0)`.
Both sides get the channels as the same Kraus matrices; Aer's qubit order (qubit 0 the least significant bit) is
reversed before the matrices are compared.

    python benchmarks/circuits_noisy.py --peer-python PEER_PYTHON --qubits 8 10 12

The peer half (`--peer`) imports only Qiskit, Qiskit Aer and NumPy, and runs in its own environment
(`pip install qiskit==2.6.2 qiskit-aer==0.18.2`). Timings: median of `--repeats` calls after one warm-up call, the
Aer half first, then difflab's, with the load average before and after; difflab's call is jitted (compilation
reported separately as the first call), Aer's circuit is transpiled once and only `run` is timed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

P_DEPOL, GAMMA = 0.01, 0.02


def angles(n: int, layers: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(-np.pi, np.pi, size=(layers, n, 2))


def kraus_sets() -> tuple[np.ndarray, np.ndarray]:
    """Depolarising and amplitude-damping Kraus operators, as `difflab.quantum.circuits` defines them."""
    paulis = np.array([[[1, 0], [0, 1]], [[0, 1], [1, 0]], [[0, -1j], [1j, 0]], [[1, 0], [0, -1]]], dtype=complex)
    depol = np.sqrt([1 - P_DEPOL, P_DEPOL / 3, P_DEPOL / 3, P_DEPOL / 3])[:, None, None] * paulis
    damp = np.array([[[1, 0], [0, np.sqrt(1 - GAMMA)]], [[0, np.sqrt(GAMMA)], [0, 0]]], dtype=complex)
    return depol, damp


def median_time(fn, repeats: int) -> tuple[float, float, object]:
    t = time.perf_counter()
    out = fn()
    first = time.perf_counter() - t
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return first, float(np.median(times)), out


def run_difflab(n: int, layers: int, repeats: int) -> dict:
    import jax

    import difflab  # noqa: F401  (float64)
    import difflab.quantum.circuits as qc

    def rho(params):
        ops = []
        for layer in range(layers):
            for w in range(n):
                ops += [qc.RY(params[layer, w, 0], w), qc.RZ(params[layer, w, 1], w)]
            ops += [qc.CNOT(w, w + 1) for w in range(n - 1)]
            for w in range(n):
                ops += [qc.Depolarizing(P_DEPOL, w), qc.AmplitudeDamping(GAMMA, w)]
        return qc.Circuit(n, ops).density_matrix()

    fn = jax.jit(rho)
    params = jax.numpy.asarray(angles(n, layers))
    first, median, out = median_time(lambda: jax.block_until_ready(fn(params)), repeats)
    return {"first_s": first, "median_s": median, "rho": np.asarray(out)}


def run_aer(n: int, layers: int, repeats: int) -> dict:
    import qiskit
    import qiskit_aer
    from qiskit.quantum_info import DensityMatrix, Kraus

    depol, damp = (Kraus(list(k)) for k in kraus_sets())
    p = angles(n, layers)
    circuit = qiskit.QuantumCircuit(n)
    for layer in range(layers):
        for w in range(n):
            circuit.ry(p[layer, w, 0], w)
            circuit.rz(p[layer, w, 1], w)
        for w in range(n - 1):
            circuit.cx(w, w + 1)
        for w in range(n):
            circuit.append(depol, [w])
            circuit.append(damp, [w])
    circuit.save_density_matrix()
    simulator = qiskit_aer.AerSimulator(method="density_matrix", precision="double")
    compiled = qiskit.transpile(circuit, simulator, optimization_level=0)
    first, median, result = median_time(lambda: simulator.run(compiled).result(), repeats)
    rho = DensityMatrix(result.data()["density_matrix"]).reverse_qargs().data
    return {"first_s": first, "median_s": median, "rho": rho,
            "version": f"qiskit {qiskit.__version__}, qiskit-aer {qiskit_aer.__version__}"}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qubits", type=int, nargs="+", default=[8, 10, 12])
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--peer", help="run the Aer half only, writing the matrices into this folder")
    parser.add_argument("--peer-python", help="python of the Qiskit Aer environment")
    args = parser.parse_args()
    if args.peer:
        report = {}
        for n in args.qubits:
            out = run_aer(n, args.layers, args.repeats)
            np.save(Path(args.peer) / f"rho_{n}.npy", out.pop("rho"))
            report[n] = out
        print(json.dumps(report))
        return
    print(f"load average (1 min) before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        peer = {}
        if args.peer_python:
            cmd = [args.peer_python, __file__, "--peer", folder, "--layers", str(args.layers),
                   "--repeats", str(args.repeats), "--qubits", *map(str, args.qubits)]  # fmt: skip
            peer = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[-1])
            print(f"peer: {next(iter(peer.values()))['version']}")
        print("| qubits | layers | difflab median (s) | difflab first call (s) | Aer median (s) | speed-up | "
              "max abs difference of ρ |")  # fmt: skip
        print("|---|---|---|---|---|---|---|")
        for n in args.qubits:
            ours = run_difflab(n, args.layers, args.repeats)
            theirs = peer.get(str(n))
            if theirs is None:
                print(f"| {n} | {args.layers} | {ours['median_s']:.4f} | {ours['first_s']:.1f} | – | – | – |")
                continue
            diff = float(np.max(np.abs(ours["rho"] - np.load(Path(folder) / f"rho_{n}.npy"))))
            speedup = theirs["median_s"] / ours["median_s"]
            print(f"| {n} | {args.layers} | {ours['median_s']:.4f} | {ours['first_s']:.1f} | "
                  f"{theirs['median_s']:.4f} | {speedup:.2f}× | {diff:.1e} |")  # fmt: skip
            sys.stdout.flush()
    print(f"load average (1 min) after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
