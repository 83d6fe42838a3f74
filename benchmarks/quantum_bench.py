"""Quantum solver benchmark: difflab vs dynamiqs 0.3.7 vs QuTiP 5.3.1 on the same problems, one process each.

Run:  python benchmarks/quantum_bench.py [--libs difflab dynamiqs qutip] [--tasks jc jc100 grad tfim] [--json out]
      [--cpu-devices N]  (N CPU devices in the process: difflab's ensembles split over them)
Problems and tolerances: see `quantum_problems.py`. Each task: one warm-up call (reported as `first`, includes
compilation), then the median of `repeats` timed calls (ensembles: 3 calls, QuTiP's: 1). Peers are benchmark-only
dependencies (`pip install dynamiqs==0.3.7 qutip==5.3.1`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import numpy as np
import quantum_problems as P


def timed(fn, repeats):
    """Wall and CPU (process) time: on a shared machine the CPU time is the steadier of the two."""
    t0 = time.perf_counter()
    out = fn()
    first = time.perf_counter() - t0
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    entry = {"first_s": first, "median_s": statistics.median(wall), "median_cpu_s": statistics.median(cpu)}
    return {**entry, "runs": wall, "cpu_runs": cpu}, out


# ------------------------------------------------------------------------------------------------- difflab
def difflab_tasks():
    import diffrax
    import jax
    import jax.numpy as jnp

    import difflab.quantum as q

    a, sm, psi0 = P.jc_operators(q)
    Hc = a.conj().T @ sm + a @ sm.conj().T
    exp_ops = [a.conj().T @ a, sm.conj().T @ sm]
    ts = jnp.asarray(P.T_JC)
    tol = diffrax.PIDController(rtol=P.RTOL, atol=P.ATOL)

    def jc():
        result = q.mesolve(Hc, psi0, P.T_JC, jump_ops=[np.sqrt(P.KAPPA) * a], exp_ops=exp_ops, stepsize_controller=tol)
        return np.asarray(result.expects)

    def jc100(strategy):
        def run():
            ops = [np.sqrt(P.KAPPAS)[:, None, None] * a]
            result = q.mesolve(Hc, psi0, P.T_JC, jump_ops=ops, exp_ops=exp_ops, stepsize_controller=tol,
                               batching=q.Batching(strategy=strategy))  # fmt: skip
            return np.asarray(result.expects)

        return run

    Hd, ad, nd = q.dia(Hc), q.dia(a), q.dia(exp_ops[0])

    def n_of_t(g, kappa, adjoint):
        model = q.LindbladModel(g * Hd, (), [jnp.sqrt(kappa) * ad], rho0=psi0)
        traj = q.solve_model(model, ts, exp_ops=(nd,), stepsize_controller=tol, adjoint=adjoint)
        return traj.ys["expect_re"][:, 0]

    target = jax.jit(lambda: n_of_t(P.G, P.KAPPA, None))()

    def loss(p, adjoint):
        return jnp.mean((n_of_t(p[0], p[1], adjoint) - target) ** 2)

    fwd = jax.jit(jax.jacfwd(lambda p: (loss(p, diffrax.ForwardMode()),) * 2, has_aux=True))
    rev = jax.jit(jax.value_and_grad(lambda p: loss(p, diffrax.RecursiveCheckpointAdjoint())))
    p0 = jnp.asarray(P.GRAD_AT)

    zz, xs, zs = P.tfim_dense_terms(q.eye, q.sigmaz, q.sigmax, q.tensor)
    H_tfim = -zz - P.H_FIELD * xs
    psi_tfim = q.tensor(*[q.basis(2, 0)] * P.SPINS)

    def tfim():
        return np.asarray(q.sesolve(H_tfim, psi_tfim, P.T_TFIM, exp_ops=zs, stepsize_controller=tol).expects)

    return {
        "jc": (jc, 5),
        "jc100": (jc100(None), 3),  # the backend's default strategy: "map" on the CPU
        "grad": (lambda: jax.block_until_ready(fwd(p0)), 3),
        "grad_reverse": (lambda: jax.block_until_ready(rev(p0)), 3),
        "tfim": (tfim, 5),
    }, {"grad": lambda out: {"loss": float(out[1]), "dloss": np.asarray(out[0]).tolist()},
        "grad_reverse": lambda out: {"loss": float(out[0]), "dloss": np.asarray(out[1]).tolist()}}  # fmt: skip


# ------------------------------------------------------------------------------------------------ dynamiqs
def dynamiqs_tasks():
    import dynamiqs as dq
    import jax
    import jax.numpy as jnp

    dq.set_precision("double")
    a, sm, psi0 = P.jc_operators(dq)
    Hc = a.dag() @ sm + a @ sm.dag()
    exp_ops = [a.dag() @ a, sm.dag() @ sm]
    method = dq.method.Tsit5(rtol=P.RTOL, atol=P.ATOL)
    rho0 = psi0.todm()

    def jc():
        res = dq.mesolve(Hc, [np.sqrt(P.KAPPA) * a], rho0, P.T_JC, exp_ops=exp_ops, method=method, save_states=False,
                          progress_meter=False)  # fmt: skip
        return np.asarray(res.expects)

    def jc100():  # the fastest CPU strategy measured for dynamiqs: a Python loop over the jitted single solve
        return [
            np.asarray(dq.mesolve(Hc, [np.sqrt(k) * a], rho0, P.T_JC, exp_ops=exp_ops, method=method,
                                  save_states=False, progress_meter=False).expects)
            for k in P.KAPPAS
        ]  # fmt: skip

    def n_of_t(p):
        res = dq.mesolve(p[0] * Hc, [jnp.sqrt(p[1]) * a], rho0, P.T_JC, exp_ops=[exp_ops[0]], method=method,
                         gradient=dq.gradient.Forward(), save_states=False, progress_meter=False)  # fmt: skip
        return res.expects[0].real

    target = n_of_t(jnp.array([P.G, P.KAPPA]))
    fwd = jax.jit(jax.jacfwd(lambda p: (jnp.mean((n_of_t(p) - target) ** 2),) * 2, has_aux=True))
    p0 = jnp.asarray(P.GRAD_AT)

    zz, xs, zs = P.tfim_dense_terms(dq.eye, dq.sigmaz, dq.sigmax, dq.tensor)
    H_tfim = -zz - P.H_FIELD * xs
    psi_tfim = dq.tensor(*[dq.basis(2, 0)] * P.SPINS)

    def tfim():
        res = dq.sesolve(H_tfim, psi_tfim, P.T_TFIM, exp_ops=zs, method=method, save_states=False, progress_meter=False)
        return np.asarray(res.expects)

    return {
        "jc": (jc, 5),
        "jc100": (jc100, 3),
        "grad": (lambda: jax.block_until_ready(fwd(p0)), 3),
        "tfim": (tfim, 5),
    }, {"grad": lambda out: {"loss": float(out[1]), "dloss": np.asarray(out[0]).tolist()}}


# --------------------------------------------------------------------------------------------------- QuTiP
def qutip_tasks():
    import qutip

    a, sm, psi0 = P.jc_operators(qutip)
    Hc = a.dag() * sm + a * sm.dag()
    exp_ops = [a.dag() * a, sm.dag() * sm]
    opts = {"method": "adams", "rtol": P.RTOL, "atol": P.ATOL, "store_states": False}
    rho0 = qutip.ket2dm(psi0)

    def jc():
        return np.asarray(qutip.mesolve(Hc, rho0, P.T_JC, [np.sqrt(P.KAPPA) * a], e_ops=exp_ops, options=opts).expect)

    def jc100():
        return [qutip.mesolve(Hc, rho0, P.T_JC, [np.sqrt(k) * a], e_ops=exp_ops, options=opts).expect for k in P.KAPPAS]

    zz, xs, zs = P.tfim_dense_terms(qutip.qeye, qutip.sigmaz, qutip.sigmax, qutip.tensor)
    H_tfim = -zz - P.H_FIELD * xs
    psi_tfim = qutip.tensor(*[qutip.basis(2, 0)] * P.SPINS)

    def tfim():
        return np.asarray(qutip.sesolve(H_tfim, psi_tfim, P.T_TFIM, e_ops=zs, options=opts).expect)

    return {"jc": (jc, 5), "jc100": (jc100, 1), "tfim": (tfim, 5)}, {}


def versions(lib):
    import importlib.metadata as md

    names = {"difflab": ["difflab", "jax", "diffrax", "equinox"], "dynamiqs": ["dynamiqs", "jax", "diffrax"],
             "qutip": ["qutip", "numpy", "scipy"]}[lib]  # fmt: skip
    return {n: md.version(n) for n in names}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--libs", nargs="+", default=["difflab", "dynamiqs", "qutip"])
    parser.add_argument("--tasks", nargs="+", default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--cpu-devices", type=int, default=1,
                        help="expose this many CPU devices (difflab splits ensembles over them)")  # fmt: skip
    args = parser.parse_args()
    import jax

    jax.config.update("jax_num_cpu_devices", args.cpu_devices)  # before the first computation
    results = []
    for lib in args.libs:
        tasks, extras = {"difflab": difflab_tasks, "dynamiqs": dynamiqs_tasks, "qutip": qutip_tasks}[lib]()
        for name, (fn, repeats) in tasks.items():
            if args.tasks and name.split("_")[0] not in args.tasks:
                continue
            entry, out = timed(fn, repeats)
            entry.update(lib=lib, task=name, loadavg_1min_after=os.getloadavg()[0], versions=versions(lib),
                         cpu_devices=len(jax.devices()))  # fmt: skip
            if name in extras:
                entry.update(extras[name](out))
            results.append(entry)
            print(json.dumps({k: v for k, v in entry.items() if k not in ("runs", "versions")}), flush=True)
    meta = {"machine": f"{platform.machine()} {os.cpu_count()} cores, {platform.platform()}",
            "python": platform.python_version()}  # fmt: skip
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
