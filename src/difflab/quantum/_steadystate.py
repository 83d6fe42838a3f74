r"""`steadystate`: the stationary density matrix of the Lindblad equation, $\mathcal{L}\rho_\text{ss} = 0$.

$$ \mathcal{L}\rho = -i[H, \rho] + \sum_k \Big(L_k \rho L_k^\dagger - \tfrac12\{L_k^\dagger L_k, \rho\}\Big), \qquad
   \mathrm{tr}\,\rho_\text{ss} = 1. $$

$\mathrm{tr}\,\mathcal{L}\rho = 0$ for every $\rho$, so the equation for $\rho_{00}$ repeats the others; it is
replaced by the trace condition, which makes the system regular exactly when the steady state is unique (Nigro,
J. Stat. Mech. 043202 (2019), the "trace substitution" used by QuTiP's `steadystate(method="direct")`).

- `method="direct"`: the dense Liouvillian ($n^2 \times n^2$, columns stacked: $\mathrm{vec}(A\rho B) =
  (B^T \otimes A)\,\mathrm{vec}\,\rho$, as `mepropagator`) solved by LU; $O(n^6)$ time, $O(n^4)$ memory: n up to
  ~50.
- `method="auto"` (the default): direct up to 16 levels, iterative above (both take milliseconds at 16 levels; at
  40 the direct method takes a second, the iterative one 0.02 s).
- `method="iterative"`: GMRES on the matrix-free map $\rho \mapsto \mathcal{L}\rho$ (dense $n \times n$ products,
  $O(n^3)$ per iteration, $O(n^2)$ memory) with the same trace substitution; for n in the hundreds. It is
  preconditioned by the exact inverse of the Liouvillian without the jumps' feeding terms,
  $\mathcal{K}\rho = G\rho + \rho G^\dagger$ with $G = -iH - \tfrac12\sum_k L_k^\dagger L_k$: in the eigenbasis of
  $G = V D V^{-1}$ this Lyapunov map is diagonal, $\mathcal{K}^{-1}Y = V\,[\tilde Y_{ij} / (d_i + \bar d_j)]\,V^\dagger$
  with $\tilde Y = V^{-1} Y V^{-\dagger}$ ($O(n^3)$ per application). Only the jumps' feeding terms
  $\mathcal{K}^{-1}\sum_k L_k \cdot L_k^\dagger$ are left to GMRES, which then needs tens of iterations where a
  diagonal (Jacobi) preconditioner needed thousands (benchmarks/README.md). An eigenbasis too ill-conditioned to
  use ($\kappa(V) > 10^8$, a nearly defective $G$) falls back to the diagonal preconditioner: slower, as exact.
  A cascade that must carry population down many levels (a state spread over all of a large Fock space) still
  takes about one iteration per level.

Uniqueness. A second stationary state (a conserved quantity, a decoherence-free subspace) makes the system
singular but consistent: the direct method would divide by round-off and GMRES would end at one of the stationary
states, both silently. Up to n = 32 the Liouvillian's singular values decide, for either method: a null space of
dimension > 1 is refused by name. Above, `check_unique=True` adds a probe: a weak depolarising channel
$\epsilon(\mathrm{tr}(\rho) I/n - \rho)$ at $\epsilon = 10^{-6}\max|G|$ and at a tenth of it makes the state unique.
It moves a unique state by $O(\epsilon/\text{gap})$, ten times less at the smaller rate; of several stationary states
it picks its own mixture, the same at both rates (or GMRES cannot resolve the near-null mode and stagnates, which is
reported as a warning). The state is refused when it moved by less than 3 times more at the larger rate. Judged by
size alone (moved by more than a tolerance), a unique state with a small gap beside a large max|G| would be
refused: a 100-level Kerr oscillator at κ = 0.01 moves by 2e-4 at $10^{-8}\max|G|$.

Both go through `lineax.linear_solve`, so `jax.grad` of a function of $\rho_\text{ss}$ uses implicit
differentiation (one adjoint linear solve), not the iterations. Units: ħ = 1, `H` in rad per time unit, jump
operators $\sqrt{\gamma_k}\,A_k$ with $\gamma_k$ in 1/time unit ($\rho_\text{ss}$ does not depend on the unit).
QuTiP: `steadystate(H, c_ops, method=...)`; dynamiqs: none (0.3).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence

import equinox as eqx
import jax
import jax.numpy as jnp
import lineax as lx
import numpy as np
from jaxtyping import Array, ArrayLike, Complex

from ..core.internal import is_concrete
from ._checks import check_finite, check_hermitian, check_same_dim
from ._complex import as_complex
from ._operator import Operator, check_numeric
from ._qutip import from_qutip_arguments

METHODS = ("auto", "direct", "iterative")
#: `method="auto"` solves up to this many levels directly, above it iteratively (the dense Liouvillian of n levels
#: holds n^4 entries: 1.6 GB at n = 100, where the iterative method takes a quarter of a second).
AUTO_DIRECT_MAX_LEVELS = 16
#: The direct method's uniqueness test: the second-smallest singular value of the Liouvillian, relative to the
#: largest, below this means a second stationary state (float64 round-off leaves ~1e-15).
NULL_RTOL = 1e-10
#: Up to this many levels the direct method checks uniqueness with a singular value decomposition (n^2 x n^2).
SVD_MAX_LEVELS = 32
NOT_UNIQUE = (
    "the Liouvillian of H and jump_ops has no unique steady state: a depolarising rate of 1e-6 of its scale moves "
    "the solution by an amount that does not shrink with the rate (a conserved quantity, a decoherence-free "
    "subspace, or a metastable manifold decaying slower than that rate); add dissipation that connects the whole "
    "space"
)
NOT_CONVERGED = (
    "GMRES (steadystate's iterative method) did not reach rtol/atol within max_steps (or it stagnated); raise "
    "max_steps, or use method='direct' (n up to about 50)"
)
NOT_CONFIRMED = (
    "steadystate: the uniqueness probe (GMRES on the Liouvillian plus a depolarising rate of 1e-6 of its scale) did "
    "not converge, which happens when a second stationary state or a metastable manifold exists; the state "
    "returned is one stationary state. Check it with mesolve to long times"
)
#: The uniqueness probe's depolarising rate, relative to the largest entry of G (and a tenth of it).
DEPOLARISING_PROBE = 1e-6
#: The probe calls the state not unique when it moved by more than this many rtol at the smaller rate, and by less
#: than this ratio more at the rate ten times larger (a unique state moves ten times more; a choice, as much).
PROBE_FLOOR_RTOLS = 1e3
PROBE_LINEAR_RATIO = 3.0
#: GMRES's restart length (Krylov vectors kept, each n x n) in the iterative method, and in the uniqueness probe.
GMRES_RESTART = 50
PROBE_RESTART = 100
#: The largest condition number of G's eigenbasis that the iterative method's preconditioner uses.
MAX_EIGENBASIS_COND = 1e8


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
    method: str = "auto",
    rtol: float = 1e-10,
    atol: float = 1e-12,
    max_steps: int | None = None,
    check_unique: bool | None = None,
) -> Complex[Array, "n n"]:
    r"""The unique steady state $\rho_\text{ss}$ of $\dot\rho = \mathcal{L}\rho$ (module docstring).

    Args:
        H: Hamiltonian (n, n), Hermitian, rad per time unit (array, `Operator` or QuTiP `Qobj`).
        jump_ops: jump operators $L_k = \sqrt{\gamma_k} A_k$ (n, n); at least one (without dissipation every
            eigenstate of H is stationary).
        method: "direct" (dense LU of the n² × n² Liouvillian; n ≲ 50), "iterative" (preconditioned matrix-free
            GMRES; large n), or "auto" (the default): direct up to 16 levels, iterative above.
        rtol: GMRES's relative tolerance on the residual (iterative method only).
        atol: GMRES's absolute tolerance on the residual (iterative method only).
        max_steps: GMRES's iteration limit (iterative method; default lineax's, 10 n^2).
        check_unique: refuse a Liouvillian with more than one stationary state. None (the default): exactly, from
            its singular values, where n ≤ 32 and the operators are concrete (either method; O(n^6)), not
            otherwise. True: otherwise too, by a probe (module docstring) that costs one more GMRES solve, often
            several times the first; a probe that does not converge (a metastable manifold) gives a
            `RuntimeWarning`. False: no check.

    Returns:
        $\rho_\text{ss}$ (n, n), trace 1, Hermitian up to round-off; differentiable with respect to `H` and the
        jump operators (implicit differentiation through `lineax`).
    """
    H, _, jump_ops, _ = from_qutip_arguments(H, None, jump_ops, ())
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    H, jumps = _checked(H, jump_ops)
    if check_unique not in (None, True, False):
        raise TypeError(f"check_unique must be None, True or False; got {check_unique!r}")
    decided_by_svd = H.shape[0] <= SVD_MAX_LEVELS and is_concrete(H, jumps)
    if decided_by_svd and check_unique is not False:
        _check_unique(np.asarray(liouvillian(H, jumps)))
    if method == "auto":
        method = "direct" if H.shape[0] <= AUTO_DIRECT_MAX_LEVELS else "iterative"
    if method == "direct":
        rho = _direct(H, jumps)
    else:
        rho, converged = _iterative(H, jumps, rtol, atol, max_steps)
        rho = _raise_unless(rho, converged, RuntimeError, NOT_CONVERGED)
    if check_unique is not True or decided_by_svd:
        return rho
    strong, weak, converged = _probe(H, jumps, rtol, atol, max_steps)
    moved, moved_less = jnp.max(jnp.abs(rho - strong)), jnp.max(jnp.abs(rho - weak))
    # a unique state moves in proportion to the rate (10x less at a tenth of it); a choice among stationary states
    # does not shrink with the rate
    distinct = converged & (moved_less > PROBE_FLOOR_RTOLS * rtol) & (moved < PROBE_LINEAR_RATIO * moved_less)
    if is_concrete(distinct):
        _warn_unconfirmed(~converged)
        if distinct:
            raise ValueError(
                f"{NOT_UNIQUE} (moved by {float(moved):.2g} at the rate, {float(moved_less):.2g} at a tenth of it)"
            )
        return rho
    jax.debug.callback(_warn_unconfirmed, ~converged)
    return eqx.error_if(rho, distinct, NOT_UNIQUE)


def _raise_unless(x: Array, ok: Array, error: type[Exception], message: str) -> Array:
    """`x`, after raising `error(message)` when `ok` is False (concrete) or flagging it in the program (traced)."""
    if not is_concrete(ok):
        return eqx.error_if(x, ~ok, message)
    if not ok:
        raise error(message)
    return x


def _warn_unconfirmed(unconfirmed) -> None:
    if unconfirmed:
        warnings.warn(NOT_CONFIRMED, RuntimeWarning, stacklevel=3)


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


@functools.partial(jax.jit, static_argnames=("rtol", "atol", "max_steps"))  # one compilation per shape, not per call
def _iterative(H: Array, jumps: list[Array], rtol, atol, max_steps) -> tuple[Array, Array]:
    """The steady state by preconditioned GMRES, and whether GMRES converged."""
    solution = _gmres(_trace_substituted(H, jumps), H, jumps, rtol, atol, max_steps, GMRES_RESTART)
    return _hermitian(solution.value), _succeeded(solution)


@functools.partial(jax.jit, static_argnames=("rtol", "atol", "max_steps"))
def _probe(H: Array, jumps: list[Array], rtol, atol, max_steps) -> tuple[Array, Array, Array]:
    r"""The uniqueness probe: steady states under a weak depolarising channel at two rates, and whether both converged.

    The generator is $\mathcal{L} + \epsilon\,(\mathrm{tr}(\cdot)\,I/n - \cdot)$, with $\epsilon = 10^{-6}\max|G|$
    and a tenth of it. The channel makes the stationary state unique. A unique state of $\mathcal{L}$ moves by
    $O(\epsilon/\text{gap})$, in proportion to $\epsilon$; of several stationary states the channel picks its own
    mixture, the same at both rates, O(1) away from the one the plain solve ends at (or GMRES cannot resolve the
    near-null mode and stagnates). The content in every level makes the probe slower than the plain solve (a longer
    restart).
    """
    H, jumps = jax.lax.stop_gradient((H, jumps))
    eps = DEPOLARISING_PROBE * jnp.max(jnp.abs(_effective_generator(H, jumps)))
    out = []
    for rate in (eps, 0.1 * eps):
        solution = _gmres(_trace_substituted(H, jumps, depolarising=rate), H, jumps, rtol, atol, max_steps,
                          PROBE_RESTART)  # fmt: skip
        out.append((_hermitian(solution.value), _succeeded(solution)))
    (strong, ok_strong), (weak, ok_weak) = out
    return strong, weak, ok_strong & ok_weak


def _gmres(operator, H, jumps, rtol, atol, max_steps, restart) -> lx.Solution:
    n = H.shape[0]
    b = jnp.zeros((n, n), operator.in_structure().dtype).at[0, 0].set(1.0)
    solver = lx.GMRES(rtol=rtol, atol=atol, max_steps=max_steps, restart=min(n * n, restart), stagnation_iters=100)
    preconditioner = lx.FunctionLinearOperator(_lyapunov_inverse(H, jumps), operator.in_structure())
    return lx.linear_solve(operator, b, solver=solver, options={"preconditioner": preconditioner}, throw=False)


def _succeeded(solution: lx.Solution) -> Array:
    return solution.result == lx.RESULTS.successful


def _trace_substituted(H: Array, jumps: list[Array], depolarising=None) -> lx.FunctionLinearOperator:
    r"""The trace-substituted Liouvillian (module docstring), with a depolarising channel when one is given.

    $\rho \mapsto \mathcal{L}\rho + \epsilon(\mathrm{tr}(\rho) I/n - \rho)$ with its (0, 0) entry replaced by
    $\mathrm{tr}\,\rho$; $\epsilon$ = `depolarising`, None for the Liouvillian itself.
    """
    G = _effective_generator(H, jumps)
    n = G.shape[0]
    structure = jax.ShapeDtypeStruct((n, n), G.dtype)

    def apply(rho):
        out = G @ rho + rho @ jnp.conj(G).T
        for op in jumps:
            out = out + op @ rho @ jnp.conj(op).T
        if depolarising is not None:
            out = out + as_complex(depolarising, rho) * (jnp.trace(rho) / n * jnp.eye(n, dtype=rho.dtype) - rho)
        return out.at[0, 0].set(jnp.trace(rho))

    return lx.FunctionLinearOperator(apply, structure)


def _effective_generator(H: Array, jumps: list[Array]) -> Array:
    r"""$G = -iH - \tfrac12 \sum_k L_k^\dagger L_k$."""
    G = -1j * H
    for op in jumps:
        G = G - 0.5 * (jnp.conj(op).T @ op)
    return G


def _lyapunov_inverse(H: Array, jumps: list[Array]):
    r"""$Y \mapsto \mathcal{K}^{-1}Y$, $\mathcal{K}\rho = G\rho + \rho G^\dagger$, in G's eigenbasis (module docstring).

    A pair of modes with $d_i + \bar d_j = 0$ (a level that G leaves undamped, such as the ground state of a decaying
    qubit, which only the jumps feed) is given the fastest decay rate of G instead: the preconditioner need only be
    close to the Liouvillian's inverse, not equal to it. When V is too ill-conditioned, the diagonal preconditioner.
    """
    H, jumps = jax.lax.stop_gradient((H, jumps))
    d, V = jnp.linalg.eig(_effective_generator(H, jumps))
    V_inv = jnp.linalg.inv(V)
    den = d[:, None] + jnp.conj(d)[None, :]
    rate = jnp.max(jnp.abs(d.real))
    den = jnp.where(jnp.abs(den) <= 1e-12 * rate, -rate.astype(den.dtype), den)
    usable = jnp.all(jnp.isfinite(V_inv)) & (jnp.linalg.norm(V, 2) * jnp.linalg.norm(V_inv, 2) < MAX_EIGENBASIS_COND)
    jacobi = 1.0 / _diagonal(H, jumps)

    def inverse(y):
        lyapunov = V @ ((V_inv @ y @ jnp.conj(V_inv).T) / den) @ jnp.conj(V).T
        return jnp.where(usable, lyapunov, jacobi * y)

    return inverse


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
