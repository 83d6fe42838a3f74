"""Make the OpenQASM and noise-channel reference data with Qiskit (in a separate venv; difflab never imports it).

    python3 -m venv PEER_VENV
    PEER_VENV/bin/pip install qiskit==2.6.2 qiskit-aer==0.18.2 xarray netCDF4
    PEER_PYTHON datasets/quantum/circuits/generate_qiskit.py

Writes `reference_qiskit.nc` next to this script:

- `qasm2`, `qasm3` (program): 4-qubit circuits of 30 gates drawn with `numpy.random.default_rng(2026 + k)`, written
  by `qiskit.qasm2.dumps` and `qiskit.qasm3.dumps`, and their state vectors from `qiskit.quantum_info.Statevector`
  (`state_re`, `state_im`, dims program × basis) **in Qiskit's order** (qubit 0 is the least significant bit).
- `rho_in_1q`, `rho_in_2q`: random density matrices; `rho_out_*`: the output of Qiskit Aer's noise channels
  (`thermal_relaxation_error` with T2 < T1 and T1 < T2 < 2 T1, `depolarizing_error` on 1 and 2 qubits,
  `reset_error`), applied as `qiskit.quantum_info.SuperOp`, also in Qiskit's order.
"""

from __future__ import annotations

import platform
from pathlib import Path

import numpy as np
import qiskit
import qiskit_aer
import xarray as xr
from qiskit import QuantumCircuit, qasm2, qasm3
from qiskit.quantum_info import DensityMatrix, Statevector, SuperOp
from qiskit_aer.noise import depolarizing_error, reset_error, thermal_relaxation_error

HERE = Path(__file__).parent
N_QUBITS, N_GATES, N_PROGRAMS = 4, 30, 4
#: (name, parameters, qubits) drawn from; QASM 3 takes only what stdgates.inc defines.
GATES_2 = [("h", 0, 1), ("x", 0, 1), ("y", 0, 1), ("z", 0, 1), ("s", 0, 1), ("sdg", 0, 1), ("t", 0, 1),
           ("tdg", 0, 1), ("sx", 0, 1), ("sxdg", 0, 1), ("rx", 1, 1), ("ry", 1, 1), ("rz", 1, 1), ("p", 1, 1),
           ("u", 3, 1), ("cx", 0, 2), ("cy", 0, 2), ("cz", 0, 2), ("ch", 0, 2), ("swap", 0, 2), ("crx", 1, 2),
           ("cry", 1, 2), ("crz", 1, 2), ("cp", 1, 2), ("rxx", 1, 2), ("rzz", 1, 2), ("ccx", 0, 3),
           ("cswap", 0, 3)]  # fmt: skip
GATES_3 = [g for g in GATES_2 if g[0] not in ("sxdg", "rxx", "rzz")]


def random_circuit(seed: int, gates) -> QuantumCircuit:
    rng = np.random.default_rng(seed)
    qc = QuantumCircuit(N_QUBITS)
    for _ in range(N_GATES):
        name, n_params, n_qubits = gates[rng.integers(len(gates))]
        params = [float(x) for x in rng.uniform(-np.pi, np.pi, n_params)]
        qubits = [int(q) for q in rng.permutation(N_QUBITS)[:n_qubits]]
        getattr(qc, name)(*params, *qubits)
    return qc


def random_density(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(2**n, 2**n)) + 1j * rng.normal(size=(2**n, 2**n))
    rho = a @ a.conj().T
    return rho / np.trace(rho)


def main() -> None:
    programs = {2: [], 3: []}
    states = {2: [], 3: []}
    for version, gates, dumps in ((2, GATES_2, qasm2.dumps), (3, GATES_3, qasm3.dumps)):
        for k in range(N_PROGRAMS):
            qc = random_circuit(2026 + 10 * version + k, gates)
            programs[version].append(dumps(qc))
            states[version].append(Statevector(qc).data)
    t1, t, lam1, lam2 = 50.0, 12.5, 0.3, 0.45
    channels = {
        "thermal_t2_30": (1, thermal_relaxation_error(t1, 30.0, t)),
        "thermal_t2_80": (1, thermal_relaxation_error(t1, 80.0, t)),
        "depolarizing_1q": (1, depolarizing_error(lam1, 1)),
        "depolarizing_2q": (2, depolarizing_error(lam2, 2)),
        "reset": (1, reset_error(1.0, 0.0)),
    }
    rho_in = {1: random_density(1, 7), 2: random_density(2, 8)}
    data = {}
    for v in (2, 3):
        s = np.array(states[v])
        data[f"qasm{v}"] = ("program", np.array(programs[v], dtype=object))
        data[f"state{v}_re"] = (("program", "basis"), s.real)
        data[f"state{v}_im"] = (("program", "basis"), s.imag)
    for n in (1, 2):
        data[f"rho_in_{n}q_re"] = ((f"row{n}", f"col{n}"), rho_in[n].real)
        data[f"rho_in_{n}q_im"] = ((f"row{n}", f"col{n}"), rho_in[n].imag)
    for name, (n, error) in channels.items():
        out = DensityMatrix(rho_in[n]).evolve(SuperOp(error)).data
        data[f"rho_out_{name}_re"] = ((f"row{n}", f"col{n}"), out.real)
        data[f"rho_out_{name}_im"] = ((f"row{n}", f"col{n}"), out.imag)
    ds = xr.Dataset(data)
    ds.attrs.update({
        "generator": "datasets/quantum/circuits/generate_qiskit.py",
        "qiskit": qiskit.__version__, "qiskit_aer": qiskit_aer.__version__, "numpy": np.__version__,
        "python": platform.python_version(), "platform": f"{platform.system()} {platform.machine()}",
        "qubit_order": "Qiskit's: qubit 0 is the least significant bit of a basis index",
        "thermal_relaxation": f"T1 = {t1}, t = {t} (any time unit), T2 = 30 and 80, excited_state_population = 0",
        "depolarizing": f"qiskit lambda = {lam1} (1 qubit), {lam2} (2 qubits)",
        "reset": "reset_error(1, 0): reset to |0> with probability 1",
    })  # fmt: skip
    ds.to_netcdf(HERE / "reference_qiskit.nc")
    print(ds)


if __name__ == "__main__":
    main()
