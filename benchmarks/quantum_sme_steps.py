"""`smesolve`'s three steps side by side: Euler–Maruyama, Itô–Milstein and Rouchon's positivity-preserving map.

Run:  python benchmarks/quantum_sme_steps.py [--ntraj 1000] [--repeats 3]

Units: ħ = 1, time in ns, rates in 1/ns. Three problems, float64, CPU:
- positivity: the driven qubit of tests/quantum/test_smesolve_rouchon.py (H = σx + σz/4, L1 = σ−, L2 = σz/2, both
  detected with η = 1) from |0⟩ over 3 ns, 16 save times, at steps 0.01 and 0.002 ns: per step the largest Bloch
  vector over all trajectories and save times (1 for a pure state; above 1 is outside the density matrices), how many
  trajectories leave the ball by more than 1 %, and the worst deviation of the mean from `mesolve` (rtol 1e-10) in
  standard errors. Milstein is left out here: it needs commuting noise, and two channels' noises do not commute.
- filter: a QND measurement, H = (ω/2)σz, L = √k diag(1.5, −0.5), η = 1, ω = k = 1, from |+⟩ over 1 ns, 48
  trajectories. Each trajectory's Bloch vector against the exact filter of its own record (the linear SME in the
  record, normalised; tests/quantum/test_smesolve_rouchon.py): RMS error at steps 0.02, 0.005, 0.00125 ns, and the
  ratio per 4× smaller step (4: strong order 1; 2: order 1/2).
- cost: a damped, driven cavity of 20 levels (H = a†a + 0.5 (a + a†), L = a, homodyne η = 0.8) from |0⟩ over 5 ns at
  0.002 ns (2500 steps), 51 save times, `--ntraj` trajectories: the first call (compilation included) and the median
  of `--repeats` later calls.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

import diffrax
import jax
import numpy as np

jax.config.update("jax_enable_x64", True)

import difflab  # noqa: E402 - after x64 is set
import difflab.quantum as q  # noqa: E402

KEY = jax.random.key(11)
SX, SY, SZ, SM = (np.asarray(f()) for f in (q.sigmax, q.sigmay, q.sigmaz, q.sigmam))
PAULIS = {"x": SX, "y": SY, "z": SZ}
QUBIT_H, QUBIT_JUMPS, QUBIT_TS = SX + 0.25 * SZ, [SM, 0.5 * SZ], np.linspace(0.0, 3.0, 16)
QND_L, QND_TS, PLUS = np.array([1.5, -0.5]), np.linspace(0.0, 1.0, 11), np.array([1.0, 1.0]) / np.sqrt(2)


def solvers(channels: int):
    names = {"Euler–Maruyama": diffrax.Euler(), "Rouchon": q.Rouchon()}
    return names if channels > 1 else {**names, "Itô–Milstein": diffrax.ItoMilstein()}


def positivity(ntraj: int) -> None:
    me = q.mesolve(QUBIT_H, q.basis(2, 0), QUBIT_TS, jump_ops=QUBIT_JUMPS, exp_ops=PAULIS, rtol=1e-10, atol=1e-12)
    exact = np.asarray(me.expects.real)
    print("| step (ns) | solver | largest Bloch vector | trajectories past 1.01 | worst |mean − mesolve| (SE) |")
    print("|---|---|---|---|---|")
    for dt in (0.01, 0.002):
        for name, solver in solvers(2).items():
            r = q.smesolve(QUBIT_H, q.basis(2, 0), QUBIT_TS, QUBIT_JUMPS, ntraj=ntraj, key=KEY, exp_ops=PAULIS,
                           dt0=dt, solver=solver)  # fmt: skip
            length = np.linalg.norm(np.asarray(r.trajectory_expects.real), axis=-1)
            bad = np.nan_to_num(length, nan=np.inf).max(axis=1)
            finite = np.isfinite(bad)
            dev = np.abs(np.asarray(r.expects.real) - exact)[1:] / np.asarray(r.expects_stderr.real)[1:]
            worst = f"{np.nanmax(length[finite]):.6f}" + ("" if finite.all() else f" ({(~finite).sum()} NaN)")
            print(f"| {dt} | {name} | {worst} | {(bad > 1.01).sum()} of {ntraj} | {np.nanmax(dev):.2f} |")


def exact_filter(records: np.ndarray) -> np.ndarray:
    """The QND filter of records Y (trajectory, time): see tests/quantum/test_smesolve_rouchon.py."""
    l, h = QND_L, 0.5 * np.array([1.0, -1.0])
    li, lj = l[:, None], l[None, :]
    a = -1j * (h[:, None] - h[None, :]) + li * lj - 0.5 * (li**2 + lj**2) - 0.5 * (li + lj) ** 2
    expo = a[None, None] * QND_TS[None, :, None, None] + (li + lj)[None, None] * records[..., None, None]
    expo = expo - np.max(expo[..., [0, 1], [0, 1]].real, axis=-1)[..., None, None]
    rho = np.outer(PLUS, PLUS) * np.exp(expo)
    rho = rho / np.trace(rho, axis1=-2, axis2=-1)[..., None, None]
    return np.stack([np.einsum("ij,...ji->...", P, rho).real for P in (SX, SY, SZ)], axis=-1)


def filter_errors() -> None:
    steps = (0.02, 0.005, 0.00125)
    print("| solver | RMS error at " + " / ".join(f"{s}" for s in steps) + " ns | ratio per 4× smaller step |")
    print("|---|---|---|")
    for name, solver in solvers(1).items():
        errors = []
        for dt in steps:
            r = q.smesolve(0.5 * SZ, PLUS, QND_TS, [np.diag(QND_L)], ntraj=48, key=KEY, exp_ops=PAULIS, dt0=dt,
                           solver=solver)  # fmt: skip
            Y = np.cumsum(np.asarray(r.currents[..., 0]) * np.diff(QND_TS), axis=1)
            Y = np.concatenate([np.zeros((48, 1)), Y], axis=1)
            errors.append(np.sqrt(np.mean((np.asarray(r.trajectory_expects.real) - exact_filter(Y)) ** 2)))
        ratios = " / ".join(f"{a / b:.2f}" for a, b in itertools.pairwise(errors))
        print(f"| {name} | " + " / ".join(f"{e:.2e}" for e in errors) + f" | {ratios} |")


def cost(ntraj: int, repeats: int) -> None:
    n = 20
    a = np.asarray(q.destroy(n))
    H, ts = a.conj().T @ a + 0.5 * (a + a.conj().T), np.linspace(0.0, 5.0, 51)
    print(f"| solver | first call (s) | median of {repeats} (s) | ⟨n⟩ at 5 ns |")
    print("|---|---|---|---|")
    for name, solver in solvers(1).items():
        times = []
        for _ in range(repeats + 1):
            start = time.perf_counter()
            r = q.smesolve(H, q.basis(n, 0), ts, [a], etas=0.8, ntraj=ntraj, key=KEY,
                           exp_ops={"n": a.conj().T @ a}, dt0=0.002, solver=solver)  # fmt: skip
            jax.block_until_ready(r.expects)
            times.append(time.perf_counter() - start)
        mean = complex(r.expects[-1, 0]).real
        print(f"| {name} | {times[0]:.1f} | {statistics.median(times[1:]):.2f} | {mean:.4f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ntraj", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"jax {jax.__version__}, diffrax {diffrax.__version__}, difflab {difflab.__version__}")
    positivity(args.ntraj)
    filter_errors()
    cost(args.ntraj, args.repeats)


if __name__ == "__main__":
    main()
