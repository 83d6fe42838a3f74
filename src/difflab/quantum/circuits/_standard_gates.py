r"""Constructors of the standard gates (PennyLane / QuTiP conventions, angles in radians).

One-qubit: `I`, `X`, `Y`, `Z`, `H`, `S`, `Sdg`, `T`, `Tdg`, `SX`, `SXdg`, `RX`, `RY`, `RZ` ($e^{-i\theta P/2}$),
`Phase` ($\mathrm{diag}(1, e^{i\phi})$). Two-qubit: `CNOT`, `CY`, `CZ`, `CH`, `SWAP`, `ISWAP`, `CRX`, `CRY`, `CRZ`,
`CPhase`, and the Ising couplings `XX`, `YY`, `ZZ` ($e^{-i\theta P\otimes P/2}$). Three-qubit: `Toffoli`, `CSWAP`
(Fredkin); any number of controls: `Controlled`. The first wire given is the control (Qiskit's and PennyLane's order).
"""

from __future__ import annotations

from jaxtyping import ArrayLike

from ._gates import Controlled, Gate, PauliRotation, PhaseShift


def I(wire: int) -> Gate:  # noqa: E743
    """Identity on `wire`."""
    return Gate("I", wire)


def X(wire: int) -> Gate:
    """Pauli X (NOT) on `wire`."""
    return Gate("X", wire)


def Y(wire: int) -> Gate:
    """Pauli Y on `wire`."""
    return Gate("Y", wire)


def Z(wire: int) -> Gate:
    """Pauli Z on `wire`."""
    return Gate("Z", wire)


def H(wire: int) -> Gate:
    """Hadamard on `wire`."""
    return Gate("H", wire)


def S(wire: int) -> Gate:
    """Phase gate diag(1, i) on `wire`."""
    return Gate("S", wire)


def Sdg(wire: int) -> Gate:
    """Inverse phase gate S† = diag(1, −i) on `wire`."""
    return Gate("Sdg", wire)


def T(wire: int) -> Gate:
    """π/8 gate diag(1, e^{iπ/4}) on `wire`."""
    return Gate("T", wire)


def Tdg(wire: int) -> Gate:
    """Inverse π/8 gate T† = diag(1, e^{−iπ/4}) on `wire`."""
    return Gate("Tdg", wire)


def SX(wire: int) -> Gate:
    """Square root of X, ½[[1+i, 1−i], [1−i, 1+i]], on `wire` (SX² = X)."""
    return Gate("SX", wire)


def SXdg(wire: int) -> Gate:
    """Inverse square root of X, ½[[1−i, 1+i], [1+i, 1−i]], on `wire`."""
    return Gate("SXdg", wire)


def SWAP(wire0: int, wire1: int) -> Gate:
    """Swap of two wires."""
    return Gate("SWAP", (wire0, wire1))


def ISWAP(wire0: int, wire1: int) -> Gate:
    """iSWAP: swaps |01> and |10> with a phase i."""
    return Gate("ISWAP", (wire0, wire1))


def RX(theta: ArrayLike, wire: int) -> PauliRotation:
    r"""$e^{-i\theta X/2}$ on `wire`."""
    return PauliRotation(theta, "X", wire)


def RY(theta: ArrayLike, wire: int) -> PauliRotation:
    r"""$e^{-i\theta Y/2}$ on `wire`."""
    return PauliRotation(theta, "Y", wire)


def RZ(theta: ArrayLike, wire: int) -> PauliRotation:
    r"""$e^{-i\theta Z/2}$ on `wire`."""
    return PauliRotation(theta, "Z", wire)


def XX(theta: ArrayLike, wire0: int, wire1: int) -> PauliRotation:
    r"""Ising coupling $e^{-i\theta X\otimes X/2}$."""
    return PauliRotation(theta, "XX", (wire0, wire1))


def YY(theta: ArrayLike, wire0: int, wire1: int) -> PauliRotation:
    r"""Ising coupling $e^{-i\theta Y\otimes Y/2}$."""
    return PauliRotation(theta, "YY", (wire0, wire1))


def ZZ(theta: ArrayLike, wire0: int, wire1: int) -> PauliRotation:
    r"""Ising coupling $e^{-i\theta Z\otimes Z/2}$ (the QAOA cost layer of one edge)."""
    return PauliRotation(theta, "ZZ", (wire0, wire1))


def Phase(phi: ArrayLike, wire: int) -> PhaseShift:
    """diag(1, e^{iφ}) on `wire`."""
    return PhaseShift(phi, wire)


def CNOT(control: int, target: int) -> Controlled:
    """Controlled X."""
    return Controlled(X(target), control)


def CY(control: int, target: int) -> Controlled:
    """Controlled Y."""
    return Controlled(Y(target), control)


def CH(control: int, target: int) -> Controlled:
    """Controlled Hadamard."""
    return Controlled(H(target), control)


def CZ(control: int, target: int) -> Controlled:
    """Controlled Z."""
    return Controlled(Z(target), control)


def CRX(theta: ArrayLike, control: int, target: int) -> Controlled:
    """Controlled RX."""
    return Controlled(RX(theta, target), control)


def CRY(theta: ArrayLike, control: int, target: int) -> Controlled:
    """Controlled RY."""
    return Controlled(RY(theta, target), control)


def CRZ(theta: ArrayLike, control: int, target: int) -> Controlled:
    """Controlled RZ."""
    return Controlled(RZ(theta, target), control)


def CPhase(phi: ArrayLike, control: int, target: int) -> Controlled:
    """Controlled phase shift."""
    return Controlled(Phase(phi, target), control)


def Toffoli(control0: int, control1: int, target: int) -> Controlled:
    """Doubly controlled X (CCNOT)."""
    return Controlled(X(target), (control0, control1))


def CSWAP(control: int, target0: int, target1: int) -> Controlled:
    """Controlled SWAP (Fredkin): swaps `target0` and `target1` where `control` is 1."""
    return Controlled(SWAP(target0, target1), control)
