r"""`Operator`: a complex matrix stored as real and imaginary parts, each diagonal-sparse or dense.

Users build operators as plain complex arrays (`destroy`, `sigmax`, ...); models convert them with `as_operator`,
which picks the diagonal-sparse layout for concrete arrays with few non-zero diagonals. To keep that layout for an
operator whose value depends on a traced parameter (a coupling `g` under `jax.grad`), convert the constant part
first and scale it: `g * dia(H_coupling)` keeps the sparse structure, `dia(g * H_coupling)` cannot see it.

States are stacked real arrays `[Re X, Im X]` (one array, so the solver handles one leaf). Applying
$A = A_r + i A_i$ gives $(A_r X_r - A_i X_i) + i (A_r X_i + A_i X_r)$, where absent parts (a real Hamiltonian has
$A_i = 0$) cost nothing.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex, Float, Shaped

from . import _storage as _layout
from ._complex import from_parts
from ._storage import AbstractRealOp, RealDense, RealDia


class Operator(eqx.Module):
    """Complex n×n operator $A = A_r + i A_i$ with each part in its own layout (see module docstring)."""

    re: AbstractRealOp
    im: AbstractRealOp

    @property
    def n(self) -> int:
        return self.re.n

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.n)

    def apply(self, x: Float[Array, "2 n ..."]) -> Float[Array, "2 n ..."]:
        """$A X$ for $X$ stacked as `x = [Re X, Im X]`, returned stacked the same way."""
        if self.im.is_zero:
            return self.re.apply(x)
        y = self.im.apply(x)
        rotated = jnp.stack([-y[1], y[0]])  # i A_i X
        if self.re.is_zero:
            return rotated
        return self.re.apply(x) + rotated

    def apply_dag_right(self, x: Float[Array, "2 m n"]) -> Float[Array, "2 m n"]:
        r"""$X A^\dagger$ for $X$ stacked as `[Re X, Im X]`: column operations only, no transpose of $X$."""
        out = self.re.apply_transpose_right(x)
        if self.im.is_zero:
            return out
        y = self.im.apply_transpose_right(x)
        return out + jnp.stack([y[1], -y[0]])  # -i X A_i^T

    def trace_with(self, x: Float[Array, "2 n n"]) -> Float[Array, "2"]:
        r"""$[\mathrm{Re}, \mathrm{Im}]\,\mathrm{tr}(A X)$ for $X$ stacked as `[Re X, Im X]`."""
        tr = self.re.trace_with(x)
        if self.im.is_zero:
            return tr
        ti = self.im.trace_with(x)
        return tr + jnp.stack([-ti[1], ti[0]])

    def dag(self) -> Operator:
        r"""Hermitian conjugate $A^\dagger = A_r^T - i A_i^T$."""
        return Operator(self.re.transpose(), self.im.transpose().scale(-1.0))

    def times_minus_i(self) -> Operator:
        """$-iA = A_i - i A_r$ (exact, no arithmetic)."""
        return Operator(self.im, self.re.scale(-1.0))

    def to_dense(self) -> Complex[Array, "n n"]:
        """The dense complex matrix."""
        return from_parts(self.re.to_dense(), self.im.to_dense())

    def __add__(self, other: Operator) -> Operator:
        other = as_operator(other)
        _check_same_n(self, other)
        return Operator(_layout.add(self.re, other.re), _layout.add(self.im, other.im))

    def __sub__(self, other: Operator) -> Operator:
        return self + (-1.0) * as_operator(other)

    def __neg__(self) -> Operator:
        return (-1.0) * self

    def __mul__(self, c) -> Operator:
        if isinstance(c, Operator):
            raise TypeError("Use @ to multiply two operators; * scales by a number")
        c = jnp.asarray(c)
        if c.ndim != 0:
            raise ValueError(f"An operator can only be scaled by a scalar; got shape {c.shape}")
        if not jnp.iscomplexobj(c):
            return Operator(self.re.scale(c), self.im.scale(c))
        a, b = jnp.real(c), jnp.imag(c)
        re = _layout.add(self.re.scale(a), self.im.scale(-b))
        im = _layout.add(self.im.scale(a), self.re.scale(b))
        return Operator(re, im)

    __rmul__ = __mul__

    def __matmul__(self, other: Operator) -> Operator:
        other = as_operator(other)
        _check_same_n(self, other)
        mm = _layout.matmul
        re = _layout.add(mm(self.re, other.re), mm(self.im, other.im).scale(-1.0))
        im = _layout.add(mm(self.re, other.im), mm(self.im, other.re))
        return Operator(re, im)


def _check_same_n(a: Operator, b: Operator) -> None:
    if a.n != b.n:
        raise ValueError(f"Operator dimensions do not match: {a.n}×{a.n} and {b.n}×{b.n}")


def _is_concrete(x) -> bool:
    return not isinstance(x, jax.core.Tracer)


def _refuse_nonfinite(values: np.ndarray, name: str) -> None:
    """Raise naming `name` if the concrete `values` hold NaN or inf.

    Needed before any sparsity scan: a NaN fails `|x| > 0`, so the scan would drop it as a zero entry and
    `[[nan, 1], [1, 0]]` would run as sigma_x.
    """
    bad = ~np.isfinite(values)
    if bad.any():
        first = np.argwhere(bad)[0].tolist()
        raise ValueError(
            f"{name} must be finite; found {int(bad.sum())} NaN/inf entries, first at index {first} "
            f"({values[tuple(first)]})"
        )


def _flag_nonfinite(x: Array, name: str) -> Array:
    """Traced `x` with an `eqx.error_if` that fires when the compiled program meets a NaN/inf entry."""
    return eqx.error_if(x, ~jnp.all(jnp.isfinite(x)), f"{name} must be finite; got NaN/inf entries")


def check_numeric(x, name: str, expected: str = "a numeric (n, n) array (e.g. q.sigmax()) or an Operator") -> None:
    """Raise `TypeError` naming `name` unless concrete `x` is numeric (a string would fail deep inside NumPy)."""
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = np.asarray(x).dtype
    if not np.issubdtype(dtype, np.number):
        shown = repr(x) if len(repr(x)) <= 60 else repr(x)[:57] + "..."
        raise TypeError(f"{name} must be {expected}; got {type(x).__name__} {shown}")


def checked_operator(op: Operator, name: str = "operator") -> Operator:
    """`op`, refused by name when a concrete stored value is NaN/inf (padding included).

    For operators that enter a model already built. Traced parts pass: an operator built from traced parameters
    (`jnp.sqrt(gamma) * dia(L)` in a fitted model, rebuilt inside the vector field or for members that a batched fit
    masks) keeps its NaN, which reaches the solution and the model's own per-member checks; an `eqx.error_if` here
    would stop a whole batched fit for one masked member. Conversions of traced arrays (`dense`, `as_operator`) flag
    their input with `eqx.error_if`.
    """
    for part in (op.re, op.im):
        values = part.matrix if isinstance(part, RealDense) else getattr(part, "diags", None)
        if values is not None and _is_concrete(values):
            _refuse_nonfinite(np.asarray(values), name)
    return op


def _check_square(x, name: str) -> Array:
    if _is_concrete(x):
        check_numeric(x, name)
    x = jnp.asarray(x)
    if x.ndim != 2 or x.shape[0] != x.shape[1]:
        raise ValueError(f"{name} must be a square matrix (n, n); got shape {x.shape}")
    return x


def dia(x: Complex[Array, "n n"] | Operator, *, name: str = "operator") -> Operator:
    """Diagonal-sparse `Operator` from a concrete complex array (keeps only its non-zero diagonals)."""
    if isinstance(x, Operator):
        return checked_operator(x, name)
    return Operator(*_dia_parts(x, name))


def _dia_parts(x, name: str) -> tuple[RealDia, RealDia]:
    """The real and imaginary parts of a concrete square array, each keeping its non-zero diagonals."""
    if not _is_concrete(x):
        raise ValueError(
            f"{name} is a traced array, so its sparsity cannot be read; convert the constant part with dia "
            "first and scale it by the traced parameter (g * dia(H))"
        )
    check_numeric(x, name)
    xn = np.asarray(x)
    if xn.ndim != 2 or xn.shape[0] != xn.shape[1]:
        raise ValueError(f"{name} must be a square matrix (n, n); got shape {xn.shape}")
    _refuse_nonfinite(xn, name)
    re, im = np.real(xn), np.imag(xn)
    return RealDia.from_dense(re, _layout.detect_offsets(re)), RealDia.from_dense(im, _layout.detect_offsets(im))


def dense(x: Shaped[ArrayLike, "n n"] | Operator, *, name: str = "operator") -> Operator:
    """Dense `Operator` (both parts stored as full matrices; works on traced arrays)."""
    if isinstance(x, Operator):
        x = checked_operator(x, name)
        return Operator(RealDense(x.re.to_dense()), RealDense(x.im.to_dense()))
    matrix = _finite_array(_check_square(x, name), name)
    return Operator(RealDense(jnp.real(matrix)), RealDense(jnp.imag(matrix)))


def _finite_array(x, name: str):
    """`x`, refused by name when it is concrete and holds NaN/inf, flagged by `eqx.error_if` when traced."""
    if _is_concrete(x):
        _refuse_nonfinite(np.asarray(x), name)
        return x
    return _flag_nonfinite(x, name)


def as_operator(x, *, name: str = "operator", layout: str = "auto") -> Operator:
    """Convert an array (or `Operator`) to an `Operator`.

    `layout="auto"` keeps `Operator`s as they are, stores concrete arrays diagonal-sparse when they have at most
    `max(3, n // 4)` non-zero diagonals per part and densely otherwise, and stores traced arrays densely.
    """
    if layout not in ("auto", "dia", "dense"):
        raise ValueError(f"layout must be 'auto', 'dia' or 'dense'; got {layout!r}")
    if isinstance(x, Operator):
        return x if layout != "dense" else dense(x)
    if layout == "dense":
        return dense(x, name=name)
    if layout == "dia" or _is_concrete(x):
        re, im = _dia_parts(x, name)
        sparse_enough = max(len(re.offsets), len(im.offsets)) <= max(3, re.n // 4)
        return Operator(re, im) if (layout == "dia" or sparse_enough) else dense(x, name=name)
    return dense(x, name=name)


def model_operator(x, *, name: str = "operator", layout: str = "auto") -> Operator:
    """`as_operator` for an operator entering a model: one already built is checked too (`checked_operator`)."""
    op = as_operator(x, name=name, layout=layout)
    return checked_operator(op, name) if isinstance(x, Operator) and op is x else op


def as_operator_batch(x, *, name: str = "operator", layout: str = "auto") -> tuple[Operator, int | None]:
    """Convert an operator that may carry a leading batch axis (b, n, n); returns `(operator, b or None)`.

    A batched concrete array keeps the diagonal-sparse layout on the union of its members' non-zero diagonals, so
    every member shares one structure (one compiled solve serves them all).
    """
    if isinstance(x, Operator):
        return checked_operator(x, name), None
    if _is_concrete(x):
        check_numeric(x, name)
    x = jnp.asarray(x)
    if x.ndim == 2:
        return as_operator(x, name=name, layout=layout), None
    if x.ndim != 3 or x.shape[1] != x.shape[2]:
        raise ValueError(f"{name} must be (n, n) or a batch (b, n, n); got shape {x.shape}")
    x = _finite_array(x, name)  # before the scan of the union of diagonals, which would drop a NaN entry
    if layout == "dense" or not _is_concrete(x):
        return Operator(RealDense(jnp.real(x)), RealDense(jnp.imag(x))), x.shape[0]
    xn = np.asarray(x)
    parts = []
    for part in (np.real(xn), np.imag(xn)):
        offsets = _layout.detect_offsets(np.abs(part).max(axis=0))
        gather = jax.vmap(lambda m, offsets=offsets: RealDia.from_dense(m, offsets).diags)
        parts.append(RealDia(gather(jnp.asarray(part)), offsets))
    op = Operator(*parts)
    sparse_enough = max(len(parts[0].offsets), len(parts[1].offsets)) <= max(3, op.n // 4)
    if layout == "auto" and not sparse_enough:
        return Operator(RealDense(jnp.real(x)), RealDense(jnp.imag(x))), x.shape[0]
    return op, x.shape[0]
