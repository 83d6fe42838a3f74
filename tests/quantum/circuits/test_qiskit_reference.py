"""Against Qiskit 2.6.2 / Aer 0.18.2 (datasets/quantum/circuits/reference_qiskit.nc, made by generate_qiskit.py):
OpenQASM that Qiskit wrote reads into the same states (bits reversed: Qiskit's qubit 0 is the least significant bit),
and the noise channels equal Qiskit's with the stated parameter relations."""

import numpy as np
import pytest

import difflab.quantum.circuits as qc
from difflab import datasets

REF = datasets.load("quantum/circuits/reference_qiskit.nc")


def from_qiskit_order(x: np.ndarray) -> np.ndarray:
    """A Qiskit state vector or density matrix in difflab's order (every basis index's bits reversed)."""
    n = round(np.log2(x.shape[0]))
    axes = list(range(n))[::-1]
    if x.ndim == 1:
        return x.reshape((2,) * n).transpose(axes).reshape(-1)
    return x.reshape((2,) * 2 * n).transpose(axes + [n + a for a in axes]).reshape(x.shape)


def complex_var(name: str) -> np.ndarray:
    return REF[f"{name}_re"].values + 1j * REF[f"{name}_im"].values


@pytest.mark.parametrize("version", [2, 3])
def test_qiskit_written_qasm_gives_qiskits_state(version):
    states = complex_var(f"state{version}")
    for k, text in enumerate(REF[f"qasm{version}"].values):
        circuit = qc.from_qasm(str(text))
        np.testing.assert_allclose(circuit.statevector(scan=False), from_qiskit_order(states[k]), rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("name", "channel"),
    [("thermal_t2_30", qc.ThermalRelaxation(50.0, 30.0, 12.5, 0)),
     ("thermal_t2_80", qc.ThermalRelaxation(50.0, 80.0, 12.5, 0)),
     ("depolarizing_1q", qc.Depolarizing(3 * 0.3 / 4, 0)),  # Qiskit's λ = 4p/3
     ("depolarizing_2q", qc.TwoQubitDepolarizing(15 * 0.45 / 16, (0, 1))),  # λ = 16p/15
     ("reset", qc.Reset(0))],
)  # fmt: skip
def test_channels_equal_qiskit_aers(name, channel):
    n = len(channel.wires) if name.endswith("2q") else 1
    rho = from_qiskit_order(complex_var(f"rho_in_{n}q"))
    out = qc.Circuit(n, [channel]).density_matrix(rho)
    np.testing.assert_allclose(out, from_qiskit_order(complex_var(f"rho_out_{name}")), rtol=0, atol=1e-14)
