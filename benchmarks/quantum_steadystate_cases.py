"""`steadystate(method="iterative")` against the direct method on problems of several kinds: accuracy and time.

    PYTHONPATH=src python benchmarks/quantum_steadystate_cases.py

Each problem is solved by both methods (the iterative one once before timing, to compile). Printed: the largest
entry of the difference, the residual max |L vec(rho)| of the iterative solution, and both wall times. The
problems: a random dense Lindbladian (n = 30, three jumps; one weak jump), a driven Jaynes-Cummings model (qubit
and 20 levels, both damped), a qubit at an exceptional point of G = -iH - L^dag L / 2 (defective eigenbasis), a
thermal cavity (40 levels), an undriven decaying qubit, and a two-photon-driven cat (30 levels).
"""

import time

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)

import difflab.quantum as q  # noqa: E402

RNG = np.random.default_rng(1)


def random_matrix(n):
    return RNG.normal(size=(n, n)) + 1j * RNG.normal(size=(n, n))


def compare(name, H, jumps):
    H, jumps = np.asarray(H, complex), [np.asarray(op, complex) for op in jumps]
    start = time.perf_counter()
    direct = np.asarray(q.steadystate(H, jumps, method="direct"))
    t_direct = time.perf_counter() - start
    q.steadystate(H, jumps, method="iterative")
    start = time.perf_counter()
    iterative = np.asarray(q.steadystate(H, jumps, method="iterative"))
    t_iterative = time.perf_counter() - start
    L = np.asarray(q.liouvillian(H, jumps))
    residual = np.abs(L @ iterative.T.reshape(-1)).max()
    print(f"{name:28s} n={H.shape[0]:3d}  |iterative - direct| {np.abs(iterative - direct).max():.1e}  "
          f"residual {residual:.1e}  direct {t_direct:.3f} s  iterative {t_iterative:.3f} s")  # fmt: skip


def main():
    A = random_matrix(30)
    H = (A + A.conj().T) / 2
    compare("random dense, 3 jumps", H, [0.3 * random_matrix(30) for _ in range(3)])
    compare("random dense, weak jump", H, [0.01 * random_matrix(30)])
    n = 20
    a = np.kron(np.eye(2), np.asarray(q.destroy(n)))
    sm = np.kron(np.asarray(q.sigmam()), np.eye(n))
    H = (0.5 * a.conj().T @ a + 0.3 * np.kron(np.asarray(q.sigmaz()), np.eye(n))
         + 0.4 * (a.conj().T @ sm + a @ sm.conj().T) + 0.2 * (a + a.conj().T))  # fmt: skip
    compare("driven Jaynes-Cummings 2x20", H, [np.sqrt(0.1) * a, np.sqrt(0.05) * sm])
    g = 0.25 / 4  # G's eigenvalues coincide at g = gamma / 4 (gamma = 0.25)
    compare("qubit at exceptional point", np.array([[0, g], [g, 0]]), [np.array([[0, 0], [0.5, 0]])])
    b = np.asarray(q.destroy(40))
    compare("thermal cavity", 2.0 * b.conj().T @ b, [np.sqrt(0.42) * b, np.sqrt(0.12) * b.conj().T])
    compare("decaying qubit, no drive", 0.5 * np.asarray(q.sigmaz()), [np.sqrt(0.5) * np.asarray(q.sigmam())])
    b = np.asarray(q.destroy(30))
    compare("two-photon cat", 0.0 * b, [b @ b - np.eye(30), 0.3 * b])


if __name__ == "__main__":
    main()
