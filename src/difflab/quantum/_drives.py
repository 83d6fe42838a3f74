r"""Drives: a protocol (a scalar function of time) times an operator, $u_j(t)\,H_j$.

The Hamiltonian of a driven system is

$$ H(t) = H_0 + \sum_j u_j(t)\,H_j, $$

with $u_j$ in rad per time unit ($\hbar = 1$; rad/ns when times are in ns) and $H_j$ a dimensionless Hermitian
operator (e.g. $\sigma_x/2$ for a Rabi drive, so that $u = \Omega$ is the Rabi angular frequency).
`Controls` gathers the protocols of all drives into one protocol returning the vector $(u_j(t))_j$; it is what a
model receives as `args` from `difflab.simulate`, and it reports every drive's jump times to the step-size controller.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Complex, Float

from ..core.internal import AbstractProtocol, Constant, is_concrete
from ._checks import check_finite
from ._operator import Operator, check_numeric, model_operator


class Drive(eqx.Module):
    r"""One drive term $u(t)\,H_j$: `protocol` (rad per time unit) times `operator` (dimensionless, Hermitian).

    A number is accepted as `protocol` and becomes `difflab.Constant(number)`.
    """

    protocol: AbstractProtocol
    operator: Operator

    def __init__(self, protocol: AbstractProtocol | ArrayLike, operator: Complex[Array, "n n"] | Operator):
        if not isinstance(protocol, AbstractProtocol):
            if is_concrete(protocol):
                check_numeric(protocol, "Drive.protocol", "a difflab protocol or a number (rad per time unit)")
                check_finite(protocol, "Drive.protocol")
            protocol = Constant(protocol)
        self.protocol = protocol
        check_finite(operator, "Drive.operator")  # before the layout detection, which would drop a NaN entry
        self.operator = model_operator(operator, name="Drive.operator")


class Controls(AbstractProtocol):
    """All drive protocols at once: `controls(t)` is the vector of their values (rad per time unit)."""

    protocols: tuple[AbstractProtocol, ...]

    def __init__(self, *protocols: AbstractProtocol):
        for i, p in enumerate(protocols):
            if not isinstance(p, AbstractProtocol):
                raise TypeError(f"protocols[{i}] must be a difflab protocol; got {type(p).__name__}")
        self.protocols = tuple(protocols)

    def __call__(self, t: ArrayLike) -> Float[Array, " drives"]:
        if not self.protocols:
            return jnp.zeros((0,))
        return jnp.stack([jnp.asarray(p(t), dtype=float).reshape(()) for p in self.protocols])

    def jump_times(self) -> Float[Array, " jumps"]:
        if not self.protocols:
            return jnp.zeros((0,))
        return jnp.concatenate([jnp.ravel(p.jump_times()) for p in self.protocols])
