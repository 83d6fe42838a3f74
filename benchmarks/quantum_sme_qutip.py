"""`smesolve` against QuTiP 5.3.1's `smesolve`: heterodyne detection and a time-dependent Hamiltonian.

Run (QuTiP in its own environment, difflab in this one; the peer's results travel as JSON):

    python benchmarks/quantum_sme_qutip.py --peer-python PEER_PYTHON [--ntraj 1000]

Units: ħ = 1, time in ns, rates in 1/ns, H in rad/ns. Two problems, float64, CPU, both libraries at the same fixed
step dt = 0.002 ns (QuTiP's default method, "platen", weak order 2 for its own SDE; difflab's default, Rouchon's
positive map, weak order 1):
- heterodyne: a driven damped Kerr cavity, N = 20, H = a†a + 0.5 (a + a†) + 0.2 a†²a² (the Kerr term makes the
  state non-Gaussian, so that detection has a backaction and the trajectories spread), L = a detected by
  heterodyne with η = 0.8
  (QuTiP: `sc_ops=[√η a]`, `c_ops=[√(1 − η) a]`, `heterodyne=True`), from |0⟩ over 5 ns, 51 save times;
  ⟨a†a⟩ and Re⟨a⟩.
- drive: a qubit with decay (γ = 1/ns, measured by homodyne with η = 1) under a Gaussian π pulse on σx/2 (area π,
  centre 1.5 ns, σ 0.3 ns) and a detuning 0.5 σz/2, from |0⟩ over 3 ns, 31 save times (QuTiP: `[H0, [σx/2, f]]`);
  ⟨σz⟩ and ⟨σx⟩.

For each (save times after the first): the largest deviation of each library's mean from `mesolve` (QuTiP's, rtol
1e-10), with the library's own standard error at that point; the largest difference of the two means, with their
combined standard error there; and the wall time of the call (difflab: the first call with compilation, then the
median of two more). Early on the trajectories have not spread yet and each step's weak-order bias (1e-4 here) is
many standard errors; the worst deviations are reported where they occur.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

DT, ETA_CAVITY, N, KERR = 0.002, 0.8, 20, 0.2
# the qubit's operators, written out so that both libraries get the same matrices: |0> is sigma_z = +1, and the
# decay L = sqrt(gamma) |1><0| (gamma = 1/ns) takes it to |1>
SX, SZ, DECAY = np.array([[0, 1], [1, 0]]), np.diag([1.0, -1.0]), np.array([[0.0, 0.0], [1.0, 0.0]])
CAVITY_TS, QUBIT_TS = np.linspace(0.0, 5.0, 51), np.linspace(0.0, 3.0, 31)
PULSE_T, PULSE_SIGMA = 1.5, 0.3
PULSE_PEAK = np.pi / (PULSE_SIGMA * np.sqrt(2 * np.pi))  # area pi: a pi pulse on sigma_x / 2


def pulse(t):
    return PULSE_PEAK * np.exp(-0.5 * ((t - PULSE_T) / PULSE_SIGMA) ** 2)


def run_qutip(ntraj: int) -> dict:
    import qutip

    out = {"version": qutip.__version__}
    a = qutip.destroy(N)
    H = a.dag() * a + 0.5 * (a + a.dag()) + KERR * a.dag() * a.dag() * a * a
    e_ops = [a.dag() * a, 0.5 * (a + a.dag())]
    start = time.perf_counter()
    r = qutip.smesolve(H, qutip.basis(N, 0), CAVITY_TS, c_ops=[np.sqrt(1 - ETA_CAVITY) * a],
                       sc_ops=[np.sqrt(ETA_CAVITY) * a], heterodyne=True, e_ops=e_ops, ntraj=ntraj,
                       options={"dt": DT, "progress_bar": False, "keep_runs_results": True})  # fmt: skip
    seconds = time.perf_counter() - start
    me = qutip.mesolve(H, qutip.basis(N, 0), CAVITY_TS, c_ops=[a], e_ops=e_ops, options={"rtol": 1e-10, "atol": 1e-12})
    out["heterodyne"] = _summary(r, me, seconds)
    sx, sz, sm = (qutip.Qobj(m.astype(complex)) for m in (SX, SZ, DECAY))
    H = [0.25 * sz, [0.5 * sx, lambda t: pulse(t)]]
    psi0 = qutip.basis(2, 0)
    start = time.perf_counter()
    r = qutip.smesolve(H, psi0, QUBIT_TS, sc_ops=[sm], e_ops=[sz, sx], ntraj=ntraj,
                       options={"dt": DT, "progress_bar": False, "keep_runs_results": True})  # fmt: skip
    seconds = time.perf_counter() - start
    me = qutip.mesolve(H, psi0, QUBIT_TS, c_ops=[sm], e_ops=[sz, sx], options={"rtol": 1e-10, "atol": 1e-12})
    out["drive"] = _summary(r, me, seconds)
    return out


def _summary(result, me, seconds) -> dict:
    runs = np.real(np.stack([np.asarray(e) for e in result.runs_expect], axis=-1))  # (trajectory, time, e)
    runs = np.moveaxis(np.asarray(runs), 0, -1) if runs.shape[0] != result.num_trajectories else runs
    return {
        "mean": runs.mean(axis=0).tolist(),
        "stderr": (runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0])).tolist(),
        "mesolve": np.real(np.stack([np.asarray(e) for e in me.expect], axis=-1)).tolist(),
        "seconds": seconds,
    }


def run_difflab(ntraj: int) -> dict:
    import jax

    jax.config.update("jax_enable_x64", True)
    import difflab
    import difflab.quantum as q

    key = jax.random.key(0)
    a = np.asarray(q.destroy(N))
    H = a.conj().T @ a + 0.5 * (a + a.conj().T) + KERR * a.conj().T @ a.conj().T @ a @ a
    e_ops = {"n": a.conj().T @ a, "x": 0.5 * (a + a.conj().T)}

    def cavity():
        return q.smesolve(H, q.basis(N, 0), CAVITY_TS, [a], measured={0: "heterodyne"}, etas=ETA_CAVITY,
                          ntraj=ntraj, key=key, exp_ops=e_ops, dt0=DT)  # fmt: skip

    sx, sz, sm = (m.astype(complex) for m in (SX, SZ, DECAY))
    drive = q.Drive(q.GaussianPulse(PULSE_PEAK, PULSE_T, PULSE_SIGMA), 0.5 * sx)

    def qubit():
        return q.smesolve([0.25 * sz, drive], q.basis(2, 0), QUBIT_TS, [sm], ntraj=ntraj, key=key,
                          exp_ops={"z": sz, "x": sx}, dt0=DT)  # fmt: skip

    out = {"version": difflab.__version__, "jax": jax.__version__}
    for name, call in (("heterodyne", cavity), ("drive", qubit)):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            r = call()
            jax.block_until_ready(r.expects)
            times.append(time.perf_counter() - start)
        out[name] = {"mean": np.asarray(r.expects.real).tolist(), "stderr": np.asarray(r.expects_stderr.real).tolist(),
                     "first": times[0], "seconds": statistics.median(times[1:])}  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peer-python", help="a Python with QuTiP 5.3.1")
    parser.add_argument("--ntraj", type=int, default=1000)
    parser.add_argument("--qutip-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.qutip_only:
        print(json.dumps(run_qutip(args.ntraj)))
        return
    if not args.peer_python:
        sys.exit("--peer-python (a Python with QuTiP) is required")
    peer = subprocess.run([args.peer_python, str(Path(__file__).resolve()), "--qutip-only", "--ntraj", str(args.ntraj)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    theirs, ours = json.loads(peer.stdout), run_difflab(args.ntraj)
    print(f"QuTiP {theirs['version']}; difflab {ours['version']} (jax {ours['jax']}); {args.ntraj} trajectories")
    head = "| problem | library | worst \\|mean − mesolve\\| (its SE there) | worst \\|difflab − QuTiP\\| (SE there) |"
    print(head + " time (s) |")
    print("|---|---|---|---|---|")
    for name in ("heterodyne", "drive"):
        exact = np.asarray(theirs[name]["mesolve"])[1:]
        m1, s1 = (np.asarray(ours[name][k])[1:] for k in ("mean", "stderr"))
        m2, s2 = (np.asarray(theirs[name][k])[1:] for k in ("mean", "stderr"))
        gap, spread = np.abs(m1 - m2), np.hypot(s1, s2)
        k = np.unravel_index(np.argmax(gap), gap.shape)
        cross = f"{gap[k]:.2e} ({gap[k] / spread[k]:.1f})"
        for lib, m, se, seconds in (
            ("difflab", m1, s1, f"{ours[name]['first']:.1f} first, {ours[name]['seconds']:.1f} later"),
            ("QuTiP", m2, s2, f"{theirs[name]['seconds']:.1f}"),
        ):
            dev = np.abs(m - exact)
            j = np.unravel_index(np.argmax(dev), dev.shape)
            row = f"| {name} | {lib} | {dev[j]:.2e} ({dev[j] / se[j]:.1f}) | {cross if lib == 'difflab' else ''} |"
            print(f"{row} {seconds} |")


if __name__ == "__main__":
    main()
