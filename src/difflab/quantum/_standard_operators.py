r"""Standard operators as plain dense JAX arrays.

Conventions follow QuTiP and dynamiqs: a qubit's excited state is $|e\rangle = (1, 0)^T$ and its ground state
$|g\rangle = (0, 1)^T$, so $\sigma_z = |e\rangle\langle e| - |g\rangle\langle g|$, $\sigma_- = |g\rangle\langle e|$.
Operators are dimensionless; a Hamiltonian is built as (angular frequency) $\times$ (operator) with $\hbar = 1$, the
angular frequency in rad per time unit (rad/ns when times are in ns, rad/µs when times are in µs).

Every function returns a complex array of the default complex dtype (complex128 once `difflab` is imported).
"""

from __future__ import annotations

import functools
import numbers

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, Complex


def _constant(fn):
    """Evaluate eagerly when the inputs are concrete.

    Operators built inside `jax.jit` then stay concrete (their sparsity can then be read by `dia`/`as_operator`).
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with jax.ensure_compile_time_eval():
            return fn(*args, **kwargs)

    return wrapper


def _dtype():
    return jnp.result_type(complex)


def _check_dim(dim: int, name: str = "dim") -> int:
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 1:
        raise ValueError(f"{name} must be a positive integer; got {dim!r}")
    return int(dim)  # a NumPy integer too (a size read from data), as a Python int for the static shapes


@_constant
def sigmax() -> Complex[Array, "2 2"]:
    r"""Pauli $\sigma_x = |e\rangle\langle g| + |g\rangle\langle e|$ (dimensionless, 2×2)."""
    return jnp.array([[0, 1], [1, 0]], dtype=_dtype())


@_constant
def sigmay() -> Complex[Array, "2 2"]:
    r"""Pauli $\sigma_y = [[0, -i], [i, 0]]$ in the basis $(|e\rangle, |g\rangle)$ (dimensionless, 2×2)."""
    return jnp.array([[0, -1j], [1j, 0]], dtype=_dtype())


@_constant
def sigmaz() -> Complex[Array, "2 2"]:
    r"""Pauli $\sigma_z = |e\rangle\langle e| - |g\rangle\langle g|$ (dimensionless, 2×2)."""
    return jnp.array([[1, 0], [0, -1]], dtype=_dtype())


@_constant
def sigmam() -> Complex[Array, "2 2"]:
    r"""Lowering operator $\sigma_- = |g\rangle\langle e|$ (dimensionless, 2×2); $\sigma_-|e\rangle = |g\rangle$."""
    return jnp.array([[0, 0], [1, 0]], dtype=_dtype())


@_constant
def sigmap() -> Complex[Array, "2 2"]:
    r"""Raising operator $\sigma_+ = |e\rangle\langle g| = \sigma_-^\dagger$ (dimensionless, 2×2)."""
    return jnp.array([[0, 1], [0, 0]], dtype=_dtype())


@_constant
def destroy(dim: int) -> Complex[Array, "dim dim"]:
    r"""Truncated annihilation operator $a$ on Fock states $|0\rangle \dots |dim-1\rangle$.

    $a|n\rangle = \sqrt{n}\,|n-1\rangle$, i.e. $a_{n-1,n} = \sqrt{n}$ (first superdiagonal). Dimensionless.
    """
    dim = _check_dim(dim)
    return jnp.diag(jnp.sqrt(jnp.arange(1, dim, dtype=float)), k=1).astype(_dtype())


@_constant
def create(dim: int) -> Complex[Array, "dim dim"]:
    r"""Truncated creation operator $a^\dagger$, $a^\dagger|n\rangle = \sqrt{n+1}\,|n+1\rangle$ for $n < dim-1$."""
    return destroy(dim).T


@_constant
def number(dim: int) -> Complex[Array, "dim dim"]:
    r"""Number operator $a^\dagger a = \mathrm{diag}(0, 1, \dots, dim-1)$ (dimensionless)."""
    dim = _check_dim(dim)
    return jnp.diag(jnp.arange(dim, dtype=float)).astype(_dtype())


@_constant
def eye(dim: int) -> Complex[Array, "dim dim"]:
    r"""Identity operator $I_{dim}$."""
    return jnp.eye(_check_dim(dim), dtype=_dtype())


@_constant
def tensor(*operators: Complex[Array, "..."]) -> Complex[Array, "..."]:
    r"""Kronecker product $A_1 \otimes A_2 \otimes \dots$ of operators (matrices) or kets (vectors).

    The first factor is the most significant index (QuTiP order): `tensor(sigmam(), eye(N))` acts on the qubit of a
    qubit ⊗ cavity space. All factors must have the same rank (all matrices or all vectors).
    """
    if not operators:
        raise ValueError("tensor needs at least one operator")
    for i, op in enumerate(operators):
        if not isinstance(op, jax.core.Tracer) and not np.issubdtype(np.asarray(op).dtype, np.number):
            raise TypeError(f"tensor factor {i} must be a numeric matrix or vector; got {type(op).__name__} {op!r:.60}")
    ops = [jnp.asarray(op) for op in operators]
    ranks = {op.ndim for op in ops}
    if len(ranks) != 1 or ranks.pop() not in (1, 2):
        shapes = [op.shape for op in ops]
        raise ValueError(f"tensor factors must all be vectors or all be matrices; got shapes {shapes}")
    return functools.reduce(jnp.kron, ops)
