"""Gate optimal control (GRAPE, `optimize_gate`): an X gate on a transmon, a robust X gate and a CZ gate.

Run:  python benchmarks/quantum_control.py [x] [robust] [x-t1] [cz] [cz-slew]   (default: all five)

Each line gives the wall time of one `optimize_gate` call (compilation included), the number of optimiser steps,
the fidelity and the leakage at zero detuning. Units: ħ = 1, time in ns, angular frequencies in rad/ns.

- x: three-level transmon, α/2π = −200 MHz, X on {|0>, |1>} in 20 ns, 40 slices, |Ω_x|, |Ω_y| < 2π × 100 MHz.
- robust: the same X gate averaged over qubit detunings δ/2π ∈ {−2, 0, +2} MHz (δ·n added to H0); the fidelity
  of the plain pulse at ±2 MHz is printed beside it.
- x-t1: the same X gate under T1 = 20 µs decay (jump operator sqrt(γ) a, γ = 5e-5 /ns): the channel's fidelity,
  optimised from the plain pulse (60 steps), beside the plain pulse's under the same decay and the coherence limit
  1 − (3 + p + 2√p)/6, p = exp(−γT), of a qubit that decays for the whole gate.
- cz: two three-level transmons (α/2π = −200 MHz each, ω2 − ω1 = 2π × 100 MHz, exchange g/2π = 10 MHz), in the
  frame rotating at ω1; flux controls δ1(t) n1 + δ2(t) n2, |δk| < 2π × 500 MHz; CZ on {|00>, |01>, |10>, |11>}
  in 60 ns, 60 slices. `cz-slew` adds a slew bound of 2π × 100 MHz/ns: once with the defaults (up to three random
  starts, seeds 0, 1, 2, until one reaches the tolerance) and then each start alone (`starts=1`).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import difflab.quantum as q

TWO_PI = 2 * np.pi


def transmon_x():
    a = np.asarray(q.destroy(3))
    ad = a.conj().T
    H0 = 0.5 * (TWO_PI * -0.2) * ad @ ad @ a @ a
    return H0, {"x": 0.5 * (a + ad), "y": 0.5j * (ad - a)}


def run(label, *args, **kwargs):
    t0 = time.perf_counter()
    result = q.optimize_gate(*args, **kwargs)
    wall = time.perf_counter() - t0
    print(
        f"{label:8s} wall {wall:6.1f} s  steps {result.history.size:4d}  1-F {1 - result.fidelity:.2e}  "
        f"leakage {result.leakage:.2e}  ensemble F {np.array2string(result.ensemble_fidelity, precision=7)}  "
        f"start: {'given' if result.seed is None else f'seed {result.seed}'}"
    )
    return result


def x_gate():
    H0, controls = transmon_x()
    return run("x", H0, controls, q.X_GATE, 20.0, 40, subspace=(0, 1), u_max=TWO_PI * 0.1)


def robust_x(plain):
    H0, controls = transmon_x()
    deltas = TWO_PI * np.array([-2e-3, 0.0, 2e-3])
    n = np.diag(np.arange(3.0))
    for delta in deltas[::2]:
        U = q.piecewise_propagator(H0 + delta * n, list(controls.values()), plain.controls)
        infidelity = 1 - float(q.gate_fidelity(U, q.X_GATE, (0, 1)))
        print(f"plain X at δ/2π = {delta / TWO_PI * 1e3:+.0f} MHz: 1-F {infidelity:.2e}")
    return run("robust", H0, controls, q.X_GATE, 20.0, 40, subspace=(0, 1), u_max=TWO_PI * 0.1, detunings=deltas)


def x_gate_t1(plain):
    H0, controls = transmon_x()
    jump_ops = [np.sqrt(1 / 20_000) * np.asarray(q.destroy(3))]
    S = q.piecewise_channel(H0, list(controls.values()), plain.controls, jump_ops)
    p = np.exp(-20.0 / 20_000)
    print(
        f"plain X under T1: 1-F {1 - float(q.channel_fidelity(S, q.X_GATE, (0, 1))):.4e}  coherence limit 1-F "
        f"{1 - (3 + p + 2 * np.sqrt(p)) / 6:.4e}"
    )
    return run(
        "x-t1", H0, controls, q.X_GATE, 20.0, 40, subspace=(0, 1), u_max=TWO_PI * 0.1, jump_ops=jump_ops,
        initial=plain.controls, options=q.GrapeOptions(steps=60),
    )  # fmt: skip


def cz_gate(slew_rate=None, seed=0, starts=3):
    a = np.asarray(q.destroy(3))
    eye = np.eye(3)
    a1, a2 = np.kron(a, eye), np.kron(eye, a)
    n1, n2 = a1.conj().T @ a1, a2.conj().T @ a2
    alpha, detuning, g = TWO_PI * -0.2, TWO_PI * 0.1, TWO_PI * 0.01
    H0 = detuning * n2 + 0.5 * alpha * (n1 @ (n1 - np.eye(9)) + n2 @ (n2 - np.eye(9)))
    H0 = H0 + g * (a1.conj().T @ a2 + a1 @ a2.conj().T)
    cz = np.diag([1.0, 1.0, 1.0, -1.0]).astype(complex)
    return run(
        "cz" if slew_rate is None else "cz-slew", H0, {"flux1": n1, "flux2": n2}, cz, 60.0, 60, subspace=(0, 1, 3, 4),
        u_max=TWO_PI * 0.5, slew_rate=slew_rate, options=q.GrapeOptions(steps=600, tol=1e-6, seed=seed, starts=starts),
    )  # fmt: skip


if __name__ == "__main__":
    tasks = sys.argv[1:] or ["x", "robust", "x-t1", "cz", "cz-slew"]
    plain = x_gate() if {"x", "robust", "x-t1"} & set(tasks) else None
    if "robust" in tasks:
        robust_x(plain)
    if "x-t1" in tasks:
        x_gate_t1(plain)
    if "cz" in tasks:
        cz_gate()
    if "cz-slew" in tasks:
        print("defaults:", end=" ")
        cz_gate(slew_rate=TWO_PI * 0.1)  # up to three random starts, until one reaches the tolerance
        for seed in (0, 1, 2):  # the slew-bounded problem depends on the start: each alone
            print(f"seed {seed} alone:", end=" ")
            cz_gate(slew_rate=TWO_PI * 0.1, seed=seed, starts=1)
