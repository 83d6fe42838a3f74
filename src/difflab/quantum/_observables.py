r"""Expectation values computed from the split (real, imaginary) state without densifying operators.

For a ket, $\langle E\rangle = \psi^\dagger E \psi$; for a density matrix, $\langle E\rangle = \mathrm{tr}(E\rho)$.
Both cost one application of $E$ (a few multiply-adds per stored diagonal).
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, Complex, Float

from ._operator import Operator

__all__ = ["expect_dm", "expect_ket", "expect_state"]


def expect_ket(E: Operator, xr: Float[Array, " n"], xi: Float[Array, " n"]) -> Complex[Array, ""]:
    r"""$\langle\psi|E|\psi\rangle$ for $\psi = x_r + i x_i$."""
    vr, vi = E.apply(xr, xi)
    return jnp.vdot(xr, vr) + jnp.vdot(xi, vi) + 1j * (jnp.vdot(xr, vi) - jnp.vdot(xi, vr))


def expect_dm(E: Operator, R: Float[Array, "n n"], I: Float[Array, "n n"]) -> Complex[Array, ""]:
    r"""$\mathrm{tr}(E\rho)$ for $\rho = R + iI$."""
    mr, mi = E.apply(R, I)
    return jnp.trace(mr) + 1j * jnp.trace(mi)


def expect_state(E: Operator, y: dict[str, Array]) -> Complex[Array, ""]:
    """Expectation value of `E` in a model state (`psi_re/psi_im` or `rho_re/rho_im`)."""
    if "psi_re" in y:
        return expect_ket(E, y["psi_re"], y["psi_im"])
    return expect_dm(E, y["rho_re"], y["rho_im"])
