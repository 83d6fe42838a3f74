"""Circuits from a JSON-able list of operations `[name, wires, params]` with PennyLane's operation names.

The reference datasets under `datasets/quantum/circuits/` store their circuits this way (attribute `circuit`), so the
validation runners rebuild exactly the circuit the reference simulator ran.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from . import _standard_gates as g
from ._channels import AmplitudeDamping, Dephasing, Depolarizing
from ._circuit import Circuit
from ._givens import DoubleExcitation

_MAKERS: dict[str, Callable[..., Any]] = {
    "Hadamard": g.H, "PauliX": g.X, "PauliY": g.Y, "PauliZ": g.Z, "S": g.S, "T": g.T, "SX": g.SX,
    "RX": g.RX, "RY": g.RY, "RZ": g.RZ, "PhaseShift": g.Phase, "CNOT": g.CNOT, "CZ": g.CZ, "SWAP": g.SWAP,
    "CRX": g.CRX, "CRY": g.CRY, "CRZ": g.CRZ, "Toffoli": g.Toffoli, "IsingZZ": g.ZZ,
    "DoubleExcitation": lambda theta, *wires: DoubleExcitation(theta, wires),
    "AmplitudeDamping": AmplitudeDamping, "PhaseDamping": Dephasing, "DepolarizingChannel": Depolarizing,
}  # fmt: skip


def circuit_from_spec(n_wires: int, operations: str | Sequence, params=None) -> Circuit:
    """A `Circuit` from `[[name, wires, params], ...]` (or its JSON text).

    Names are as in PennyLane (`Hadamard`, `CRZ`, `AmplitudeDamping`, ...), parameters first as in PennyLane's
    signatures.

    `params`, if given, replaces the stored parameters in order (one value per parametrised operation), so that
    `jax.grad` of a function of the circuit differentiates with respect to them.
    """
    ops = json.loads(operations) if isinstance(operations, str) else operations
    built, k = [], 0
    for i, (name, wires, values) in enumerate(ops):
        if name not in _MAKERS:
            raise ValueError(f"operations[{i}]: unknown operation {name!r}; known: {', '.join(sorted(_MAKERS))}")
        if params is not None and values:
            values, k = [params[k + j] for j in range(len(values))], k + len(values)
        built.append(_MAKERS[name](*values, *wires))
    return Circuit(n_wires, built)
