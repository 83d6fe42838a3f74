r"""The channel of piecewise-constant controls under Lindblad dissipation: an exact product of superoperators.

With $H_j' = H_0 + \sum_k u_{kj} H_k$ on slice $j$ (`PiecewiseControls`) and jump operators $L_k = \sqrt{\gamma_k}
A_k$, the Lindblad generator is constant on each slice,

$$ \mathcal{L}_j = -i[H_j', \cdot\,] + \sum_k \mathcal{D}[L_k], \qquad
   \mathcal{D}[L]\rho = L\rho L^\dagger - \tfrac12\{L^\dagger L, \rho\}, $$

so the channel over $[0, T]$ is the ordered product $S = e^{\mathcal{L}_{m-1}\Delta t_{m-1}} \cdots
e^{\mathcal{L}_0 \Delta t_0}$ of $n^2 \times n^2$ superoperators (columns stacked, `liouvillian`'s and
`mepropagator`'s convention), exact up to round-off and differentiable through `jax.scipy.linalg.expm`. The
dissipator does not depend on the controls and is built once. Units: ħ = 1, times in ns, $H_0$ and $u_{kj}$ in
rad/ns, $H_k$ dimensionless, rates $\gamma_k$ in 1/ns (jump operators in 1/sqrt(ns)). Reference: Breuer &
Petruccione, *The Theory of Open Quantum Systems*, §3.2; open-system GRAPE on this product: Schulte-Herbrüggen et
al., J. Phys. B 44, 154013 (2011).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex

from ._checks import check_finite
from ._operator import Operator, check_numeric
from ._piecewise_controls import PiecewiseControls, check_control_system, ordered_product, slice_hamiltonians
from ._qutip import from_qutip_arguments
from ._steadystate import liouvillian


def check_jump_operators(jump_ops, n: int) -> list[Array]:
    """The jump operators as complex (n, n) arrays; refuses a lone operator, a superoperator, a batch or NaN."""
    _, _, jump_ops, _ = from_qutip_arguments(np.zeros((n, n)), None, jump_ops, ())
    if isinstance(jump_ops, Operator) or not isinstance(jump_ops, list | tuple):
        raise TypeError(
            f"jump_ops must be a list of jump operators L_k = sqrt(rate_k) A_k, each ({n}, {n}); got "
            f"{type(jump_ops).__name__} of shape {np.shape(jump_ops)}: pass a single operator as [L]"
        )
    checked = []
    for k, L in enumerate(jump_ops):
        L = L.to_dense() if isinstance(L, Operator) else L
        check_numeric(L, f"jump_ops[{k}]", f"a jump operator: a numeric ({n}, {n}) array")
        shape = np.shape(L)
        if shape == (n * n, n * n) and n > 1:
            raise ValueError(
                f"jump_ops[{k}] has shape {shape}, that of a superoperator on {n} levels: pass the jump operator "
                f"L_k = sqrt(rate_k) A_k itself, shape ({n}, {n}), not its dissipator"
            )
        if shape != (n, n):
            raise ValueError(f"jump_ops[{k}] must be one jump operator of the shape of H0 ({n}, {n}); got {shape}")
        check_finite(L, f"jump_ops[{k}]")  # a NaN or infinite rate
        checked.append(jnp.asarray(L).astype(jnp.result_type(complex)))  # traced values stay traced
    return checked


def dissipator(jump_ops: Sequence[Array], n: int) -> Complex[Array, "m m"]:
    r"""$\sum_k \mathcal{D}[L_k]$ as an $n^2 \times n^2$ superoperator (columns stacked)."""
    return liouvillian(jnp.zeros((n, n), dtype=jnp.result_type(complex)), list(jump_ops))


def channel_of_slices(H0: Array, operators: Array, amplitudes: Array, dt: Array, dissipation: Array) -> Array:
    r"""$\prod_j e^{\mathcal{L}_j \Delta t_j}$ (latest slice on the left) for traced inputs: no checks, complex arrays.

    `dissipation` is `dissipator(jump_ops, n)`; the commutator part of each $\mathcal{L}_j$ is `liouvillian`'s.
    """
    hamiltonians = slice_hamiltonians(H0, operators, amplitudes)
    generators = jax.vmap(lambda H: liouvillian(H, []))(hamiltonians) + dissipation[None]
    factors = jax.vmap(jax.scipy.linalg.expm)(dt.astype(H0.dtype)[:, None, None] * generators)
    return ordered_product(factors)


def piecewise_channel(
    H0: Complex[ArrayLike, "n n"],
    operators: Sequence[Complex[ArrayLike, "n n"]],
    controls: PiecewiseControls,
    jump_ops: Sequence[Complex[ArrayLike, "n n"]],
) -> Complex[Array, "m m"]:
    r"""The superoperator $S$ ($n^2 \times n^2$) of $H_0 + \sum_k u_k(t) H_k$ and `jump_ops` under `controls`.

    Args:
        H0: drift Hamiltonian (n, n), rad/ns, Hermitian.
        operators: the control operators $H_k$ (n, n), dimensionless, Hermitian; one per row of `controls.amplitudes`.
        controls: a `PiecewiseControls` schedule.
        jump_ops: jump operators $L_k = \sqrt{\gamma_k} A_k$ (n, n), rates in 1/ns, as in `mesolve`.

    Returns:
        $S$ (module docstring), columns stacked: $\mathrm{vec}\,\rho(T) = S\,\mathrm{vec}\,\rho(0)$, as
        `mepropagator(...).propagators[-1]`; differentiable with respect to `H0`, the amplitudes and `jump_ops`.
    """
    H0c, ops = check_control_system(H0, operators)
    if ops.shape[0] != controls.amplitudes.shape[0]:
        raise ValueError(
            f"operators must hold one operator per control ({controls.amplitudes.shape[0]}); got {ops.shape[0]}"
        )
    jumps = check_jump_operators(jump_ops, H0c.shape[0])
    return _channel_of_slices(H0c, ops, controls.amplitudes, controls.dt, dissipator(jumps, H0c.shape[0]))


#: Compiled once per shape: eagerly, the m exponentials and the pairwise products would each dispatch on their own.
_channel_of_slices = jax.jit(channel_of_slices)
