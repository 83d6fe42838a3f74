"""Benchmark problems shared by the quantum benchmark scripts (difflab, dynamiqs, QuTiP side by side).

JC: Jaynes–Cummings, cavity N = 30 ⊗ qubit (dim 60), H = g (a† σ− + a σ+), g = 1, L = √κ a, κ = 0.1,
ρ0 = |e> ⊗ |α = 2>, t in [0, 50] (units of 1/g), 500 save points, exp_ops = [a†a, σ+σ−], no states stored.
TFIM: 10 spins, H = −Σ Z_i Z_{i+1} − h Σ X_i, h = 1, |0...0>, t in [0, 3], 61 points, ⟨Z_i⟩ for every spin.
Tolerances rtol = 1e-6, atol = 1e-8, Tsit5 (difflab, dynamiqs) / adams (QuTiP), double precision everywhere.
"""

from __future__ import annotations

import numpy as np

N_CAV = 30
ALPHA = 2.0
KAPPA = 0.1
G = 1.0
T_JC = np.linspace(0.0, 50.0, 500)
KAPPAS = np.linspace(0.01, 0.2, 100)
SPINS = 10
H_FIELD = 1.0
T_TFIM = np.linspace(0.0, 3.0, 61)
RTOL, ATOL = 1e-6, 1e-8
GRAD_AT = (1.05, 0.08)  # (g, kappa) where the loss and its gradient are evaluated; target made at (1, 0.1)


def jc_operators(lib):
    """(a, sigma_minus, psi0) on qubit ⊗ cavity for lib = difflab.quantum, dynamiqs or qutip (dense arrays/Qobj)."""
    name = lib.__name__
    if name == "qutip":
        a = lib.tensor(lib.qeye(2), lib.destroy(N_CAV))
        sm = lib.tensor(lib.sigmam(), lib.qeye(N_CAV))
        psi0 = lib.tensor(lib.basis(2, 0), _coherent_qutip(lib))
        return a, sm, psi0
    if name == "dynamiqs":
        a = lib.tensor(lib.eye(2), lib.destroy(N_CAV))
        sm = lib.tensor(lib.sigmam(), lib.eye(N_CAV))
        psi0 = lib.tensor(lib.basis(2, 0), lib.asqarray(_coherent_numpy()[:, None]))
        return a, sm, psi0
    a = lib.tensor(lib.eye(2), lib.destroy(N_CAV))
    sm = lib.tensor(lib.sigmam(), lib.eye(N_CAV))
    return a, sm, lib.tensor(lib.basis(2, 0), lib.coherent(N_CAV, ALPHA))


def _coherent_numpy():
    from math import lgamma

    n = np.arange(N_CAV)
    c = np.exp(-(ALPHA**2) / 2 + n * np.log(ALPHA) - 0.5 * np.array([lgamma(k + 1.0) for k in n]))
    return (c / np.linalg.norm(c)).astype(complex)


def _coherent_qutip(qutip):
    return qutip.Qobj(_coherent_numpy()[:, None])


def tfim_dense_terms(eye, sz, sx, tensor):
    """(ZZ sum, X sum, list of Z_i) built with the library's own eye/sigmaz/sigmax/tensor."""

    def site(op, i):
        return tensor(*[op if k == i else eye(2) for k in range(SPINS)])

    zs = [site(sz(), i) for i in range(SPINS)]
    xs = [site(sx(), i) for i in range(SPINS)]
    zz = sum(zs[i] @ zs[i + 1] for i in range(SPINS - 1))
    return zz, sum(xs), zs
