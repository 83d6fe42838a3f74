"""What the Schrödinger and Lindblad models share: a Hamiltonian with drives and an initial state."""

from __future__ import annotations

import diffrax
import equinox as eqx
from jaxtyping import Array, ArrayLike

from .._model import AbstractModel
from ._drives import Controls, Drive
from ._hamiltonian import control_values, controls_of, hamiltonian_at, max_step
from ._operator import Operator


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
        return diffrax.PIDController(rtol=1e-6, atol=1e-8, dtmax=max_step(self.drives))
