"""Make the Pauli-Hamiltonian import reference data with Qiskit, OpenFermion and PennyLane (separate venv).

    python3 -m venv PEER_VENV
    PEER_VENV/bin/pip install qiskit==2.6.2 openfermion==1.8.1 pennylane==0.45.1 xarray netCDF4
    PEER_PYTHON datasets/quantum/circuits/generate_hamiltonian_import.py

Writes `hamiltonian_import.nc` next to this script: for each operator (dimension `case`) its library, its terms as
that library's interface gives them (JSON), its text (`str`), its number of qubits and wire order, and the dense
matrix each library builds itself, **in that library's basis order** (`matrix_re_<case>`, `matrix_im_<case>`):

- Qiskit `SparsePauliOp.to_matrix()`: qubit 0 is the least significant bit of a basis index.
- OpenFermion `get_sparse_operator(op, n_qubits)`: qubit 0 is the most significant bit.
- PennyLane `qml.matrix(op, wire_order=wire_order)`: `wire_order[0]` is the most significant bit.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

import numpy as np
import openfermion
import pennylane as qml
import qiskit
import xarray as xr
from openfermion import FermionOperator, QubitOperator, get_sparse_operator, jordan_wigner
from qiskit.quantum_info import SparsePauliOp

HERE = Path(__file__).parent
#: (letters, qubits, coefficient) of a 4-qubit H2-like Jordan-Wigner operator (STO-3G magnitudes, in hartree).
H2_LIKE = [("", [], -0.0970663), ("Z", [0], 0.1714128), ("Z", [1], 0.1714128), ("Z", [2], -0.2234315),
           ("Z", [3], -0.2234315), ("ZZ", [0, 1], 0.1686221), ("ZZ", [0, 2], 0.1205448), ("ZZ", [0, 3], 0.1658696),
           ("ZZ", [1, 2], 0.1658696), ("ZZ", [1, 3], 0.1205448), ("ZZ", [2, 3], 0.1743484),
           ("XXYY", [0, 1, 2, 3], -0.0453249), ("YYXX", [0, 1, 2, 3], -0.0453249), ("XYYX", [0, 1, 2, 3], 0.0453249),
           ("YXXY", [0, 1, 2, 3], 0.0453249)]  # fmt: skip


def qiskit_cases() -> dict:
    h2 = SparsePauliOp.from_sparse_list(H2_LIKE, num_qubits=4)
    a = SparsePauliOp.from_sparse_list([("X", [2], 1.0), ("Z", [2], 1.0)], num_qubits=6)
    # Not simplified: duplicate labels, and Y terms with coefficients -0.3i and +0.3i that cancel.
    sparse = SparsePauliOp.from_sparse_list(
        [("XY", [0, 5], 0.4), ("Z", [2], -0.7), ("YZX", [0, 2, 5], 0.25), ("Z", [2], 0.1)], num_qubits=6
    ) + 0.3 * (a @ a)
    out = {}
    for name, op in (("qiskit_h2like", h2), ("qiskit_sparse6", sparse)):
        terms = [[label, c.real, c.imag] for label, c in op.to_list()]
        out[name] = dict(library="qiskit", terms=terms, text=str(op.to_list()), n=op.num_qubits,
                         wire_order=list(range(op.num_qubits)), matrix=op.to_matrix(),
                         basis_order="qubit 0 is the least significant bit")  # fmt: skip
    return out


def openfermion_cases() -> dict:
    # One-body energies, a hopping term 0<->2 (Z strings in between), number-number terms and a double excitation.
    fermion = FermionOperator()
    for p, e in enumerate([-1.25, -1.25, -0.47, -0.47]):
        fermion += FermionOperator(f"{p}^ {p}", e)
    fermion += FermionOperator("0^ 2", 0.11) + FermionOperator("2^ 0", 0.11)
    fermion += FermionOperator("0^ 0 1^ 1", 0.67) + FermionOperator("0^ 0 3^ 3", 0.66)
    fermion += FermionOperator("0^ 1^ 3 2", 0.18) + FermionOperator("2^ 3^ 1 0", 0.18)
    h2 = jordan_wigner(fermion)
    sparse = QubitOperator("X0 Z3", 0.5) + QubitOperator("Y5", -0.2) + QubitOperator("Z0 Y3 X5", 0.3)
    sparse += QubitOperator("", 1.5) + QubitOperator("Z3", 0.05)
    out = {}
    for name, op, n in (("openfermion_h2like", h2, 4), ("openfermion_sparse6", sparse, 6)):
        terms = [[[list(f) for f in key], complex(c).real, complex(c).imag] for key, c in op.terms.items()]
        out[name] = dict(library="openfermion", terms=terms, text=str(op), n=n, wire_order=list(range(n)),
                         matrix=get_sparse_operator(op, n_qubits=n).toarray(),
                         basis_order="qubit 0 is the most significant bit")  # fmt: skip
    return out


def pennylane_cases() -> dict:
    symbols, coords = ["H", "H"], np.array([0.0, 0.0, -0.7, 0.0, 0.0, 0.7])  # bohr
    h2, _ = qml.qchem.molecular_hamiltonian(symbols, coords, basis="sto-3g", mapping="jordan_wigner")
    labelled = qml.Hamiltonian([0.5, -0.3, 0.2, 0.7], [qml.X("a") @ qml.Z("b"), qml.Y("c"),
                                                        qml.Z("a") @ qml.Y(0), qml.X("b") @ qml.X("c")])  # fmt: skip
    sparse = qml.sum(qml.s_prod(0.4, qml.X(0) @ qml.Y(2)), qml.s_prod(-0.7, qml.Z(5)), qml.s_prod(0.2, qml.Y(2)),
                     qml.s_prod(0.1, qml.Z(5)))  # fmt: skip
    out = {}
    for name, op, order in (("pennylane_h2", h2, [0, 1, 2, 3]), ("pennylane_labels", labelled, ["b", 0, "a", "c"]),
                            ("pennylane_sparse6", sparse, list(range(6)))):  # fmt: skip
        terms = [[[[w, word[w]] for w in word], complex(c).real, complex(c).imag] for word, c in op.pauli_rep.items()]
        out[name] = dict(library="pennylane", terms=terms, text=str(op), n=len(order), wire_order=order,
                         matrix=qml.matrix(op, wire_order=order),
                         basis_order="wire_order[0] is the most significant bit")  # fmt: skip
    return out


def main() -> None:
    cases = {**qiskit_cases(), **openfermion_cases(), **pennylane_cases()}
    data = {}
    for field in ("library", "text", "basis_order"):
        data[field] = ("case", np.array([c[field] for c in cases.values()], dtype=object))
    for field in ("terms", "wire_order"):
        data[field] = ("case", np.array([json.dumps(c[field]) for c in cases.values()], dtype=object))
    data["n_wires"] = ("case", np.array([c["n"] for c in cases.values()]))
    for name, c in cases.items():
        m = np.asarray(c["matrix"], dtype=complex)
        data[f"matrix_re_{name}"] = ((f"row_{name}", f"col_{name}"), m.real)
        data[f"matrix_im_{name}"] = ((f"row_{name}", f"col_{name}"), m.imag)
    ds = xr.Dataset(data, coords={"case": list(cases)})
    ds.attrs.update({
        "generator": "datasets/quantum/circuits/generate_hamiltonian_import.py",
        "qiskit": qiskit.__version__, "openfermion": openfermion.__version__, "pennylane": qml.__version__,
        "numpy": np.__version__, "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "terms": "JSON: qiskit [[label, re, im]] from to_list(); openfermion [[[[qubit, letter], ...], re, im]] "
                 "from .terms; pennylane [[[[wire, letter], ...], re, im]] from .pauli_rep",
    })  # fmt: skip
    matrices = [name for name in ds.data_vars if name.startswith("matrix_")]
    ds.to_netcdf(HERE / "hamiltonian_import.nc", encoding={name: {"zlib": True} for name in matrices})
    print(ds)


if __name__ == "__main__":
    main()
