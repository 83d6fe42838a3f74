"""Make the mid-circuit measurement reference data with Qiskit Aer (in a separate venv; difflab never imports it).

    python3 -m venv PEER_VENV
    PEER_VENV/bin/pip install qiskit==2.6.2 qiskit-aer==0.18.2 xarray netCDF4
    PEER_PYTHON datasets/quantum/circuits/generate_qiskit_midcircuit.py

Writes `reference_qiskit_midcircuit.nc` next to this script, for two 3-qubit circuits with measurements into
classical bits and gates conditioned on them (`if_test`):

- `teleport`: a state prepared by RY(1.2), RZ(0.4) on qubit 0, teleported to qubit 2 (bits `a`, `b`, one-bit
  registers; corrections X if b, Z if a).
- `feedback`: RY(1.1) on 0, CX(0, 2), measure 0 -> c[0]; RY(0.8) on 1 if c[0] == 0, else H(1), CX(1, 2); measure 1
  -> c[1], reset 1, H(1); RX(0.24) on 2 if c == 2 (c[1] = 1, c[0] = 0: register values read c[0] as the least
  significant bit).

Stored per circuit (dimension `circuit`): `program`, the OpenQASM 3 text from `qiskit.qasm3.dumps`; `clbit_name`
(`clbit`): the difflab name of each classical bit in Qiskit's order (`a`, `b` for one-bit registers, `c[0]`,
`c[1]`); `counts` (`register_value`): the counts of each register value (Qiskit's: clbit 0 the least significant
bit) from `shots` shots, seed 2026; `rho_re`, `rho_im` (`register_value`, `row`, `col`): Aer's density matrix
conditioned on the register value (`save_density_matrix(conditional=True)`, method `density_matrix`), **in Qiskit's
qubit order** (qubit 0 the least significant bit), NaN where a value never occurred. Each circuit's branch states
are pure and fixed by the outcomes, so the conditional density matrices are exact, not averages of different states.
"""

from __future__ import annotations

import platform
from pathlib import Path

import numpy as np
import qiskit
import qiskit_aer
import xarray as xr
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister, qasm3
from qiskit_aer import AerSimulator

HERE = Path(__file__).parent
SHOTS = 4000


def teleport() -> tuple[QuantumCircuit, list[str]]:
    a, b = ClassicalRegister(1, "a"), ClassicalRegister(1, "b")
    qc = QuantumCircuit(QuantumRegister(3, "q"), a, b)
    qc.ry(1.2, 0)
    qc.rz(0.4, 0)
    qc.h(1)
    qc.cx(1, 2)
    qc.cx(0, 1)
    qc.h(0)
    qc.measure(0, a[0])
    qc.measure(1, b[0])
    with qc.if_test((b[0], 1)):
        qc.x(2)
    with qc.if_test((a[0], 1)):
        qc.z(2)
    return qc, ["a", "b"]


def feedback() -> tuple[QuantumCircuit, list[str]]:
    c = ClassicalRegister(2, "c")
    qc = QuantumCircuit(QuantumRegister(3, "q"), c)
    qc.ry(1.1, 0)
    qc.cx(0, 2)
    qc.measure(0, c[0])
    with qc.if_test((c[0], 0)):
        qc.ry(0.8, 1)
    with qc.if_test((c[0], 1)):
        qc.h(1)
        qc.cx(1, 2)
    qc.measure(1, c[1])
    qc.reset(1)
    qc.h(1)
    with qc.if_test((c, 2)):
        qc.rx(0.24, 2)
    return qc, ["c[0]", "c[1]"]


def main() -> None:
    simulator = AerSimulator(method="density_matrix")
    data: dict[str, list] = {"program": [], "clbit_name": [], "counts": [], "rho": []}
    for make in (teleport, feedback):
        qc, names = make()
        data["program"].append(qasm3.dumps(qc))
        qc.save_density_matrix(conditional=True)
        result = simulator.run(qc, shots=SHOTS, seed_simulator=2026).result()
        counts = {int(k.replace(" ", ""), 2): v for k, v in result.get_counts().items()}
        rho = np.full((4, 8, 8), np.nan, dtype=complex)
        for key, value in result.data()["density_matrix"].items():
            rho[int(key, 16)] = np.asarray(value)
        data["clbit_name"].append(names)
        data["counts"].append([counts.get(k, 0) for k in range(4)])
        data["rho"].append(rho)
    rho = np.array(data["rho"])
    ds = xr.Dataset(
        {
            "program": ("circuit", np.array(data["program"], dtype=object)),
            "clbit_name": (("circuit", "clbit"), np.array(data["clbit_name"], dtype=object)),
            "counts": (("circuit", "register_value"), np.array(data["counts"])),
            "rho_re": (("circuit", "register_value", "row", "col"), rho.real),
            "rho_im": (("circuit", "register_value", "row", "col"), rho.imag),
        },
        coords={"circuit": ["teleport", "feedback"]},
    )
    ds.attrs.update({
        "generator": "datasets/quantum/circuits/generate_qiskit_midcircuit.py",
        "qiskit": qiskit.__version__, "qiskit_aer": qiskit_aer.__version__, "numpy": np.__version__,
        "python": platform.python_version(), "platform": f"{platform.system()} {platform.machine()}",
        "shots": SHOTS, "seed_simulator": 2026,
        "qubit_order": "Qiskit's: qubit 0 is the least significant bit of a basis index",
        "register_value": "Qiskit's: clbit 0 is the least significant bit",
    })  # fmt: skip
    ds.to_netcdf(HERE / "reference_qiskit_midcircuit.nc")
    print(ds)
    for text in data["program"]:
        print(text)


if __name__ == "__main__":
    main()
