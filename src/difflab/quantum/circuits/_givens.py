r"""Givens rotations of the quantum-chemistry ansätze: `SingleExcitation` (two wires), `DoubleExcitation` (four).

Both rotate one pair of basis states by $\theta/2$ and leave every other basis state alone, with PennyLane's signs:
$|a\rangle \to \cos\frac\theta2 |a\rangle + \sin\frac\theta2 |b\rangle$,
$|b\rangle \to \cos\frac\theta2 |b\rangle - \sin\frac\theta2 |a\rangle$, for $(a, b) = (01, 10)$ (single) and
$(0011, 1100)$ (double), first wire most significant. They conserve the number of 1s (electrons), and their inverse
is the rotation by $-\theta$. Reference: Arrazola et al., Quantum 6, 742 (2022).
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from .._complex import as_complex
from ._apply import as_wires
from ._gates import AbstractGate, as_angle


def _givens_parts(n_wires: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Constant parts (rest, cos, sin) with $G(\theta) = R + \cos\frac\theta2 C + \sin\frac\theta2 S$."""
    d = 2**n_wires
    cos = np.zeros((d, d), dtype=complex)
    cos[a, a] = cos[b, b] = 1
    sin = np.zeros((d, d), dtype=complex)
    sin[b, a], sin[a, b] = 1, -1
    return np.eye(d, dtype=complex) - cos, cos, sin


_SINGLE = _givens_parts(2, 0b01, 0b10)
_DOUBLE = _givens_parts(4, 0b0011, 0b1100)


def _givens_matrix(theta: Array, parts) -> Array:
    c, s = as_complex(jnp.cos(0.5 * theta)), as_complex(jnp.sin(0.5 * theta))
    rest, cos, sin = [jnp.asarray(m, dtype=c.dtype) for m in parts]
    return rest + c * cos + s * sin


class SingleExcitation(AbstractGate):
    r"""Givens rotation of $|01\rangle$ and $|10\rangle$ on two wires (PennyLane's `SingleExcitation`).

    Matrix in the basis $|00\rangle, |01\rangle, |10\rangle, |11\rangle$:
    $\begin{pmatrix}1&0&0&0\\0&c&-s&0\\0&s&c&0\\0&0&0&1\end{pmatrix}$, $c = \cos\frac\theta2$,
    $s = \sin\frac\theta2$; `theta` in radians.
    """

    theta: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, theta: ArrayLike, wires):
        self.theta = as_angle(theta, "theta")
        self.wires = as_wires("wires", wires)
        if len(self.wires) != 2:
            raise ValueError(f"wires of SingleExcitation must hold 2 wires; got {self.wires!r}")

    def matrix(self) -> Array:
        return _givens_matrix(self.theta, _SINGLE)

    def adjoint(self) -> SingleExcitation:
        return SingleExcitation(-self.theta, self.wires)


class DoubleExcitation(AbstractGate):
    r"""Givens rotation of $|0011\rangle$ and $|1100\rangle$ on four wires (identity elsewhere).

    $|0011\rangle \to \cos\frac\theta2 |0011\rangle + \sin\frac\theta2 |1100\rangle$,
    $|1100\rangle \to \cos\frac\theta2 |1100\rangle - \sin\frac\theta2 |0011\rangle$.

    Applied to the Hartree–Fock state $|1100\rangle$ it spans the exact two-electron singlet ground state of H₂ in a
    minimal basis (Jordan–Wigner). Reference: Arrazola et al., Quantum 6, 742 (2022).
    """

    theta: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, theta: ArrayLike, wires):
        self.theta = as_angle(theta, "theta")
        self.wires = as_wires("wires", wires)
        if len(self.wires) != 4:
            raise ValueError(f"wires of DoubleExcitation must hold 4 wires; got {self.wires!r}")

    def matrix(self) -> Array:
        return _givens_matrix(self.theta, _DOUBLE)

    def adjoint(self) -> DoubleExcitation:
        return DoubleExcitation(-self.theta, self.wires)
