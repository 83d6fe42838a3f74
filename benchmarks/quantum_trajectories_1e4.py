"""Trajectory averages at 10^4 trajectories against `mesolve`: jump (`mcsolve`) and diffusive (`smesolve`) unravellings.

    python benchmarks/quantum_trajectories_1e4.py [--ntraj 10000]

Problems (ns and rad/ns):
- cavity: 6 levels from the Fock state |2>, H = a^dag a, L = sqrt(0.5) a; <n> and <x> at 11 times on [0, 4].
- qubit: H = sigma_x + 0.25 sigma_z, L1 = sqrt(0.5) sigma_-, L2 = sqrt(0.1) sigma_z, from |e>; <sigma_x,y,z> at 21
  times on [0, 5]: jumps by mcsolve, and homodyne detection of both channels (eta = 1) by smesolve at its default
  step (Rouchon's map).
For each: the largest |mean - mesolve| in standard errors over times and observables (the values at t = 0, where
every trajectory is the same, are left out), how many comparisons exceed 3, and the wall time of the call.
"""

import argparse
import time

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)

import difflab.quantum as q  # noqa: E402


def report(name, result, exact, seconds):
    """|mean - exact| in standard errors where trajectories differ; where they agree (<x> of a Fock state is 0 on
    every trajectory) the largest |mean - exact| instead."""
    mean, err = np.asarray(result.expects.real)[1:], np.asarray(result.expects_stderr.real)[1:]
    spread = err > 0
    z = np.abs(mean - exact[1:])[spread] / err[spread]
    sure = np.abs(mean - exact[1:])[~spread].max(initial=0.0)
    print(f"{name:34s} max |z| {z.max():.2f}  beyond 3: {int((z > 3).sum())} of {z.size}  (no spread: "
          f"{int((~spread).sum())}, off by {sure:.1e})  {seconds:.1f} s", flush=True)  # fmt: skip


def timed(call):
    start = time.perf_counter()
    out = call()
    jax.block_until_ready(out.expects)
    return out, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ntraj", type=int, default=10_000)
    ntraj = parser.parse_args().ntraj
    key = jax.random.key(2026)

    a = np.asarray(q.destroy(6))
    H, jumps, ts = a.conj().T @ a, [np.sqrt(0.5) * a], np.linspace(0.0, 4.0, 11)
    exp = {"n": a.conj().T @ a, "x": a + a.conj().T}
    exact = np.asarray(q.mesolve(H, q.fock(6, 2), ts, jump_ops=jumps, exp_ops=exp).expects.real)
    result, seconds = timed(lambda: q.mcsolve(H, q.fock(6, 2), ts, jumps, ntraj=ntraj, key=key, exp_ops=exp))
    report(f"cavity, mcsolve, {ntraj}", result, exact, seconds)

    sx, sy, sz, sm = (np.asarray(op) for op in (q.sigmax(), q.sigmay(), q.sigmaz(), q.sigmam()))
    H, jumps, ts = sx + 0.25 * sz, [np.sqrt(0.5) * sm, np.sqrt(0.1) * sz], np.linspace(0.0, 5.0, 21)
    exp = {"x": sx, "y": sy, "z": sz}
    psi0 = q.basis(2, 0)
    exact = np.asarray(q.mesolve(H, psi0, ts, jump_ops=jumps, exp_ops=exp).expects.real)
    result, seconds = timed(lambda: q.mcsolve(H, psi0, ts, jumps, ntraj=ntraj, key=key, exp_ops=exp))
    report(f"qubit, mcsolve, {ntraj}", result, exact, seconds)
    result, seconds = timed(lambda: q.smesolve(H, psi0, ts, jumps, ntraj=ntraj, key=key, exp_ops=exp))
    report(f"qubit, smesolve (homodyne), {ntraj}", result, exact, seconds)


if __name__ == "__main__":
    main()
