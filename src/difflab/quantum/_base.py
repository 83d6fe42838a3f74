r"""What the Schrödinger and Lindblad models share.

They share a Hamiltonian with drives, its value at time t, the largest safe step, and an initial state.

$$ H(t) = H_0 + \sum_j u_j(t)\,H_j $$

in angular-frequency units (rad per time unit, $\hbar = 1$).
"""

from __future__ import annotations

import diffrax
import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from ..core.internal import AbstractModel, AbstractProtocol
from ._checks import check_hermitian, check_same_dim
from ._drives import Controls, Drive
from ._operator import Operator, model_operator
from ._pulses import feature_time


class AbstractQuantumModel(AbstractModel):
    r"""$H(t) = H_0 + \sum_j u_j(t) H_j$ (rad per time unit) acting on a state stored as [real, imaginary] parts."""

    H0: eqx.AbstractVar[Operator]
    drives: eqx.AbstractVar[tuple[Drive, ...]]
    y0: eqx.AbstractVar[dict[str, Array]]

    @property
    def dim(self) -> int:
        """Hilbert-space dimension n."""
        return self.H0.n

    def controls(self) -> Controls:
        """The drives' protocols as one protocol (pass it to `difflab.simulate` so pulse edges are honoured)."""
        return controls_of(self.drives)

    def hamiltonian(self, t: ArrayLike, args=None) -> Operator:
        """$H(t)$ as an `Operator` (rad per time unit)."""
        return hamiltonian_at(self.H0, self.drives, control_values(self.drives, args, t))

    def initial_state(self) -> dict[str, Array]:
        return dict(self.y0)

    def default_stepsize_controller(self):
        """PID at rtol 1e-6, atol 1e-8, with the maximum step set by the shortest pulse feature."""
        return default_controller(self.drives)


def convert_drives(H0, drives, *, layout: str = "auto") -> tuple[Operator, tuple[Drive, ...]]:
    """Check and convert `H0` and `drives` (Hermitian, matching dimensions)."""
    check_hermitian(H0, "H0")
    H0 = model_operator(H0, name="H0", layout=layout)
    if H0.n < 1:
        raise ValueError(f"H0 must act on at least one level; got shape {H0.shape}")
    return H0, convert_drive_list(drives, H0.n, reference="H0")


def convert_drive_list(drives, n: int, *, reference: str = "H") -> tuple[Drive, ...]:
    """Check drives: `Drive`s or `(protocol, operator)` pairs with Hermitian n×n operators."""
    if isinstance(drives, Drive):
        raise TypeError("drives must be a list of Drive terms; got a single Drive: pass [drive]")
    converted = []
    for j, drive in enumerate(drives):
        if not isinstance(drive, Drive):
            if isinstance(drive, tuple | list) and len(drive) == 2:
                drive = Drive(*drive)
            else:
                raise TypeError(f"drives[{j}] must be a Drive or a (protocol, operator) pair; got {drive!r}")
        check_same_dim(drive.operator, n, f"drives[{j}].operator", reference)
        check_hermitian(drive.operator, f"drives[{j}].operator")
        converted.append(drive)
    return tuple(converted)


def controls_of(drives: tuple[Drive, ...]) -> Controls:
    """The drives' protocols as one `Controls` protocol."""
    return Controls(*(d.protocol for d in drives))


def hamiltonian_at(H0: Operator, drives: tuple[Drive, ...], u: Float[Array, " drives"]) -> Operator:
    r"""$H_0 + \sum_j u_j H_j$ for the control values `u` (rad per time unit)."""
    H = H0
    for j, drive in enumerate(drives):
        H = H + u[j] * drive.operator
    return H


def control_values(drives: tuple[Drive, ...], args, t) -> Float[Array, " drives"]:
    """Control values at `t`: from `args` when a protocol is passed to `simulate`, else from the drives."""
    if not drives:
        return jnp.zeros((0,))
    protocol = args if isinstance(args, AbstractProtocol) else controls_of(drives)
    return jnp.reshape(protocol(t), (len(drives),))


def default_controller(drives: tuple[Drive, ...]) -> diffrax.PIDController:
    """The quantum models' default step-size control: PID at rtol 1e-6, atol 1e-8, maximum step `max_step(drives)`."""
    return diffrax.PIDController(rtol=1e-6, atol=1e-8, dtmax=max_step(drives))


def max_step(drives: tuple[Drive, ...]) -> float | None:
    """Half the shortest feature of any drive (time units), or `None` when no drive has one."""
    shortest = min((feature_time(d.protocol) for d in drives), default=np.inf)
    return None if not np.isfinite(shortest) else 0.5 * shortest
