r"""`LindbladModel`: open-system evolution of a density matrix (GKSL master equation).

$$ \frac{d\rho}{dt} = -i[H(t), \rho] + \sum_k \Big(L_k \rho L_k^\dagger - \tfrac12\{L_k^\dagger L_k, \rho\}\Big) $$

($\hbar = 1$; time in `time_units`; $H$ in rad per time unit; $L_k = \sqrt{\gamma_k}\,A_k$ with rates $\gamma_k$ in
1/time unit). The superoperator ($n^2 \times n^2$) is never built. With $G = -iH - \tfrac12\sum_k L_k^\dagger L_k$,

$$ \frac{d\rho}{dt} = G\rho + \rho G^\dagger + \sum_k L_k\,\rho\,L_k^\dagger, $$

row and column operations with diagonal-sparse operators (shifted, scaled copies of $\rho$; no transpose), on the
real and imaginary parts of $\rho$ stacked in one real array `rho` of shape (2, n, n). Reference: Breuer &
Petruccione, *The Theory of Open Quantum Systems*, §3.2; Lindblad, Commun. Math. Phys. 48, 119 (1976).
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Complex, Shaped

from ..core.internal import StateInfo
from ._base import AbstractQuantumModel, convert_drives
from ._checks import check_density, check_finite, check_ket, check_same_dim, check_time_units
from ._drives import Drive
from ._operator import Operator, check_numeric, model_operator
from ._schrodinger import split_state


class LindbladModel(AbstractQuantumModel):
    r"""Driven open quantum system (Lindblad master equation, see module docstring).

    Args:
        H0: static Hamiltonian (n×n Hermitian array or `Operator`), rad per time unit.
        drives: `Drive(protocol, operator)` terms (or `(protocol, operator)` pairs).
        jump_ops: jump operators $L_k$ (n×n, $\sqrt{\text{rate}}$ included: units 1/sqrt(time unit)).
        rho0: default initial density matrix (n×n, Hermitian, trace 1); a ket (n,) becomes
            $|\psi\rangle\langle\psi|$; default $|0\rangle\langle 0|$ (`basis(n, 0)`).
        time_units: "ns" or "us"; frequencies in rad per this unit.
        layout: operator storage, "auto", "dia" or "dense".
    """

    H0: Operator
    drives: tuple[Drive, ...]
    jump_ops: tuple[Operator, ...]
    y0: dict[str, Array]
    # equinox lets a field implement the AbstractClassVar `time_units` (mypy reads it as a plain ClassVar)
    time_units: str = eqx.field(static=True)  # type: ignore[misc]
    states = (StateInfo("rho", "1", "density matrix as [real part, imaginary part]"),)

    def __init__(
        self,
        H0: Complex[ArrayLike, "n n"] | Operator,
        drives=(),
        jump_ops=(),
        *,
        rho0: Shaped[ArrayLike, "n n"] | Shaped[ArrayLike, " n"] | None = None,
        time_units: str = "ns",
        layout: str = "auto",
    ):
        self.H0, self.drives = convert_drives(H0, drives, layout=layout)
        n = self.H0.n
        ops = []
        for k, op in enumerate(jump_ops):
            check_same_dim(op, n, f"jump_ops[{k}]", "H0")
            check_finite(op, f"jump_ops[{k}]")
            ops.append(model_operator(op, name=f"jump_ops[{k}]", layout=layout))
        self.jump_ops = tuple(ops)
        self.y0 = split_state(as_density(rho0, n), "rho")
        self.time_units = check_time_units(time_units)

    def vector_field(self, t, y, args):
        G = self.hamiltonian(t, args).times_minus_i()
        for L in self.jump_ops:
            G = G + (-0.5) * (L.dag() @ L)
        x = y["rho"]
        out = G.apply(x) + G.apply_dag_right(x)
        for L in self.jump_ops:
            out = out + L.apply(L.apply_dag_right(x))
        return {"rho": out}


def as_density(rho0, n: int, name: str = "rho0") -> Complex[Array, "n n"]:
    """A checked density matrix from `rho0` (n×n, or a ket (n,) turned into a projector); default |0><0|."""
    if rho0 is None:
        return jnp.zeros((n, n), complex).at[0, 0].set(1.0)
    check_numeric(rho0, name, f"a density matrix ({n}, {n}) or a ket ({n},)")
    rho0 = jnp.asarray(rho0, dtype=complex)
    if rho0.shape == (n, 1) and n > 1:  # a column ket
        rho0 = rho0[:, 0]
    if rho0.ndim == 1:
        check_ket(rho0, n, name)
        return jnp.outer(rho0, jnp.conj(rho0))
    check_density(rho0, n, name)
    return rho0
