"""VQE energy + full gradient: difflab.quantum.circuits versus PennyLane default.qubit and TensorCircuit (JAX).

Problem (same on every side): n qubits, a hardware-efficient ansatz of L layers (RY and RZ on every wire, then a CNOT
ladder 0→1→…→n−1), energy of the open transverse-field Ising chain H = −Σ Z_i Z_{i+1} − 0.7 Σ X_i from |0…0⟩,
and its gradient with respect to all 2·n·L angles (reverse mode; difflab's `qc.energy` by the adjoint method
unless `--gradient backprop`), jitted, complex128/float64. Parameters drawn with
`numpy.random.default_rng(0)`; the energies and gradients of the peers are compared with difflab's.

    python benchmarks/circuits_bench.py --peer-python PEER_PYTHON --qubits 4 8 12 16 20
    python benchmarks/circuits_bench.py --memory 20 --layers 1   # energy and gradient at 20 qubits: peak memory

Peers: PennyLane 0.45.1 `default.qubit` with the JAX interface (`diff_method="backprop"`), PennyLane's C++
`lightning.qubit` 0.45.0 with its adjoint gradient (`--peers lightning`), and TensorCircuit-NG
1.10.0 (`tc.set_backend("jax")`, `tc.set_dtype("complex128")`, one `expectation_ps` per term on the cached state),
both on JAX 0.10.2. Each peer half (`--peer NAME`) imports only its library and JAX and runs in its own environment
(`pip install pennylane==0.45.1 tensorcircuit-ng==1.10.0 "jax[cpu]==0.10.2"`), as a server that compiles, then
times one call per request. Timings: the first call (compilation and one run) is reported apart; then `--repeats`
rounds in which difflab and each peer run one call in turn (alternation, so that the load of a shared machine falls
on all alike), and the median of each library's calls is reported, with the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

H_FIELD = 0.7
PEERS = ("pennylane", "lightning", "tensorcircuit")


def angles(n: int, layers: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(-np.pi, np.pi, size=(layers, n, 2))


def peak_rss_gib() -> float:
    """This process's peak resident memory (Linux `VmHWM`, kB; unlike `ru_maxrss` it is not carried over from the
    parent through fork and exec)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 2**20


class Timed:
    """A jitted `value_and_grad` and its argument: `first()` times the compiling call, `once()` a later one."""

    def __init__(self, fn, x):
        self.fn, self.x = fn, x

    def once(self) -> float:
        import jax

        t = time.perf_counter()
        self.value, self.grad = jax.block_until_ready(self.fn(self.x))
        return time.perf_counter() - t

    first = once

    def result(self) -> dict:
        return {"energy": float(self.value), "grad": np.asarray(self.grad).ravel().tolist(), "rss_gib": peak_rss_gib()}


def build_difflab(n: int, layers: int, gradient: str = "adjoint") -> Timed:
    import jax

    import difflab  # noqa: F401  (float64)
    import difflab.quantum.circuits as qc

    h = qc.tfim_hamiltonian(n, 1.0, H_FIELD)

    def energy(p):
        return qc.energy(h, qc.hardware_efficient(p), gradient=gradient)

    return Timed(jax.jit(jax.value_and_grad(energy)), jax.numpy.asarray(angles(n, layers)))


def build_pennylane(n: int, layers: int, device: str = "default.qubit", diff_method: str = "backprop") -> Timed:
    import jax
    import pennylane as qml

    jax.config.update("jax_enable_x64", True)
    coeffs = [-1.0] * (n - 1) + [-H_FIELD] * n
    obs = [qml.PauliZ(i) @ qml.PauliZ(i + 1) for i in range(n - 1)] + [qml.PauliX(i) for i in range(n)]
    hamiltonian = qml.Hamiltonian(coeffs, obs)
    dev = qml.device(device, wires=n)

    @qml.qnode(dev, interface="jax", diff_method=diff_method)
    def energy(p):
        for layer in range(layers):
            for w in range(n):
                qml.RY(p[layer, w, 0], wires=w)
                qml.RZ(p[layer, w, 1], wires=w)
            for w in range(n - 1):
                qml.CNOT(wires=[w, w + 1])
        return qml.expval(hamiltonian)

    return Timed(jax.jit(jax.value_and_grad(energy)), jax.numpy.asarray(angles(n, layers)))


def build_lightning(n: int, layers: int) -> Timed:
    """PennyLane's C++ state-vector device, `lightning.qubit`, with its adjoint gradient (its fastest CPU path)."""
    return build_pennylane(n, layers, device="lightning.qubit", diff_method="adjoint")


def build_tensorcircuit(n: int, layers: int) -> Timed:
    import jax
    import tensorcircuit as tc

    jax.config.update("jax_enable_x64", True)
    tc.set_backend("jax")
    tc.set_dtype("complex128")

    def energy(p):
        c = tc.Circuit(n)
        for layer in range(layers):
            for w in range(n):
                c.ry(w, theta=p[layer, w, 0])
                c.rz(w, theta=p[layer, w, 1])
            for w in range(n - 1):
                c.cnot(w, w + 1)
        zz = sum(c.expectation_ps(z=[i, i + 1]) for i in range(n - 1))
        x = sum(c.expectation_ps(x=[i]) for i in range(n))
        return tc.backend.real(-zz - H_FIELD * x)

    return Timed(tc.backend.jit(tc.backend.value_and_grad(energy)), jax.numpy.asarray(angles(n, layers)))


def version(name: str) -> str:
    import jax

    if name in ("pennylane", "lightning"):
        from importlib.metadata import version as dist_version

        import pennylane as qml

        device = "default.qubit" if name == "pennylane" else f"lightning.qubit {dist_version('pennylane-lightning')}"
        return f"PennyLane {qml.__version__} {device}, jax {jax.__version__}"
    from importlib.metadata import version as dist_version

    return f"TensorCircuit-NG {dist_version('tensorcircuit-ng')}, jax {jax.__version__}"


def serve(name: str, n: int, layers: int) -> None:
    """Peer server: compile, print the first call's time, then answer `time` (one call) and `result` on stdin."""
    timed = {"pennylane": build_pennylane, "lightning": build_lightning, "tensorcircuit": build_tensorcircuit}[name](
        n, layers
    )
    print(json.dumps({"first_s": timed.first(), "version": version(name)}), flush=True)
    for line in sys.stdin:
        reply = {"s": timed.once()} if line.strip() == "time" else timed.result()
        print(json.dumps(reply), flush=True)


class Peer:
    """A peer server in its own python, spoken to by lines of JSON."""

    def __init__(self, python: str, name: str, n: int, layers: int):
        cmd = [python, __file__, "--peer", name, "--qubits", str(n), "--layers", str(layers)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ready = self.ask(None)

    def ask(self, request: str | None) -> dict:
        if request is not None:
            self.proc.stdin.write(request + "\n")
            self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"peer {self.proc.args[3]} exited with {self.proc.wait()}")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def compare(n: int, layers: int, repeats: int, python: str | None, names, gradient: str = "adjoint") -> dict:
    """Compile every side (one after the other), then time them in alternation; medians and differences."""
    load = os.getloadavg()[0]
    ours = build_difflab(n, layers, gradient)
    first = {"difflab": ours.first()}
    peers = {name: Peer(python, name, n, layers) for name in names} if python else {}
    first.update({k: p.ready["first_s"] for k, p in peers.items()})
    times = {k: [] for k in first}
    for _ in range(repeats):
        times["difflab"].append(ours.once())
        for k, p in peers.items():
            times[k].append(p.ask("time")["s"])
    row = {"first": first, "median": {k: float(np.median(v)) for k, v in times.items()}, "diff": {}, "rss": {}}
    mine = ours.result()
    row["rss"]["difflab"] = mine["rss_gib"]
    for k, p in peers.items():
        theirs = p.ask("result")
        p.close()
        row["diff"][k] = max(abs(mine["energy"] - theirs["energy"]),
                             float(np.max(np.abs(np.subtract(mine["grad"], theirs["grad"])))))  # fmt: skip
        row["rss"][k] = theirs["rss_gib"]
        row.setdefault("versions", {})[k] = p.ready["version"]
    row["load"] = (load, os.getloadavg()[0])
    return row


def print_row(n: int, layers: int, row: dict, names) -> None:
    m, f = row["median"], row["first"]
    cells = [str(n), str(layers), f"{m['difflab']:.4f}", f"{f['difflab']:.1f}"]
    for k in names:
        if k in m:
            cells += [f"{m[k]:.4f}", f"{f[k]:.1f}", f"{m[k] / m['difflab']:.2f}×", f"{row['diff'][k]:.1e}"]
        else:
            cells += ["–"] * 4
    cells.append("{:.1f}–{:.1f}".format(*row["load"]))
    cells.append(", ".join(f"{k} {v:.2f}" for k, v in row["rss"].items()))
    print("| " + " | ".join(cells) + " |", flush=True)


def run_memory(n: int, layers: int, gradient: str = "adjoint") -> None:
    """Energy and full gradient at `n` qubits; prints the peak resident memory against one state vector's size.

    No 2ⁿ × 2ⁿ gate matrix is formed (at n = 24 one would take 4.5 PB). With `--gradient backprop` reverse mode
    keeps states for the backward pass and the peak grows with the number of gates (236 state vectors at 20 qubits
    and 1 layer); the adjoint method (default) uncomputes them, so the peak stays at a few state vectors.
    """
    import jax

    t = time.perf_counter()
    timed = build_difflab(n, layers, gradient)
    timed.first()
    first = time.perf_counter() - t
    warm = timed.once()
    out = timed.result()
    state_gib = 2**n * 16 / 2**30
    print(f"{n} qubits, {layers} layers ({2 * n * layers} rotations): energy {out['energy']:.10f}, "
          f"|grad| {np.linalg.norm(out['grad']):.6f}, first call {first:.1f} s, warm call {warm:.2f} s; peak "
          f"resident memory {out['rss_gib']:.2f} GiB = {out['rss_gib'] / state_gib:.1f} state vectors of "
          f"{state_gib:.3f} GiB (jax {jax.__version__})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qubits", type=int, nargs="+", default=[4, 8, 12])
    parser.add_argument("--layers", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--peer", choices=PEERS, help="serve this peer's half (one qubit count) on stdin/stdout")
    parser.add_argument("--peers", nargs="*", choices=PEERS, default=list(PEERS), help="peers to compare with")
    parser.add_argument("--peer-python", help="python of the peers' environment")
    parser.add_argument("--memory", type=int, help="only the peak-memory run at this many qubits")
    parser.add_argument("--gradient", choices=("adjoint", "backprop"), default="adjoint",
                        help="difflab's gradient method (`qc.energy(..., gradient=...)`)")  # fmt: skip
    args = parser.parse_args()
    if args.memory:
        run_memory(args.memory, args.layers, args.gradient)
        return
    if args.peer:
        serve(args.peer, args.qubits[0], args.layers)
        return
    header = ["qubits", "layers", "difflab median (s)", "difflab first call (s)"]
    for k in args.peers:
        header += [f"{k} median (s)", f"{k} first call (s)", f"{k} / difflab", f"max abs diff vs {k}"]
    header += ["load (1 min, before–after)", "peak RSS (GiB)"]
    print("| " + " | ".join(header) + " |\n" + "|---" * len(header) + "|", flush=True)
    versions = {}
    for n in args.qubits:
        row = compare(n, args.layers, args.repeats, args.peer_python, args.peers, args.gradient)
        versions.update(row.get("versions", {}))
        print_row(n, args.layers, row, args.peers)
    import jax

    print(f"difflab on jax {jax.__version__}; peers: {'; '.join(versions.values()) or 'none'}")


if __name__ == "__main__":
    main()
