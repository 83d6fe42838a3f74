r"""Gates as Equinox modules: fixed gates, Pauli rotations, phase shifts, controlled gates and checked unitaries.

Every gate knows its `wires` (static) and its `matrix()` (2ᵏ × 2ᵏ, first wire most significant) and applies itself to
a state tensor by contraction on its own axes. Angles are in radians and are array fields, so a new angle never
recompiles and `jax.grad` differentiates through them. Conventions follow QuTiP/PennyLane:
$R_P(\theta) = e^{-i\theta P/2}$, $P_\phi = \mathrm{diag}(1, e^{i\phi})$, $|0\rangle = (1, 0)$.
"""

from __future__ import annotations

import abc
from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from .._checks import UNITARY_ATOL, check_unitary
from .._complex import as_complex
from ._apply import (
    apply_controlled,
    apply_matrix,
    as_wires,
    check_wire_matrix,
    conjugate,
    control_slice,
    dagger,
    is_concrete,
)

_S2 = 1 / np.sqrt(2)
PAULIS = {
    "I": np.eye(2, dtype=complex),
    "X": np.array([[0, 1], [1, 0]], dtype=complex),
    "Y": np.array([[0, -1j], [1j, 0]], dtype=complex),
    "Z": np.array([[1, 0], [0, -1]], dtype=complex),
}
FIXED = {
    **PAULIS,
    "H": np.array([[_S2, _S2], [_S2, -_S2]], dtype=complex),
    "S": np.diag([1, 1j]),
    "Sdg": np.diag([1, -1j]),
    "T": np.diag([1, np.exp(0.25j * np.pi)]),
    "Tdg": np.diag([1, np.exp(-0.25j * np.pi)]),
    "SX": 0.5 * np.array([[1 + 1j, 1 - 1j], [1 - 1j, 1 + 1j]]),
    "SXdg": 0.5 * np.array([[1 - 1j, 1 + 1j], [1 + 1j, 1 - 1j]]),
    "SWAP": np.eye(4, dtype=complex)[[0, 2, 1, 3]],
    "ISWAP": np.array([[1, 0, 0, 0], [0, 0, 1j, 0], [0, 1j, 0, 0], [0, 0, 0, 1]]),
    "ISWAPdg": np.array([[1, 0, 0, 0], [0, 0, -1j, 0], [0, -1j, 0, 0], [0, 0, 0, 1]]),
}
#: The inverse of each fixed gate by name (the others are their own inverse: I, X, Y, Z, H, SWAP).
FIXED_INVERSE = {"S": "Sdg", "T": "Tdg", "SX": "SXdg", "ISWAP": "ISWAPdg"}
FIXED_INVERSE.update({v: k for k, v in FIXED_INVERSE.items()})


class AbstractGate(eqx.Module):
    r"""A unitary (or, for a pulse gate, a contraction) acting on `wires`.

    Besides `matrix()`, a gate is applied through its *kernel* $K$, the matrix that `apply_kernel` actually
    contracts with the state: `matrix()` itself for most gates, the target matrix for a controlled gate (applied on
    the control slice only). The adjoint-method gradient (`difflab.quantum.circuits.energy`) uses the same
    routine with $K^\dagger$ to undo the gate and with $K^T$ to carry the cotangent back, so every gate that can
    be applied can also be run backwards. `unitary` is False for gates that are not unitary (a pulse gate with
    leakage); the adjoint method refuses those, as it undoes a gate by applying $K^\dagger$.

    `adjoint()` returns the inverse gate $U^\dagger$ as a gate of the same kind where one exists: a rotation with
    its angle negated, a fixed gate's named inverse (S → Sdg), a controlled gate with its base inverted, the
    conjugate transpose of a `Unitary`.
    """

    wires: eqx.AbstractVar[tuple[int, ...]]
    unitary: ClassVar[bool] = True

    @abc.abstractmethod
    def matrix(self) -> Array:
        """The 2ᵏ × 2ᵏ matrix on `wires` (first wire most significant)."""

    def adjoint(self) -> AbstractGate:
        r"""The inverse gate $U^\dagger$ (so that `adjoint()` after the gate is the identity)."""
        raise TypeError(f"{type(self).__name__} has no adjoint gate: it is not unitary")

    def kernel(self) -> Array:
        """The matrix that `apply_kernel` contracts with the state (default: `matrix()`)."""
        return self.matrix()

    def apply_kernel(self, tensor: Array, kernel: Array, offset: int = 0) -> Array:
        """Apply `kernel` (of the shape of `kernel()`) to the axes `offset + wires` of `tensor`, as the gate does."""
        return apply_matrix(tensor, kernel, [offset + w for w in self.wires])

    def kernel_slice(self, tensor: Array) -> tuple[Array, list[int]]:
        """The part of `tensor` the kernel acts on, and the kernel's axes in it (all of it, `wires`)."""
        return tensor, list(self.wires)

    def apply(self, tensor: Array, offset: int = 0, conj: bool = False) -> Array:
        """Apply to the axes `offset + wires` of `tensor`.

        `conj=True` applies the complex conjugate matrix (the column side of a density matrix).
        """
        m = self.kernel()
        return self.apply_kernel(tensor, conjugate(m) if conj else m, offset)


class Gate(AbstractGate):
    """A fixed gate by name: I, X, Y, Z, H, S, Sdg, T, Tdg, SX, SXdg (one wire), SWAP, ISWAP, ISWAPdg (two wires)."""

    name: str = eqx.field(static=True)
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, name: str, wires):
        if name not in FIXED:
            raise ValueError(f"name must be one of {sorted(FIXED)}; got {name!r}")
        self.name = name
        self.wires = as_wires("wires", wires)
        want = int(np.log2(FIXED[name].shape[0]))
        if len(self.wires) != want:
            raise ValueError(f"wires of gate {name} must hold {want} wire(s); got {self.wires!r}")

    def matrix(self) -> Array:
        return jnp.asarray(FIXED[self.name])

    def adjoint(self) -> Gate:
        """The named inverse (S ↔ Sdg, T ↔ Tdg, SX ↔ SXdg, ISWAP ↔ ISWAPdg); the other fixed gates are Hermitian."""
        return Gate(FIXED_INVERSE.get(self.name, self.name), self.wires)

    def kernel(self) -> np.ndarray:  # type: ignore[override]
        """The constant matrix as NumPy, so that its zeros and ones are known while tracing (see `_apply`)."""
        return FIXED[self.name]


class PauliRotation(AbstractGate):
    r"""$e^{-i\theta P/2} = \cos(\theta/2)\,I - i\sin(\theta/2)\,P$ for a Pauli word $P$ (e.g. "X", "ZZ") on `wires`.

    `RX`, `RY`, `RZ` and the Ising coupling `ZZ` are instances; `theta` in radians.
    """

    theta: Array
    pauli: str = eqx.field(static=True)
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, theta: ArrayLike, pauli: str, wires):
        self.wires = as_wires("wires", wires)
        if not pauli or set(pauli) - set("XYZ") or len(pauli) != len(self.wires):
            raise ValueError(f"pauli must be a word over 'XYZ' with one letter per wire ({len(self.wires)}); "
                             f"got {pauli!r}")  # fmt: skip
        self.theta = as_angle(theta, "theta")
        self.pauli = pauli

    def matrix(self) -> Array:
        p = PAULIS[self.pauli[0]]
        for c in self.pauli[1:]:
            p = np.kron(p, PAULIS[c])
        half = 0.5 * self.theta
        cos, sin = as_complex(jnp.cos(half)), as_complex(jnp.sin(half))
        return cos * jnp.eye(p.shape[0], dtype=cos.dtype) - 1j * sin * jnp.asarray(p, dtype=cos.dtype)

    def adjoint(self) -> PauliRotation:
        r"""$e^{+i\theta P/2}$: the same rotation by $-\theta$."""
        return PauliRotation(-self.theta, self.pauli, self.wires)


class PhaseShift(AbstractGate):
    r"""$\mathrm{diag}(1, e^{i\phi})$ on one wire, `phi` in radians."""

    phi: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, phi: ArrayLike, wire: int):
        self.phi = as_angle(phi, "phi")
        self.wires = as_wires("wire", wire)
        if len(self.wires) != 1:
            raise ValueError(f"wire must be a single wire; got {self.wires!r}")

    def matrix(self) -> Array:
        phase = jnp.exp(1j * as_complex(self.phi))
        return jnp.diag(jnp.stack([jnp.ones_like(phase), phase]))

    def adjoint(self) -> PhaseShift:
        return PhaseShift(-self.phi, self.wires[0])


class Controlled(AbstractGate):
    """`base` applied where every wire of `controls` is in state `values` (default all 1): CNOT, CZ, Toffoli, CRX.

    Applied by slicing the state on the control axes, so a k-controlled gate costs no more than its base gate.
    """

    base: AbstractGate
    controls: tuple[int, ...] = eqx.field(static=True)
    values: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, base: AbstractGate, controls, values=None):
        self.base = base
        self.controls = as_wires("controls", controls)
        self.values = (1,) * len(self.controls) if values is None else tuple(int(v) for v in values)
        if len(self.values) != len(self.controls) or set(self.values) - {0, 1}:
            raise ValueError(f"values must give 0 or 1 for each of the {len(self.controls)} control wires; "
                             f"got {values!r}")  # fmt: skip
        if set(self.controls) & set(base.wires):
            raise ValueError(f"controls {self.controls} must not overlap the target wires {base.wires}")

    # equinox lets a property implement the AbstractVar `wires` (mypy reads it as a plain field)
    @property  # type: ignore[misc]
    def wires(self) -> tuple[int, ...]:  # type: ignore[override]
        return self.controls + self.base.wires

    def matrix(self) -> Array:
        r"""$(1 - P_v) \otimes I + P_v \otimes M$ with $P_v$ the projector on the control values."""
        k, m = len(self.controls), self.base.matrix()
        projector = np.zeros((2**k, 2**k))
        index = int("".join(map(str, self.values)), 2)
        projector[index, index] = 1.0
        rest = np.kron(np.eye(2**k) - projector, np.eye(m.shape[0]))
        return jnp.asarray(rest, dtype=m.dtype) + jnp.kron(jnp.asarray(projector, dtype=m.dtype), m)

    def adjoint(self) -> Controlled:
        """The same controls on the base gate's adjoint."""
        return Controlled(self.base.adjoint(), self.controls, self.values)

    def kernel(self) -> Array:
        """The base gate's kernel (its matrix), applied on the control slice only."""
        return self.base.kernel()

    def apply_kernel(self, tensor: Array, kernel: Array, offset: int = 0) -> Array:
        controls = [offset + c for c in self.controls]
        return apply_controlled(tensor, kernel, controls, [offset + w for w in self.base.wires], self.values)

    def kernel_slice(self, tensor: Array) -> tuple[Array, list[int]]:
        """The control slice of `tensor` (controls at `values`) and the target axes in it."""
        return control_slice(tensor, self.controls, self.base.wires, self.values)


class Unitary(AbstractGate):
    """An arbitrary unitary `matrix` (2ᵏ × 2ᵏ, first wire most significant) on `wires`, checked for unitarity.

    The check (max |U†U − 1| ≤ `UNITARY_ATOL` = 1e-8) runs on concrete matrices; traced ones pass unchecked.
    """

    matrix_: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, matrix: ArrayLike, wires):
        self.wires = as_wires("wires", wires)
        check_wire_matrix(matrix, self.wires)
        check_unitary(matrix, "matrix")
        self.matrix_ = _traced_unitary(as_complex(matrix), "matrix")

    def matrix(self) -> Array:
        return self.matrix_

    def adjoint(self) -> Unitary:
        """The conjugate transpose on the same wires."""
        return Unitary(dagger(self.matrix_), self.wires)


def as_angle(value: ArrayLike, name: str) -> Array:
    """`value` (radians) as a float array, refused by name when it is NaN/inf (flagged by `eqx.error_if` if traced)."""
    angle = jnp.asarray(value, dtype=float)
    if is_concrete(value):
        if not np.all(np.isfinite(np.asarray(angle))):
            raise ValueError(f"{name} must be a finite angle (radians); got {value!r}")
        return angle
    message = f"{name} must be a finite angle (radians); got NaN/inf"
    return eqx.error_if(angle, ~jnp.all(jnp.isfinite(angle)), message)


def _traced_unitary(matrix: Array, name: str) -> Array:
    """A traced `matrix` flagged by `eqx.error_if` when it is not unitary within `UNITARY_ATOL` (NaN included)."""
    if is_concrete(matrix):
        return matrix
    gap = jnp.max(jnp.abs(matrix.conj().T @ matrix - jnp.eye(matrix.shape[0], dtype=matrix.dtype)))
    message = f"{name} must be unitary (max |U†U − 1| <= {UNITARY_ATOL:g})"
    return eqx.error_if(matrix, ~(gap <= UNITARY_ATOL), message)
