r"""Observables given as matrices on a few wires: `Hermitian(matrix, wires)` and `Projector(state, wires)`.

$\langle A\rangle = \langle\psi|A_w|\psi\rangle$ or $\mathrm{Tr}(A_w\rho)$, with $A$ (2ᵏ × 2ᵏ, first wire most
significant) acting on the wires $w$ and the identity elsewhere; computed by contraction on the wires' axes, never
as a 2ⁿ × 2ⁿ matrix. `Projector` takes a basis state as bits (one per wire: $|b\rangle\langle b|$) or a normalised
state vector $\phi$ of length 2ᵏ ($|\phi\rangle\langle\phi|$), as PennyLane's `Projector` does.
"""

from __future__ import annotations

import abc

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from .._checks import check_hermitian
from .._complex import as_complex
from ._apply import apply_matrix, as_wires, check_wire_matrix

#: Tolerance of the normalisation check of a projector's state vector.
OBSERVABLE_ATOL = 1e-8


class AbstractMatrixObservable(eqx.Module):
    """An observable with a dense `matrix()` (2ᵏ × 2ᵏ, Hermitian) on `wires`."""

    wires: eqx.AbstractVar[tuple[int, ...]]

    @abc.abstractmethod
    def matrix(self) -> Array:
        """The 2ᵏ × 2ᵏ Hermitian matrix on `wires` (first wire most significant)."""

    def expectation(self, state: Array) -> Array:
        r"""$\langle\psi|A|\psi\rangle$ (ket, shape (2ⁿ,)) or $\mathrm{Tr}(A\rho)$ (density matrix), real."""
        state = jnp.asarray(state)
        n = round(float(np.log2(max(state.shape[0], 1))))
        if state.shape not in ((2**n,), (2**n, 2**n)) or n < 1:
            raise ValueError(f"state must be a state vector (2ⁿ,) or a density matrix (2ⁿ, 2ⁿ); got {state.shape}")
        as_wires("observable.wires", self.wires, n)
        a = self.matrix().astype(state.dtype)
        if state.ndim == 1:
            applied = apply_matrix(state.reshape((2,) * n), a, list(self.wires)).reshape(-1)
            return jnp.real(jnp.vdot(state, applied))
        applied = apply_matrix(state.reshape((2,) * (2 * n)), a, list(self.wires)).reshape(state.shape)
        return jnp.real(jnp.trace(applied))


class Hermitian(AbstractMatrixObservable):
    """A Hermitian `matrix` (2ᵏ × 2ᵏ) on `wires`, checked as Hamiltonians are (concrete matrices, `check_hermitian`)."""

    matrix_: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, matrix: ArrayLike, wires):
        self.wires = as_wires("wires", wires)
        check_wire_matrix(matrix, self.wires)
        check_hermitian(matrix, "matrix")  # the package's one rule, as for Hamiltonians (concrete matrices)
        self.matrix_ = as_complex(matrix)

    def matrix(self) -> Array:
        return self.matrix_


class Projector(AbstractMatrixObservable):
    """The projector on a basis state (`state` = bits, one per wire) or on a state vector (length 2ᵏ) on `wires`."""

    vector: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, state: ArrayLike, wires):
        self.wires = as_wires("wires", wires)
        k = len(self.wires)
        s = np.asarray(state)
        if s.shape == (k,) and set(np.unique(s).tolist()) <= {0, 1}:
            vector = np.zeros(2**k, dtype=complex)
            vector[int("".join(str(int(b)) for b in s), 2)] = 1
        elif s.shape == (2**k,):
            vector = s.astype(complex)
            norm = float(np.linalg.norm(vector))
            if not abs(norm - 1) <= OBSERVABLE_ATOL:
                raise ValueError(f"state must be normalised when it is a state vector; got norm {norm:.12g}")
        else:
            raise ValueError(f"state must be {k} bits (0/1) or a state vector of length {2**k} for {k} wire(s); "
                             f"got {state!r}")  # fmt: skip
        self.vector = jnp.asarray(vector)

    def matrix(self) -> Array:
        return jnp.outer(self.vector, jnp.conj(self.vector))
