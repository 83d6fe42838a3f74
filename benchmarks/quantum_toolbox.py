"""The quantum toolbox against dynamiqs 0.3.7 and QuTiP 5.3.1: propagators, jump trajectories, steady states.

Run from an environment with the peers next to difflab's stack (jax 0.10.2):
    PYTHONPATH=src PEER_PYTHON benchmarks/quantum_toolbox.py [--tasks mepropagator mcsolve steadystate]
        [--libs difflab dynamiqs qutip] [--repeats 3] [--ntraj 1000] [--json out.json]

Tasks (float64, CPU; tolerances rtol 1e-8, atol 1e-10 for the propagators, each library's defaults otherwise):
- mepropagator: Jaynes–Cummings, qubit ⊗ 20-level cavity (n = 40, superoperator 1600 × 1600), resonant coupling
  g = 1 rad/ns, cavity decay κ = 0.1/ns and qubit decay 0.05/ns, S(t) at t = 1 ns. Accuracy: largest entry of
  the difference to QuTiP's exp(L t) (dense expm).
- mcsolve: a damped cavity of 50 levels from the coherent state α = 3 (9 photons), κ = 0.5/ns, 51 save times on
  [0, 5] ns, `--ntraj` trajectories (default 1000). A coherent state stays coherent through the jumps and the
  no-jump evolution, so every trajectory has the exact mean photon number 9 e^{-κ t}: the largest error of the
  mean measures the jump-time and integration accuracy, and the standard error must be round-off.
- steadystate: a driven Kerr oscillator, N = 100, H = Δ a†a + K a†² a² + F (a + a†), Δ = -1, K = 0.05, F = 1,
  κ = 1 (rad/ns and 1/ns). difflab's iterative method against QuTiP's default (sparse direct); dynamiqs has no
  steady-state solver. Accuracy: largest entry of the difference of the two density matrices.

Each task: one warm-up call (`first`, with compilation), then the median wall time of `--repeats` calls.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)

N_JC, KAPPA_JC, GAMMA_JC, T_JC = 20, 0.1, 0.05, 1.0
N_MC, ALPHA, KAPPA_MC = 50, 3.0, 0.5
N_KERR, DELTA, KERR, DRIVE, KAPPA_KERR = 100, -1.0, 0.05, 1.0, 1.0
TS_MC = np.linspace(0.0, 5.0, 51)


def destroy(n):
    return np.diag(np.sqrt(np.arange(1, n)), 1).astype(complex)


def jc_operators():
    a = np.kron(np.eye(2), destroy(N_JC))
    sm = np.kron(np.array([[0, 0], [1, 0]], complex), np.eye(N_JC))  # |0> excited, as QuTiP
    H = a.conj().T @ sm + a @ sm.conj().T
    return H, [np.sqrt(KAPPA_JC) * a, np.sqrt(GAMMA_JC) * sm]


def kerr_operators():
    a = destroy(N_KERR)
    ad = a.conj().T
    return DELTA * ad @ a + KERR * ad @ ad @ a @ a + DRIVE * (a + ad), [np.sqrt(KAPPA_KERR) * a]


def coherent(n, alpha):
    # the displaced vacuum in a large space, truncated: 50 levels hold all but ~1e-13 of |α = 3>
    k = np.arange(n)
    logs = -0.5 * alpha**2 + k * np.log(alpha) - 0.5 * np.array([np.sum(np.log(np.arange(1, j + 1))) for j in k])
    psi = np.exp(logs).astype(complex)
    return psi / np.linalg.norm(psi)


def timed(fn, repeats):
    t0 = time.perf_counter()
    out = fn()
    first = time.perf_counter() - t0
    walls = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
    return out, {"first_s": round(first, 3), "median_s": round(statistics.median(walls), 3) if walls else None}


def reference_superoperator():
    import qutip

    H, jumps = jc_operators()
    L = qutip.liouvillian(qutip.Qobj(H), [qutip.Qobj(J) for J in jumps])
    return (T_JC * L).expm().full()


# ------------------------------------------------------------------------------------------------ the libraries
def difflab_task(task, repeats, ntraj):
    import jax.numpy as jnp

    import difflab.quantum as q

    if task == "mepropagator":
        H, jumps = jc_operators()

        def run():
            S = q.mepropagator(H, jnp.array([0.0, T_JC]), jump_ops=jumps, rtol=1e-8, atol=1e-10).propagators[-1]
            return np.asarray(S)

        return timed(run, repeats)
    if task == "mcsolve":
        a = destroy(N_MC)

        def run():
            r = q.mcsolve(a.conj().T @ a, coherent(N_MC, ALPHA), TS_MC, [np.sqrt(KAPPA_MC) * a], ntraj=ntraj,
                          key=jax.random.key(0), exp_ops=[a.conj().T @ a])  # fmt: skip
            return np.asarray(r.expects[:, 0].real), np.asarray(r.expects_stderr[:, 0].real)

        return timed(run, repeats)
    H, jumps = kerr_operators()
    return timed(lambda: np.asarray(q.steadystate(H, jumps, method="iterative")), repeats)


def dynamiqs_task(task, repeats, ntraj):
    import dynamiqs as dq
    import optimistix as optx

    dq.set_precision("double")
    if task == "mepropagator":
        H, jumps = jc_operators()
        method = dq.method.Tsit5(rtol=1e-8, atol=1e-10)
        return timed(
            lambda: np.asarray(
                dq.mepropagator(H, jumps, [0.0, T_JC], method=method, save_propagators=False).final_propagator
                .to_jax()
            ),
            repeats,
        )  # fmt: skip
    if task == "mcsolve":
        a = destroy(N_MC)
        keys = jax.random.split(jax.random.key(0), ntraj)
        method = dq.method.Event(root_finder=optx.Newton(rtol=1e-10, atol=1e-12))

        def run():
            r = dq.jssesolve(a.conj().T @ a, [np.sqrt(KAPPA_MC) * a], coherent(N_MC, ALPHA)[:, None], TS_MC, keys,
                             exp_ops=[a.conj().T @ a], method=method, save_states=False, nmaxclick=64)  # fmt: skip
            values = np.asarray(r.expects)[:, 0, :].real  # (ntraj, time)
            return values.mean(axis=0), values.std(axis=0, ddof=1) / np.sqrt(ntraj)

        return timed(run, repeats)
    return None, {"note": "no steady-state solver in dynamiqs 0.3.7"}


def qutip_task(task, repeats, ntraj):
    import qutip

    if task == "mepropagator":
        H, jumps = jc_operators()
        opts = {"atol": 1e-10, "rtol": 1e-8}
        return timed(
            lambda: qutip.propagator(qutip.Qobj(H), T_JC, [qutip.Qobj(J) for J in jumps], options=opts).full(),
            repeats,
        )
    if task == "mcsolve":
        a = qutip.destroy(N_MC)

        def run():
            r = qutip.mcsolve(a.dag() * a, qutip.Qobj(coherent(N_MC, ALPHA)), TS_MC, [np.sqrt(KAPPA_MC) * a],
                              e_ops=[a.dag() * a], ntraj=ntraj, options={"progress_bar": False}, seeds=0)  # fmt: skip
            return np.asarray(r.expect[0]), np.asarray(r.std_expect[0]) / np.sqrt(ntraj)

        return timed(run, repeats)
    H, jumps = kerr_operators()
    # sparse (CSR) operators: QuTiP picks its sparse direct solver for them, a dense LU for dense ones
    H, jumps = qutip.Qobj(H).to("csr"), [qutip.Qobj(J).to("csr") for J in jumps]
    return timed(lambda: qutip.steadystate(H, jumps).full(), repeats)


def accuracy(task, out, reference):
    if out is None or (reference is None and task != "mcsolve"):
        return None
    if task == "mcsolve":
        mean, err = out
        exact = ALPHA**2 * np.exp(-KAPPA_MC * TS_MC)
        # a coherent state stays coherent through every jump and between jumps (a|α> = α|α>), so every
        # trajectory carries the exact photon number: the spread is round-off, the error should be too
        return {"max_abs_error": float(np.max(np.abs(mean - exact))), "max_stderr": float(np.max(err))}
    return {"max_abs_difference": float(np.max(np.abs(out - reference)))}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["mepropagator", "mcsolve", "steadystate"])
    parser.add_argument("--libs", nargs="+", default=["difflab", "dynamiqs", "qutip"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ntraj", type=int, default=1000)
    parser.add_argument("--json")
    args = parser.parse_args()
    runners = {"difflab": difflab_task, "dynamiqs": dynamiqs_task, "qutip": qutip_task}
    table = []
    for task in args.tasks:
        results = {lib: runners[lib](task, args.repeats, args.ntraj) for lib in args.libs}
        # references: QuTiP's dense exp(L t) for the superoperator, its sparse direct solve for the steady state
        reference = reference_superoperator() if task == "mepropagator" else None
        if task == "steadystate" and "qutip" in results:
            reference = results["qutip"][0]
        for lib, (out, timing) in results.items():
            table.append({"task": task, "lib": lib, **timing, "accuracy": accuracy(task, out, reference)})
            print(json.dumps(table[-1]), flush=True)  # row by row: a long run shows its progress
    meta = {"machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "python": platform.python_version(), "jax": jax.__version__}  # fmt: skip
    for lib in ("dynamiqs", "qutip"):
        try:
            meta[lib] = __import__(lib).__version__
        except ImportError:
            pass
    report = {"meta": meta, "rows": table}
    print(json.dumps(report, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
