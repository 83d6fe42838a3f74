r"""Real matrices in two storage layouts: diagonal-sparse (`RealDia`) and dense (`RealDense`).

A complex operator is stored as a pair of real matrices (real and imaginary parts, see `_operator.py`): the
real/imaginary split avoids complex arithmetic on the hot path. Most operators of quantum optics (ladder operators,
Pauli strings, Jaynes–Cummings couplings, Ising chains) have a handful of non-zero diagonals, so `RealDia` stores a
matrix $A$ as pairs (offset $k$, diagonal $d_k$) with

$$ (d_k)_i = A_{i,\,i+k}, \qquad (d_k)_i = 0 \text{ where } i + k \notin [0, n), $$

and applies it as $(A X)_{i} = \sum_k (d_k)_i\,X_{i+k}$: a few elementwise multiply-adds instead of an $n^3$
matrix product. The offsets are static (structure), the diagonals are arrays (differentiable values).
This is the layout of SciPy's `dia_matrix` and of dynamiqs's `dia` layout, indexed by row.
"""

from __future__ import annotations

import abc
import functools

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jax import lax
from jaxtyping import Array, ArrayLike, Float

from ..core.internal import is_concrete


class AbstractRealOp(eqx.Module):
    """A real n×n matrix acting from the left on stacks of arrays, shape (parts, n, ...)."""

    @property
    @abc.abstractmethod
    def n(self) -> int: ...

    @property
    @abc.abstractmethod
    def is_zero(self) -> bool: ...

    @abc.abstractmethod
    def apply(self, x: Float[Array, "parts n ..."]) -> Float[Array, "parts n ..."]:
        """Return `A @ x[p]` for every leading index `p` (contraction over axis 1 of `x`)."""

    @abc.abstractmethod
    def apply_transpose_right(self, x: Float[Array, "parts m n"]) -> Float[Array, "parts m n"]:
        """Return `x[p] @ A.T` for every leading index `p` (contraction over the last axis of `x`)."""

    @abc.abstractmethod
    def trace_with(self, x: Float[Array, "parts n n"]) -> Float[Array, " parts"]:
        r"""$\mathrm{tr}(A\,x_p)$ for every leading index $p$, without forming the product."""

    @abc.abstractmethod
    def transpose(self) -> AbstractRealOp: ...

    @abc.abstractmethod
    def scale(self, c) -> AbstractRealOp: ...

    @abc.abstractmethod
    def to_dense(self) -> Float[Array, "n n"]: ...


def detect_offsets(matrix: np.ndarray, atol: float = 0.0) -> tuple[int, ...]:
    """Offsets `k` of the diagonals of a concrete matrix holding at least one entry with `|A_ij| > atol`."""
    rows, cols = np.nonzero(np.abs(np.asarray(matrix)) > atol)
    return tuple(sorted({int(k) for k in cols - rows}))


def _diag_mask(n: int, offsets: tuple[int, ...]) -> np.ndarray:
    i = np.arange(n)[None, :]
    k = np.asarray(offsets, dtype=int).reshape(-1, 1)
    return (i + k >= 0) & (i + k < n)


class RealDia(AbstractRealOp):
    """Diagonal-sparse real matrix: `offsets` (static) and `diags[j, i] = A[i, i + offsets[j]]`."""

    diags: Float[Array, "*batch k n"]
    offsets: tuple[int, ...] = eqx.field(static=True)

    @classmethod
    def from_dense(cls, matrix: Float[ArrayLike, "n n"], offsets: tuple[int, ...]) -> RealDia:
        """Gather the diagonals `offsets` of `matrix` (works on traced arrays; other entries are dropped)."""
        n = np.shape(matrix)[0]
        mask = _diag_mask(n, offsets)
        rows = np.broadcast_to(np.arange(n), mask.shape)
        cols = np.clip(rows + np.asarray(offsets, dtype=int).reshape(-1, 1), 0, n - 1)
        if is_concrete(matrix):  # NumPy: no device dispatch for constant operators
            m = np.asarray(matrix)
            kept = np.where(mask, m[rows, cols], 0.0).reshape(len(offsets), n).astype(m.dtype)
            return cls(jnp.asarray(kept), tuple(offsets))
        values = jnp.asarray(matrix)
        diags = jnp.where(mask, values[rows, cols], 0.0) if offsets else jnp.zeros((0, n), values.dtype)
        return cls(diags, tuple(offsets))

    @property
    def n(self) -> int:
        return self.diags.shape[-1]

    @property
    def is_zero(self) -> bool:
        return not self.offsets

    def apply(self, x):
        if self.is_zero:
            return jnp.zeros_like(x)
        return _dia_apply(self.diags, self.offsets, x, 1)

    def apply_transpose_right(self, x):
        if self.is_zero:
            return jnp.zeros_like(x)
        return _dia_apply(self.diags, self.offsets, x, x.ndim - 1)

    def trace_with(self, x):
        # tr(A X) = sum_k sum_i (d_k)_i X_{i+k, i}: a gather of the matching diagonals of X.
        total = jnp.zeros(x.shape[:1], x.dtype)
        for j, k in enumerate(self.offsets):
            rows = np.arange(max(0, -k), min(self.n, self.n - k))
            total = total + x[:, rows + k, rows] @ self.diags[j][rows]
        return total

    def transpose(self) -> RealDia:
        # (A^T)_{i, i-k} = A_{i-k, i} = (d_k)_{i-k}: roll by k (the wrapped entries are the zero padding).
        diags = [jnp.roll(self.diags[j], k) for j, k in enumerate(self.offsets)]
        return _merge([-k for k in self.offsets], diags, self.n)

    def scale(self, c) -> RealDia:
        return RealDia(self.diags * c, self.offsets)

    def to_dense(self):
        mask = _diag_mask(self.n, self.offsets)
        rows = np.broadcast_to(np.arange(self.n), mask.shape)[mask]
        cols = (np.arange(self.n)[None, :] + np.asarray(self.offsets, dtype=int).reshape(-1, 1))[mask]
        out = jnp.zeros((self.n, self.n), self.diags.dtype)
        return out.at[rows, cols].add(self.diags[mask] if self.offsets else jnp.zeros(0, self.diags.dtype))


class RealDense(AbstractRealOp):
    """Dense real matrix."""

    matrix: Float[Array, "n n"]

    @property
    def n(self) -> int:
        return self.matrix.shape[-1]

    @property
    def is_zero(self) -> bool:
        return False

    def apply(self, x):
        return jnp.moveaxis(jnp.tensordot(self.matrix, x, axes=(1, 1)), 0, 1)

    def apply_transpose_right(self, x):
        return x @ self.matrix.T

    def trace_with(self, x):
        return jnp.einsum("ij,pji->p", self.matrix, x)

    def transpose(self) -> RealDense:
        return RealDense(self.matrix.T)

    def scale(self, c) -> RealDense:
        return RealDense(self.matrix * c)

    def to_dense(self):
        return self.matrix


#: From this many stored diagonals on, `_dia_apply` sums shifted slices of one padded copy (see there).
PADDED_SUM_FROM = 8


def _dia_apply(diags, offsets, x: Array, axis: int) -> Array:
    """`y[..., i, ...] = Σ_k d_k[i] x[..., i + k, ...]` along `axis` (terms with `i + k` outside are zero).

    Two forms, chosen by the number of diagonals:

    - **Few diagonals: slice updates.** Each diagonal adds its product into the matching slice of the output
      (`.at[...].add`). XLA vectorises these slice updates; shifting by concatenation with zeros (or `pad`)
      instead compiled to element-wise selects that got slower the more right-hand sides one solver step chained
      (measured on four shifts of a (2, 60, 60) state: 23 µs against 78 µs for two evaluations, 72 µs against
      552 µs for seven), and a Jaynes–Cummings solve (three diagonals per operator) runs 1.3× faster this way.
    - **Many diagonals: one padded copy, then one sum of its shifted slices**, a single kernel that reads every
      diagonal once. Each slice update reads the whole stacked `diags`, so their traffic grows as the square of
      the number of diagonals; for the 21 diagonals of a 10-spin Ising chain the step's loop then exceeded the
      size up to which XLA runs a loop as one CPU kernel (`difflab.core._xla_cpu`). With the padded sum the loop
      runs as one kernel and the chain's `sesolve` takes 6.7 ms against 11.4 ms (benchmarks/README.md).
    """
    n = x.shape[axis]
    shape = [1] * x.ndim
    shape[axis] = -1
    kept = [(d, k) for d, k in zip(diags, offsets) if abs(k) < n]
    if len(kept) >= PADDED_SUM_FROM:
        return _padded_sum(kept, x, axis, shape)
    out = jnp.zeros_like(x)
    for d, k in kept:
        src = [slice(None)] * x.ndim
        dst = [slice(None)] * x.ndim
        src[axis] = slice(k, None) if k >= 0 else slice(None, n + k)
        dst[axis] = slice(None, n - k) if k >= 0 else slice(-k, None)
        out = out.at[tuple(dst)].add(d[dst[axis]].reshape(shape) * x[tuple(src)])
    return out


def _padded_sum(kept, x: Array, axis: int, shape: list[int]) -> Array:
    """`Σ_k d_k * x` shifted by `k` along `axis`, as slices of `x` padded with zeros on both sides."""
    n = x.shape[axis]
    low = max(0, -min(k for _, k in kept))
    widths = [(0, 0)] * x.ndim
    widths[axis] = (low, max(0, max(k for _, k in kept)))
    padded = jnp.pad(x, widths)
    terms = [d.reshape(shape) * lax.slice_in_dim(padded, low + k, low + k + n, axis=axis) for d, k in kept]
    return functools.reduce(jnp.add, terms)


def zero_op(n: int, dtype=float) -> RealDia:
    """The n×n zero matrix (no stored diagonal: applying it costs nothing)."""
    return RealDia(jnp.zeros((0, n), dtype), ())


def _merge(offsets: list[int], diags: list, n: int) -> RealDia:
    """Sum diagonals that share an offset and drop offsets outside (-n, n)."""
    acc: dict[int, Array] = {}
    for k, d in zip(offsets, diags):
        if -n < k < n:
            acc[k] = acc[k] + d if k in acc else d
    keys = tuple(sorted(acc))
    if not keys:
        return zero_op(n)
    return RealDia(jnp.stack([acc[k] for k in keys]), keys)


def add(a: AbstractRealOp, b: AbstractRealOp) -> AbstractRealOp:
    """`a + b`, staying diagonal-sparse when both are."""
    if a.is_zero:
        return b
    if b.is_zero:
        return a
    if isinstance(a, RealDia) and isinstance(b, RealDia):
        return _merge([*a.offsets, *b.offsets], [*a.diags, *b.diags], a.n)
    return RealDense(a.to_dense() + b.to_dense())


def matmul(a: AbstractRealOp, b: AbstractRealOp) -> AbstractRealOp:
    """`a @ b`; for two diagonal-sparse factors $(AB)_{i,i+k_1+k_2} = (a_{k_1})_i (b_{k_2})_{i+k_1}$."""
    if a.is_zero:
        return a
    if b.is_zero:
        return b
    if isinstance(a, RealDia) and isinstance(b, RealDia):
        offsets, diags = [], []
        for j1, k1 in enumerate(a.offsets):
            for j2, k2 in enumerate(b.offsets):
                offsets.append(k1 + k2)
                diags.append(a.diags[j1] * jnp.roll(b.diags[j2], -k1))
        return _merge(offsets, diags, a.n)
    return RealDense(a.to_dense() @ b.to_dense())
