r"""Expectation values computed from the split (real, imaginary) state without densifying operators.

For a ket, $\langle E\rangle = \psi^\dagger E \psi$; for a density matrix, $\langle E\rangle = \mathrm{tr}(E\rho)$.
A ket costs one application of $E$; a density matrix only a gather of the diagonals of $\rho$ that meet the stored
diagonals of $E$ ($\mathrm{tr}(E\rho) = \sum_k \sum_i (e_k)_i\,\rho_{i+k,i}$), never the product $E\rho$.
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, Float

from ._operator import Operator


def expect_ket(E: Operator, x: Float[Array, "2 n"]) -> Float[Array, "2"]:
    r"""$[\mathrm{Re}, \mathrm{Im}]\,\langle\psi|E|\psi\rangle$ for $\psi$ stacked as `x = [Re ψ, Im ψ]`."""
    v = E.apply(x)
    return jnp.stack([jnp.vdot(x[0], v[0]) + jnp.vdot(x[1], v[1]), jnp.vdot(x[0], v[1]) - jnp.vdot(x[1], v[0])])


def expect_dm(E: Operator, x: Float[Array, "2 n n"]) -> Float[Array, "2"]:
    r"""$[\mathrm{Re}, \mathrm{Im}]\,\mathrm{tr}(E\rho)$ for $\rho$ stacked as `x = [Re ρ, Im ρ]`."""
    return E.trace_with(x)


def expect_state(E: Operator, y: dict[str, Array]) -> Float[Array, "2"]:
    """Real and imaginary parts of the expectation value of `E` in a model state (`psi` or `rho`)."""
    if "psi" in y:
        return expect_ket(E, y["psi"])
    return expect_dm(E, y["rho"])
