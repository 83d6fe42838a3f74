"""Generate the quantum-circuit reference data with PennyLane (run in a separate venv, never imported by difflab).

    python3 -m venv PEER_VENV
    PEER_VENV/bin/pip install pennylane==0.45.1 "jax[cpu]==0.10.2"
    PEER_PYTHON datasets/quantum/circuits/generate.py

Writes, next to this script:

- `h2_sto3g_jw.nc`: the 4-qubit Jordan–Wigner Hamiltonian of H2 in STO-3G (PennyLane qchem, differentiable
  Hartree–Fock) at 15 bond lengths, its exact ground energy (dense diagonalisation) and the Hartree–Fock energy.
- `reference_statevector.nc`: a seeded 5-qubit circuit of 45 gates on `default.qubit` (state, probabilities, Pauli
  expectations and their gradients by JAX backprop and by parameter shift).
- `reference_noisy.nc`: a 3-qubit noisy circuit on `default.mixed` (density matrix, probabilities with and without
  symmetric readout error, Pauli expectations).

PennyLane orders wires like QuTiP and difflab (wire 0 is the most significant bit, the leftmost tensor factor).
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

import jax
import numpy as np
import pennylane as qml
import xarray as xr

jax.config.update("jax_enable_x64", True)
HERE = Path(__file__).parent
ANGSTROM_TO_BOHR = 1.0 / 0.529177210903  # CODATA 2018
BOND_LENGTHS = np.array([0.3, 0.4, 0.5, 0.6, 0.7, 0.7414, 0.8, 0.9, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.5])  # Å


def provenance() -> dict[str, str]:
    import jax as _jax

    return {
        "generator": "datasets/quantum/circuits/generate.py",
        "pennylane_version": qml.__version__,
        "jax_version": _jax.__version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "qubit_order": "wire 0 is the most significant bit (leftmost tensor factor), as in QuTiP",
        "units": "hbar = 1; energies in hartree",
    }


def h2_dataset() -> xr.Dataset:
    rows = []
    for r in BOND_LENGTHS:
        coords = np.array([0.0, 0.0, -r / 2, 0.0, 0.0, r / 2]) * ANGSTROM_TO_BOHR
        H, n = qml.qchem.molecular_hamiltonian(["H", "H"], coords, basis="sto-3g", mapping="jordan_wigner")
        terms = {}
        for word, c in H.pauli_rep.items():
            s = ["I"] * n
            for wire, p in word.items():
                s[wire] = p
            terms["".join(s)] = terms.get("".join(s), 0.0) + float(np.real(c))
        exact = float(np.linalg.eigvalsh(qml.matrix(H, wire_order=range(n)))[0])
        hf_state = np.zeros(2**n)
        hf_state[int("1100", 2)] = 1.0
        hf = float(np.real(hf_state @ qml.matrix(H, wire_order=range(n)) @ hf_state))
        rows.append((terms, exact, hf))
    strings = sorted(set().union(*(t for t, _, _ in rows)))
    coeffs = np.array([[t.get(s, 0.0) for s in strings] for t, _, _ in rows])
    ds = xr.Dataset(
        {
            "coefficient": (("bond_length", "term"), coeffs, {"units": "hartree", "long_name": "Pauli coefficient"}),
            "exact_energy": ("bond_length", [e for _, e, _ in rows],
                             {"units": "hartree", "long_name": "lowest eigenvalue of the 16 x 16 qubit Hamiltonian"}),
            "hf_energy": ("bond_length", [h for _, _, h in rows],
                          {"units": "hartree", "long_name": "Hartree-Fock energy <1100|H|1100>"}),
        },
        coords={"bond_length": ("bond_length", BOND_LENGTHS, {"units": "angstrom"}), "pauli": ("term", strings)},
    )  # fmt: skip
    ds.attrs.update(provenance())
    ds.attrs["method"] = (
        "qml.qchem.molecular_hamiltonian(['H', 'H'], basis='sto-3g', mapping='jordan_wigner'), restricted "
        "differentiable Hartree-Fock; nuclear repulsion included in the identity term; atoms on the z axis at "
        "+-R/2, R converted with 1 bohr = 0.529177210903 angstrom"
    )
    return ds


def random_circuit(n: int, depth: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    one = ["RX", "RY", "RZ", "PhaseShift", "Hadamard", "S", "T", "SX", "PauliX", "PauliY"]
    two = ["CNOT", "CZ", "SWAP", "CRX", "CRY", "CRZ"]
    ops = [["Hadamard", [w], []] for w in range(n)]
    for _ in range(depth):
        kind = rng.integers(3)
        if kind == 0:
            name = one[rng.integers(len(one))]
            params = [float(rng.uniform(-np.pi, np.pi))] if name in ("RX", "RY", "RZ", "PhaseShift") else []
            ops.append([name, [int(rng.integers(n))], params])
        elif kind == 1:
            name = two[rng.integers(len(two))]
            params = [float(rng.uniform(-np.pi, np.pi))] if name.startswith("CR") else []
            ops.append([name, [int(w) for w in rng.choice(n, 2, replace=False)], params])
        else:
            ops.append(["Toffoli", [int(w) for w in rng.choice(n, 3, replace=False)], []])
    ops.append(["DoubleExcitation", [0, 1, 2, 3], [float(rng.uniform(-np.pi, np.pi))]])
    return ops


def build(ops, params=None):
    i = 0
    for name, wires, p in ops:
        if p:
            value = params[i] if params is not None else p[0]
            i += 1
            getattr(qml, name)(value, wires=wires)
        else:
            getattr(qml, name)(wires=wires)


OBSERVABLES = {"ZIIII": qml.PauliZ(0), "IXIII": qml.PauliX(1), "ZZIII": qml.PauliZ(0) @ qml.PauliZ(1),
               "XYZIX": qml.PauliX(0) @ qml.PauliY(1) @ qml.PauliZ(2) @ qml.PauliX(4),
               "IIYYI": qml.PauliY(2) @ qml.PauliY(3)}  # fmt: skip


def statevector_dataset() -> xr.Dataset:
    n = 5
    ops = random_circuit(n, 40, seed=2026)
    params = jax.numpy.array([p[0] for _, _, p in ops if p])
    dev = qml.device("default.qubit", wires=n)

    @qml.qnode(dev, interface="jax")
    def state(x):
        build(ops, x)
        return qml.state()

    grads = {}
    values = {}
    for label, obs in OBSERVABLES.items():
        for method in ("backprop", "parameter-shift"):

            @qml.qnode(dev, interface="jax", diff_method=method)
            def energy(x, obs=obs):
                build(ops, x)
                return qml.expval(obs)

            values[label] = float(energy(params))
            grads[(label, method)] = np.asarray(jax.grad(energy)(params))
    psi = np.asarray(state(params))
    labels = list(OBSERVABLES)
    ds = xr.Dataset(
        {
            "state_re": ("basis", psi.real), "state_im": ("basis", psi.imag),
            "probability": ("basis", np.abs(psi) ** 2),
            "expectation": ("observable", [values[k] for k in labels]),
            "gradient": (("observable", "parameter"), np.array([grads[(k, "backprop")] for k in labels])),
            "gradient_shift": (("observable", "parameter"), np.array([grads[(k, "parameter-shift")] for k in labels])),
        },
        coords={"basis": [format(i, f"0{n}b") for i in range(2**n)], "observable": labels,
                "parameter": np.arange(len(params))},
    )  # fmt: skip
    ds.attrs.update(provenance())
    ds.attrs["circuit"] = json.dumps(ops)
    ds.attrs["n_wires"] = n
    ds.attrs["method"] = "default.qubit (JAX interface, backprop) from |00000>; gradient_shift by parameter shift"
    return ds


def noisy_dataset() -> xr.Dataset:
    n = 3
    ops = [
        ["Hadamard", [0], []], ["RY", [1], [0.7]], ["CNOT", [0, 1], []], ["AmplitudeDamping", [0], [0.1]],
        ["RX", [2], [1.3]], ["PhaseDamping", [1], [0.2]], ["CRZ", [1, 2], [0.9]],
        ["DepolarizingChannel", [2], [0.05]], ["Toffoli", [0, 1, 2], []], ["RZ", [0], [-0.4]], ["Hadamard", [0], []],
        ["AmplitudeDamping", [2], [0.3]], ["CZ", [2, 0], []], ["RY", [2], [0.25]],
    ]  # fmt: skip
    readout = 0.03
    out = {}
    dev = qml.device("default.mixed", wires=n)
    for label, prob in (("ideal", 0.0), ("readout", readout)):

        @qml.qnode(dev)
        def probs(prob=prob):
            build(ops)
            for w in range(n):  # a symmetric readout error is a bit flip just before measurement
                qml.BitFlip(prob, wires=w)
            return qml.probs(wires=range(n))

        out[label] = np.asarray(probs())

    @qml.qnode(dev)
    def rho():
        build(ops)
        return qml.density_matrix(wires=range(n))

    r = np.asarray(rho())
    labels = ["ZII", "IXI", "ZZZ", "XIY"]
    obs = [qml.PauliZ(0), qml.PauliX(1), qml.PauliZ(0) @ qml.PauliZ(1) @ qml.PauliZ(2), qml.PauliX(0) @ qml.PauliY(2)]
    expect = [float(np.real(np.trace(qml.matrix(o, wire_order=range(n)) @ r))) for o in obs]
    ds = xr.Dataset(
        {
            "probability": ("basis", out["ideal"]), "probability_readout": ("basis", out["readout"]),
            "rho_re": (("row", "col"), r.real), "rho_im": (("row", "col"), r.imag),
            "expectation": ("observable", expect),
        },
        coords={"basis": [format(i, f"0{n}b") for i in range(2**n)], "observable": labels},
    )  # fmt: skip
    ds.attrs.update(provenance())
    ds.attrs["circuit"] = json.dumps(ops)
    ds.attrs["n_wires"] = n
    ds.attrs["readout_error"] = readout
    ds.attrs["method"] = (
        "default.mixed from |000><000|; probability_readout with a BitFlip(readout_error) on every wire before "
        "measurement"
    )
    return ds


if __name__ == "__main__":
    h2_dataset().to_netcdf(HERE / "h2_sto3g_jw.nc", engine="netcdf4")
    sv, noisy = statevector_dataset(), noisy_dataset()
    sv.to_netcdf(HERE / "reference_statevector.nc", engine="netcdf4")
    noisy.to_netcdf(HERE / "reference_noisy.nc", engine="netcdf4")
    print(xr.open_dataset(HERE / "h2_sto3g_jw.nc"))
