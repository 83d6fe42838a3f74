"""Figures and numbers of docs/circuits.md: H2 dissociation by VQE, a QAOA landscape, a pulse-level X gate in a circuit.

    python benchmarks/circuits_figures.py          # writes docs/img/circuits_*.png and prints the numbers

Everything runs in float64 on the CPU in a few minutes (the DRAG optimisation dominates).
"""

from __future__ import annotations

import time
from pathlib import Path

import jax
import jax.numpy as jnp
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import difflab  # noqa: F401  (float64)
import difflab.quantum as q
import difflab.quantum.circuits as qc

IMG = Path(__file__).resolve().parents[1] / "docs" / "img"
EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]


def h2_figure() -> None:
    t = time.perf_counter()
    curve = qc.h2_vqe_curve(steps=300)
    err = np.abs(curve.vqe_energy - curve.exact_energy).values
    print(f"H2 VQE: 15 bond lengths in {time.perf_counter() - t:.1f} s, max |E_VQE - E_exact| = {err.max():.2e} Ha")
    i = int(np.argmin(curve.vqe_energy.values))
    print(f"  minimum at R = {float(curve.bond_length[i])} A, E = {float(curve.vqe_energy[i]):.6f} Ha")
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
    r = curve.bond_length.values
    ax.plot(r, curve.exact_energy, "k-", label="exact diagonalisation (FCI)")
    ax.plot(r, curve.hf_energy, "--", color="gray", label="Hartree–Fock")
    ax.plot(r, curve.vqe_energy, "o", color="C0", label="VQE (difflab)")
    ax.set(xlabel="bond length (Å)", ylabel="energy (hartree)", title="H₂, STO-3G, 4 qubits")
    ax.legend()
    ax2.semilogy(r, np.maximum(err, 1e-17), "o-", color="C0")
    ax2.axhline(1.6e-3, color="C3", ls=":", label="chemical accuracy 1.6 mHa")
    ax2.set(xlabel="bond length (Å)", ylabel="|E_VQE − E_exact| (hartree)", ylim=(1e-17, 1e-1))
    ax2.legend()
    fig.tight_layout()
    fig.savefig(IMG / "circuits_h2_vqe.png", dpi=120)


def qaoa_figure() -> None:
    cost = qc.maxcut_hamiltonian(EDGES, 4)
    best, _ = qc.maxcut_brute_force(EDGES, 4)
    gammas = jnp.linspace(0, np.pi, 61)
    betas = jnp.linspace(0, np.pi / 2, 61)

    def cut(g, b):
        return -qc.expectation(cost, qc.qaoa(EDGES, 4, g[None], b[None]).statevector())

    t = time.perf_counter()
    grid = jax.jit(jax.vmap(jax.vmap(cut, (None, 0)), (0, None)))(gammas, betas)
    print(f"QAOA p=1 landscape: {grid.size} points in {time.perf_counter() - t:.2f} s (one vmapped call); "
          f"best expected cut {float(grid.max()):.4f} of {best}")  # fmt: skip
    fig, ax = plt.subplots(figsize=(5, 3.8))
    im = ax.pcolormesh(betas, gammas, grid, shading="auto", cmap="viridis")
    fig.colorbar(im, ax=ax, label="expected cut ⟨C⟩")
    ax.set(xlabel="β (rad)", ylabel="γ (rad)", title=f"QAOA p = 1, MaxCut of a 4-vertex graph (max cut {best})")
    fig.tight_layout()
    fig.savefig(IMG / "circuits_qaoa_landscape.png", dpi=120)


def pulse_example() -> None:
    t = time.perf_counter()
    result = q.optimize_drag(steps=60)
    print(f"DRAG optimisation: F = {result['fidelity']:.6f} (Gaussian {result['start_fidelity']:.4f}) in "
          f"{time.perf_counter() - t:.0f} s")  # fmt: skip
    a_pi = np.pi / (5.0 * np.sqrt(2 * np.pi))
    gates = {"Gaussian": qc.PulseGate(a_pi, 0), "optimised DRAG": qc.PulseGate.from_optimized(result, 0)}
    blocks = {name: np.asarray(g.matrix()) for name, g in gates.items()}

    # Toffoli as an AND of two bits prepared by pulses: P(|111>) from |000>.
    for name, g in gates.items():
        ops = [g, qc.PulseGate(g.amplitude, 1, beta=g.beta, detuning=g.detuning), qc.Toffoli(0, 1, 2)]
        p = float(qc.probabilities(qc.Circuit(3, ops).statevector())[7])
        print(f"  {name}: P(111) after X, X, Toffoli = {p:.6f} (ideal 1)")

    # Error growth over repeated pulses: P(ideal outcome) after N X pulses on one qubit.
    ns = np.arange(1, 41)
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    for name, v in blocks.items():
        psi, errs = np.array([1.0, 0.0], dtype=complex), []
        for n in ns:
            psi = v @ psi
            errs.append(1 - abs(psi[n % 2]) ** 2)
        ax.semilogy(ns, errs, "o-", ms=3, label=name)
        print(f"  {name}: error after 1 / 10 / 40 pulses = {errs[0]:.2e} / {errs[9]:.2e} / {errs[39]:.2e}")
    ax.set(xlabel="number of X pulses", ylabel="1 − P(ideal outcome)", title="Pulse-level X gate in a circuit")
    ax.legend()
    fig.tight_layout()
    fig.savefig(IMG / "circuits_pulse_x.png", dpi=120)

    def p_one(amplitude):
        return qc.probabilities(qc.Circuit(1, [qc.PulseGate(amplitude, 0)]).statevector())[1]

    print(f"  dP(1)/dA at the Gaussian's amplitude = {float(jax.grad(p_one)(a_pi)):.4f} ns/rad (through the solve)")


if __name__ == "__main__":
    IMG.mkdir(parents=True, exist_ok=True)
    h2_figure()
    qaoa_figure()
    pulse_example()
