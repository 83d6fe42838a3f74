r"""`SchrodingerModel`: closed-system evolution of a state vector.

$$ i\,\frac{d\psi}{dt} = H(t)\,\psi, \qquad H(t) = H_0 + \sum_j u_j(t)\,H_j \quad (\hbar = 1), $$

with time in the model's `time_units` (ns or µs) and $H$ in rad per time unit. The state is stored as its real and
imaginary parts stacked in one real array `psi` of shape (2, n), so the solver works on real arrays and $-iH\psi$
costs a few real multiply-adds per stored diagonal of $H$ (see `Operator`). Reference: Nielsen & Chuang, *Quantum
Computation and Quantum Information*, §2.2.2.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex

from ..core.internal import StateInfo, is_concrete
from ._base import AbstractQuantumModel, convert_drives
from ._checks import check_ket, check_time_units
from ._drives import Drive
from ._operator import Operator


class SchrodingerModel(AbstractQuantumModel):
    r"""Driven closed quantum system $i\dot\psi = (H_0 + \sum_j u_j(t) H_j)\psi$.

    Args:
        H0: static Hamiltonian (n×n Hermitian array or `Operator`), rad per time unit.
        drives: `Drive(protocol, operator)` terms (or `(protocol, operator)` pairs).
        psi0: default initial ket (n,), unit norm; default the first basis state `basis(n, 0)`.
        time_units: time unit of the model ("ns" or "us"); frequencies are in rad per this unit.
        layout: operator storage, "auto" (diagonal-sparse when it pays), "dia" or "dense".
    """

    H0: Operator
    drives: tuple[Drive, ...]
    y0: dict[str, Array]
    # equinox lets a field implement the AbstractClassVar `time_units` (mypy reads it as a plain ClassVar)
    time_units: str = eqx.field(static=True)  # type: ignore[misc]
    states = (StateInfo("psi", "1", "state vector as [real part, imaginary part]"),)

    def __init__(
        self,
        H0: Complex[ArrayLike, "n n"] | Operator,
        drives=(),
        *,
        psi0: Complex[ArrayLike, " n"] | None = None,
        time_units: str = "ns",
        layout: str = "auto",
    ):
        self.H0, self.drives = convert_drives(H0, drives, layout=layout)
        n = self.H0.n
        if psi0 is None:
            psi0 = jnp.zeros(n, complex).at[0].set(1.0)
        elif jnp.shape(psi0) == (n, 1) and n > 1:  # a column ket
            psi0 = jnp.asarray(psi0)[:, 0]
        check_ket(psi0, n, "psi0")
        self.y0 = split_state(psi0, "psi")
        self.time_units = check_time_units(time_units)

    def vector_field(self, t, y, args):
        generator = self.hamiltonian(t, args).times_minus_i()
        return {"psi": generator.apply(y["psi"])}


def split_state(x: Complex[ArrayLike, "..."], name: str = "psi") -> dict[str, Array]:
    """`{name: [Re x, Im x]}` (stacked on a new axis after any batch axes; complex arrays never reach the solver)."""
    x = np.asarray(x) if is_concrete(x) else x
    xp = np if isinstance(x, np.ndarray) else jnp
    batch = xp.ndim(x) - (1 if name == "psi" else 2)
    return {name: jnp.asarray(xp.stack([xp.real(x), xp.imag(x)], axis=batch)).astype(float)}
