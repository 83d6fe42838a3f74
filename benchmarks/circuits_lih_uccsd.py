"""LiH in STO-3G, all 12 qubits: UCCSD-VQE against PySCF's full CI, and what the first and later calls cost.

The Hamiltonian is built from the shipped integrals (`molecular_integrals("LiH", r)`, no frozen core: 4 electrons
in 12 spin orbitals, 631 Pauli strings), the ansatz is `uccsd` (Hartree–Fock, then every spin-conserving double and
single excitation: 92 angles), and `vqe` minimises the energy with L-BFGS (optax) from all angles zero, the
Hartree–Fock state. The first call compiles; the next bond lengths reuse that program (the coefficients are its
inputs), and so does a call from a new random start.

    python benchmarks/circuits_lih_uccsd.py --bond-lengths 1.5957 1.2 2.0 --steps 100
"""

from __future__ import annotations

import argparse
import functools
import os
import time

import jax
import jax.numpy as jnp
import optax

import difflab.quantum.circuits as qc

CHEMICAL_ACCURACY = 1.6e-3  # Ha


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bond-lengths", type=float, nargs="+", default=[1.5957, 1.2, 2.0])
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    n_electrons, n_qubits = 4, 12
    singles, doubles = qc.excitations(n_electrons, n_qubits)
    n_angles = len(singles) + len(doubles)
    ansatz = functools.partial(qc.uccsd, n_electrons=n_electrons, n_qubits=n_qubits)
    optimizer = optax.lbfgs()  # one object: a call with the same strings, ansatz and optimizer reuses the program
    print(f"LiH STO-3G, {n_qubits} qubits, {n_angles} angles ({len(singles)} singles, {len(doubles)} doubles), "
          f"L-BFGS {args.steps} steps; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    print("| bond length (Å) | terms | wall (s) | E_VQE − E_FCI (Ha) | E_HF − E_FCI (Ha) |")
    print("|---|---|---|---|---|")
    for i, r in enumerate(args.bond_lengths):
        mol = qc.molecular_integrals("LiH", r)
        ham = mol.hamiltonian()
        start = time.perf_counter()
        result = qc.vqe(ham, ansatz, jnp.zeros((1, n_angles)), optimizer=optimizer, steps=args.steps)
        wall = time.perf_counter() - start
        error = result.best_value - mol.fci_energy
        assert error > -1e-10, "below the full CI: not variational"
        note = " (first call: compilation included)" if i == 0 else ""
        print(f"| {r} | {len(ham.strings)} | {wall:.1f}{note} | {error:.2e} | {mol.hf_energy - mol.fci_energy:.2e} |",
              flush=True)  # fmt: skip
        if error > CHEMICAL_ACCURACY:
            print(f"  not within chemical accuracy ({CHEMICAL_ACCURACY} Ha)")
    mol = qc.molecular_integrals("LiH", args.bond_lengths[0])
    theta0 = 0.01 * jax.random.normal(jax.random.key(1), (1, n_angles))
    start = time.perf_counter()
    result = qc.vqe(mol.hamiltonian(), ansatz, theta0, optimizer=optimizer, steps=args.steps)
    print(f"new random start (σ = 0.01) at {args.bond_lengths[0]} Å: {time.perf_counter() - start:.1f} s, "
          f"E_VQE − E_FCI = {result.best_value - mol.fci_energy:.2e} Ha")  # fmt: skip
    print(f"jax {jax.__version__}, optax {optax.__version__}")


if __name__ == "__main__":
    main()
