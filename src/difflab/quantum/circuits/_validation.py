"""Validation runners for circuits (`difflab validate`).

The kinds `quantum.circuit_statevector`, `quantum.circuit_noisy` and `quantum.h2_vqe` are registered with
`difflab.validation.register_runner`.

Each rebuilds the circuit stored in its PennyLane reference dataset (attribute `circuit`, see
datasets/quantum/circuits/README.md), simulates it with `difflab.quantum.circuits` in float64 and reports the largest
absolute deviation of every stored quantity. The H₂ case runs the VQE dissociation curve against exact
diagonalisation (chemical accuracy 1.6 mHa).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ...plot import new_figure
from ...validation import CaseOutcome, Runner, metric, register_runner
from ._channels import ReadoutError
from ._chemistry import h2_vqe_curve
from ._hamiltonians import h2_hamiltonian
from ._measure import probabilities
from ._pauli import PauliSum, expectation
from ._spec import circuit_from_spec


def _max_abs(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


def run_statevector(case):
    """State, ⟨P⟩ and ∂⟨P⟩/∂θ of the seeded 5-qubit circuit against PennyLane default.qubit."""
    ref = case.load_dataset()
    n, spec = int(ref.n_wires), str(ref.circuit)
    params0 = jnp.asarray([float(v) for *_, p in json.loads(spec) for v in p])
    psi = circuit_from_spec(n, spec).statevector()
    labels = [str(o) for o in ref.observable.values]

    def values(params):
        state = circuit_from_spec(n, spec, params).statevector()
        return jnp.stack([expectation(PauliSum([1.0], [lab]), state) for lab in labels])

    jac = np.asarray(jax.jit(jax.jacrev(values))(params0))
    metrics = [
        metric(case, "state_max_abs_error", _max_abs(psi, ref.state_re + 1j * ref.state_im), units="1",
               detail=f"{psi.size} amplitudes"),
        metric(case, "probability_max_abs_error", _max_abs(probabilities(psi), ref.probability), units="1"),
        metric(case, "expectation_max_abs_error", _max_abs(values(params0), ref.expectation), units="1",
               detail=", ".join(labels)),
        metric(case, "gradient_max_abs_error", _max_abs(jac, ref.gradient), units="1/rad",
               detail=f"reverse mode vs PennyLane backprop, {jac.size} derivatives"),
        metric(case, "parameter_shift_max_abs_error", _max_abs(jac, ref.gradient_shift), units="1/rad",
               detail="reverse mode vs PennyLane parameter shift"),
    ]  # fmt: skip
    return CaseOutcome(metrics, [], _provenance(ref))


def run_noisy(case):
    """Density matrix, probabilities (with and without readout error) and ⟨P⟩ against PennyLane default.mixed."""
    ref = case.load_dataset()
    n = int(ref.n_wires)
    rho = circuit_from_spec(n, str(ref.circuit)).density_matrix()
    readout = [ReadoutError(float(ref.readout_error), wire=w) for w in range(n)]
    expect = [float(expectation(PauliSum([1.0], [str(o)]), rho)) for o in ref.observable.values]
    metrics = [
        metric(case, "density_max_abs_error", _max_abs(rho, ref.rho_re + 1j * ref.rho_im), units="1"),
        metric(case, "probability_max_abs_error", max(_max_abs(probabilities(rho), ref.probability),
               _max_abs(probabilities(rho, readout=readout), ref.probability_readout)), units="1",
               detail=f"with and without readout error {float(ref.readout_error)}"),
        metric(case, "expectation_max_abs_error", _max_abs(expect, ref.expectation), units="1"),
        metric(case, "trace_error", abs(float(jnp.real(jnp.trace(rho))) - 1.0), units="1"),
    ]  # fmt: skip
    return CaseOutcome(metrics, [], _provenance(ref))


def run_h2_vqe(case):
    """VQE dissociation curve of H₂ against the shipped exact diagonalisation (hartree)."""
    ref = case.load_dataset()
    steps = case.get("optimizer.steps", int, default=300)
    curve = h2_vqe_curve(steps=steps)
    errors = np.abs(curve.vqe_energy.values - ref.exact_energy.values)
    worst = int(np.argmax(errors))
    # Our own diagonalisation of the shipped coefficients: checks the Pauli algebra, not the optimiser.

    diag = [h2_hamiltonian(float(r)).ground_energy() for r in ref.bond_length.values]
    metrics = [
        metric(case, "vqe_energy_max_error", errors.max(), units="hartree",
               detail=f"worst at R = {float(ref.bond_length[worst])} Å over {errors.size} bond lengths"),
        metric(case, "exact_energy_max_error", _max_abs(diag, ref.exact_energy), units="hartree",
               detail="difflab diagonalisation of the shipped Pauli sums vs the shipped exact energies"),
    ]  # fmt: skip
    return CaseOutcome(metrics, [("H₂ dissociation curve: VQE (points), exact and Hartree–Fock (lines).",
                                  functools.partial(_curve_figure, curve))], _provenance(ref))  # fmt: skip


def _curve_figure(curve) -> Any:
    fig = new_figure((6, 3.5))
    ax = fig.add_subplot()
    r = curve.bond_length.values
    ax.plot(r, curve.exact_energy, "k-", label="exact diagonalisation")
    ax.plot(r, curve.hf_energy, "--", color="gray", label="Hartree–Fock")
    ax.plot(r, curve.vqe_energy, "o", color="C0", label="VQE (difflab)")
    ax.set_xlabel("bond length (Å)")
    ax.set_ylabel("energy (hartree)")
    ax.legend()
    return fig


def _provenance(ref) -> dict[str, str]:
    out = {k: str(v) for k, v in ref.attrs.items() if k != "circuit"}
    out.update({"simulator": "difflab.quantum.circuits (complex128)", "jax": jax.__version__})
    return out


_STATEVECTOR_METRICS = (
    "state_max_abs_error",
    "probability_max_abs_error",
    "expectation_max_abs_error",
    "gradient_max_abs_error",
    "parameter_shift_max_abs_error",
)


def _runners():

    return {
        "quantum.circuit_statevector": Runner(
            run=run_statevector,
            metrics=_STATEVECTOR_METRICS,
        ),
        "quantum.circuit_noisy": Runner(
            run=run_noisy,
            metrics=("density_max_abs_error", "probability_max_abs_error", "expectation_max_abs_error", "trace_error"),
        ),
        "quantum.h2_vqe": Runner(
            run=run_h2_vqe,
            metrics=("vqe_energy_max_error", "exact_energy_max_error"),
            optional={"optimizer.steps": int},
        ),
    }


RUNNERS = _runners()
for _kind, _runner in RUNNERS.items():
    register_runner(_kind, _runner)
