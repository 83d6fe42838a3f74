r"""`steadystate`: the stationary density matrix of the Lindblad equation, $\mathcal{L}\rho_\text{ss} = 0$.

$$ \mathcal{L}\rho = -i[H, \rho] + \sum_k \Big(L_k \rho L_k^\dagger - \tfrac12\{L_k^\dagger L_k, \rho\}\Big), \qquad
   \mathrm{tr}\,\rho_\text{ss} = 1. $$

$\mathrm{tr}\,\mathcal{L}\rho = 0$ for every $\rho$, so the equation for $\rho_{00}$ repeats the others; it is
replaced by the trace condition, which makes the system regular exactly when the steady state is unique (Nigro,
J. Stat. Mech. 043202 (2019), the "trace substitution" used by QuTiP's `steadystate(method="direct")`).

- `method="direct"`: the dense Liouvillian ($n^2 \times n^2$, columns stacked: $\mathrm{vec}(A\rho B) =
  (B^T \otimes A)\,\mathrm{vec}\,\rho$, as `mepropagator`) solved by LU; $O(n^6)$ time, $O(n^4)$ memory: n up to
  ~50. Its uniqueness is checked: a null space of dimension > 1 (no jump operators, or a decoherence-free subspace)
  is refused by name.
- `method="iterative"`: GMRES on the matrix-free map $\rho \mapsto \mathcal{L}\rho$ (dense $n \times n$ products,
  $O(n^3)$ per iteration, $O(n^2)$ memory) with the same trace substitution; for n in the hundreds.

Both go through `lineax.linear_solve`, so `jax.grad` of a function of $\rho_\text{ss}$ uses implicit
differentiation (one adjoint linear solve), not the iterations. Units: ħ = 1, `H` in rad per time unit, jump
operators $\sqrt{\gamma_k}\,A_k$ with $\gamma_k$ in 1/time unit ($\rho_\text{ss}$ does not depend on the unit).
QuTiP: `steadystate(H, c_ops, method=...)`; dynamiqs: none (0.3).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import lineax as lx
import numpy as np
from jaxtyping import Array, ArrayLike, Complex

from ..core.internal import is_concrete
from ._checks import check_finite, check_hermitian, check_same_dim
from ._complex import as_complex, complex_dtype
from ._operator import Operator, check_numeric
from ._qutip import from_qutip_arguments

METHODS = ("direct", "iterative")
#: The direct method's uniqueness test: the second-smallest singular value of the Liouvillian, relative to the
#: largest, below this means a second stationary state (float64 round-off leaves ~1e-15).
NULL_RTOL = 1e-10
#: Up to this many levels the direct method checks uniqueness with a singular value decomposition (n^2 x n^2).
SVD_MAX_LEVELS = 32


def liouvillian(H: Complex[ArrayLike, "n n"], jump_ops: Sequence[Complex[ArrayLike, "n n"]]) -> Complex[Array, "m m"]:
    r"""The dense Liouvillian ($n^2 \times n^2$) in the column-stacking convention (QuTiP's `liouvillian`)."""
    H, _, jump_ops, _ = from_qutip_arguments(H, None, list(jump_ops), ())
    H = as_complex(H)
    n = H.shape[0]
    eye = jnp.eye(n, dtype=H.dtype)
    L = -1j * (jnp.kron(eye, H) - jnp.kron(H.T, eye))
    for op in jump_ops:
        op = as_complex(op, H)
        n_op = jnp.conj(op).T @ op
        L = L + jnp.kron(jnp.conj(op), op) - 0.5 * (jnp.kron(eye, n_op) + jnp.kron(n_op.T, eye))
    return L


def steadystate(
    H: Complex[ArrayLike, "n n"] | Operator,
    jump_ops: Sequence,
    *,
    method: str = "direct",
    rtol: float = 1e-10,
    atol: float = 1e-12,
    max_steps: int | None = None,
) -> Complex[Array, "n n"]:
    r"""The unique steady state $\rho_\text{ss}$ of $\dot\rho = \mathcal{L}\rho$ (module docstring).

    Args:
        H: Hamiltonian (n, n), Hermitian, rad per time unit (array, `Operator` or QuTiP `Qobj`).
        jump_ops: jump operators $L_k = \sqrt{\gamma_k} A_k$ (n, n); at least one (without dissipation every
            eigenstate of H is stationary).
        method: "direct" (dense LU, checks uniqueness; n ≲ 50) or "iterative" (matrix-free GMRES; large n).
        rtol: GMRES's relative tolerance on the residual (iterative method only).
        atol: GMRES's absolute tolerance on the residual (iterative method only).
        max_steps: GMRES's iteration limit (iterative method; default lineax's, 10 n^2).

    Returns:
        $\rho_\text{ss}$ (n, n), trace 1, Hermitian up to round-off; differentiable with respect to `H` and the
        jump operators (implicit differentiation through `lineax`).
    """
    H, _, jump_ops, _ = from_qutip_arguments(H, None, jump_ops, ())
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    H, jumps = _checked(H, jump_ops)
    if method == "direct":
        return _direct(H, jumps)
    return _iterative(H, jumps, rtol, atol, max_steps)


def _checked(H, jump_ops) -> tuple[Array, list[Array]]:
    if isinstance(H, Operator):
        H = H.to_dense()
    check_numeric(H, "H", "a Hamiltonian: a numeric (n, n) array or an Operator")
    if np.ndim(H) != 2 or np.shape(H)[0] != np.shape(H)[1]:
        raise ValueError(f"H must be a square (n, n) Hamiltonian; got shape {np.shape(H)}")
    check_hermitian(H, "H")
    if isinstance(jump_ops, Operator) or (not isinstance(jump_ops, list | tuple) and np.ndim(jump_ops) == 2):
        raise TypeError("jump_ops must be a list of operators; got a single operator: pass [op]")
    if len(jump_ops) == 0:
        raise ValueError(
            "jump_ops must hold at least one jump operator: without dissipation every eigenstate of H is "
            "stationary, so there is no unique steady state"
        )
    n = np.shape(H)[0]
    jumps = []
    for k, L in enumerate(jump_ops):
        L = L.to_dense() if isinstance(L, Operator) else L
        check_same_dim(L, n, f"jump_ops[{k}]", "H")
        check_finite(L, f"jump_ops[{k}]")
        jumps.append(as_complex(L, H))
    return as_complex(H), jumps


def _direct(H: Array, jumps: list[Array]) -> Array:
    n = H.shape[0]
    L = liouvillian(H, jumps)
    if is_concrete(L) and n <= SVD_MAX_LEVELS:
        _check_unique(np.asarray(L))
    trace_row = jnp.eye(n, dtype=L.dtype).reshape(-1)  # vec(I): tr(rho) = vec(I) . vec(rho)
    A = L.at[0].set(trace_row)
    b = jnp.zeros(n * n, L.dtype).at[0].set(1.0)
    x = lx.linear_solve(lx.MatrixLinearOperator(A), b, solver=lx.LU()).value
    return _hermitian(x.reshape(n, n).T)


def _check_unique(L: np.ndarray) -> None:
    s = np.linalg.svd(L, compute_uv=False)  # descending
    if s[-2] <= NULL_RTOL * s[0]:
        dim = int(np.sum(s <= NULL_RTOL * s[0]))
        raise ValueError(
            f"the Liouvillian of H and jump_ops has a {dim}-dimensional null space: no unique steady state (a "
            "conserved quantity or a decoherence-free subspace); add dissipation that connects the whole space"
        )


def _iterative(H: Array, jumps: list[Array], rtol, atol, max_steps) -> Array:
    n = H.shape[0]
    G = -1j * H
    for op in jumps:
        G = G - 0.5 * (jnp.conj(op).T @ op)

    def apply(rho):
        out = G @ rho + rho @ jnp.conj(G).T
        for op in jumps:
            out = out + op @ rho @ jnp.conj(op).T
        return out.at[0, 0].set(jnp.trace(rho))  # the trace substitution (module docstring)

    structure = jax.ShapeDtypeStruct((n, n), complex_dtype(H))
    operator = lx.FunctionLinearOperator(apply, structure)
    b = jnp.zeros((n, n), complex_dtype(H)).at[0, 0].set(1.0)
    scale = 1.0 / _diagonal(H, jumps)
    jacobi = lx.FunctionLinearOperator(lambda rho: scale * rho, structure)
    solver = lx.GMRES(rtol=rtol, atol=atol, max_steps=max_steps, restart=min(n * n, 100), stagnation_iters=100)
    x = lx.linear_solve(operator, b, solver=solver, options={"preconditioner": jacobi}).value
    return _hermitian(x)


def _diagonal(H: Array, jumps: list[Array]) -> Array:
    r"""The diagonal of the trace-substituted Liouvillian as an (n, n) array: the Jacobi preconditioner's inverse.

    $\mathcal{L}_{(ij),(ij)} = -i(H_{ii} - H_{jj}) - \tfrac12(N_{ii} + N_{jj}) + \sum_k L_{k,ii}\,\overline{L_{k,jj}}$,
    $N = \sum_k L_k^\dagger L_k$; the trace row's entry is 1, and entries that vanish (an undamped level) are
    replaced by 1, which leaves them unpreconditioned.
    """
    h = jnp.diagonal(H)
    N = sum((jnp.conj(op).T @ op for op in jumps), jnp.zeros_like(H))
    diag = -1j * (h[:, None] - h[None, :]) - 0.5 * (jnp.diagonal(N)[:, None] + jnp.diagonal(N)[None, :])
    for op in jumps:
        d = jnp.diagonal(op)
        diag = diag + d[:, None] * jnp.conj(d)[None, :]
    diag = diag.at[0, 0].set(1.0)
    small = jnp.abs(diag) <= 1e-12 * jnp.max(jnp.abs(diag))
    return jax.lax.stop_gradient(jnp.where(small, jnp.ones_like(diag), diag))


def _hermitian(rho: Array) -> Array:
    """The Hermitian part, normalised to trace 1 (removes the solver's round-off asymmetry)."""
    rho = 0.5 * (rho + jnp.conj(rho).T)
    return rho / as_complex(jnp.trace(rho).real, rho)
