r"""The general one-qubit gate `U3(theta, phi, lam)` of OpenQASM and Qiskit (`U`, `u3`; PennyLane's `U3`).

$$U_3(\theta, \phi, \lambda) = \begin{pmatrix} \cos\frac\theta2 & -e^{i\lambda}\sin\frac\theta2 \\
e^{i\phi}\sin\frac\theta2 & e^{i(\phi+\lambda)}\cos\frac\theta2 \end{pmatrix}
= e^{i(\phi+\lambda)/2}\, R_Z(\phi)\, R_Y(\theta)\, R_Z(\lambda),$$

angles in radians. PennyLane's `Rot(φ, θ, ω)` = $R_Z(\omega) R_Y(\theta) R_Z(\phi)$ is the same rotation with another
global phase: $\mathrm{Rot}(\phi, \theta, \omega) = e^{-i(\phi+\omega)/2}\, U_3(\theta, \omega, \phi)$.
The inverse is $U_3(\theta, \phi, \lambda)^\dagger = U_3(-\theta, -\lambda, -\phi)$. Special cases: OpenQASM's
$u_2(\phi, \lambda) = U_3(\pi/2, \phi, \lambda)$ and $u_1(\lambda) = p(\lambda) = U_3(0, 0, \lambda)$.
Reference: Cross et al., "Open Quantum Assembly Language", arXiv:1707.03429 (2017), eq. (2).
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

from .._complex import as_complex
from ._apply import as_wires
from ._gates import AbstractGate, as_angle


class U3(AbstractGate):
    """Qiskit's U / u3 gate on one `wire`; `theta`, `phi`, `lam` in radians (see the module docstring)."""

    theta: Array
    phi: Array
    lam: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, theta: ArrayLike, phi: ArrayLike, lam: ArrayLike, wire: int):
        self.theta, self.phi, self.lam = as_angle(theta, "theta"), as_angle(phi, "phi"), as_angle(lam, "lam")
        self.wires = as_wires("wire", wire)
        if len(self.wires) != 1:
            raise ValueError(f"wire must be a single wire; got {self.wires!r}")

    def matrix(self) -> Array:
        c, s = as_complex(jnp.cos(0.5 * self.theta)), as_complex(jnp.sin(0.5 * self.theta))
        e_phi, e_lam = jnp.exp(1j * as_complex(self.phi)), jnp.exp(1j * as_complex(self.lam))
        return jnp.stack([jnp.stack([c, -e_lam * s]), jnp.stack([e_phi * s, e_phi * e_lam * c])])

    def adjoint(self) -> U3:
        return U3(-self.theta, -self.lam, -self.phi, self.wires[0])
