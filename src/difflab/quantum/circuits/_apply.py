"""Applying a k-qubit matrix to a state tensor by contraction on the qubit axes (never a 2ⁿ × 2ⁿ matrix).

A state of n qubits is held as a tensor of shape (2,)*n (ket) or (2,)*2n (density matrix: row axes 0..n-1, column
axes n..2n-1), axis j being wire j; wire 0 is the most significant bit of the flat index (QuTiP order).
A k-qubit operator costs O(2ⁿ · 2ᵏ) this way, against O(4ⁿ) for its Kronecker expansion.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

from ...core.internal import is_concrete

#: Widest matrix applied as multiply-adds of slices (2ᵏ multiply-adds per amplitude); wider ones by contraction.
SLICED_MAX_WIRES = 3


def apply_matrix(tensor: Array, matrix: Array | np.ndarray, axes: Sequence[int]) -> Array:
    r"""$T' = M \cdot_{\text{axes}} T$: contract the columns of `matrix` (2ᵏ × 2ᵏ) with the axes `axes` of `tensor`.

    The first of `axes` is the most significant bit of the matrix index, as in `numpy.kron` order.

    Matrices on up to `SLICED_MAX_WIRES` wires, and constant (NumPy) matrices with at most two nonzeros a row on any
    number, are applied as multiply-adds of the slices of a free reshape of the tensor (see `_apply_one` and
    `_apply_sliced`), which XLA fuses into one pass over the state. Wider matrices are contracted on the view
    $(2^{a_1}, 2, 2^{a_2 - a_1 - 1}, 2, \dots, 2, 2^{N - a_k - 1})$ for the sorted axes $a_1 < \dots < a_k$, so that
    the contraction and its result order involve 2k + 1 axes whatever the number of qubits. Contracting on the
    (2,)*N view directly costs the same arithmetic, but XLA's CPU compiler then lays out and transposes rank-N
    tensors for every gate: a 12-qubit, 350-gate circuit with its gradient took minutes to compile instead of
    seconds.
    """
    k = len(axes)
    if k == 1:
        return _apply_one(tensor, matrix, int(axes[0]))
    order = np.argsort(axes)
    sorted_axes = [int(axes[i]) for i in order]
    xp = np if isinstance(matrix, np.ndarray) else jnp  # a NumPy (constant) matrix stays NumPy
    op = matrix.reshape((2,) * (2 * k))
    if list(order) != list(range(k)):  # rows and columns of the matrix in the sorted wire order
        op = xp.transpose(op, [*order, *(k + order)])
    view = tensor.reshape(view_shape(tensor.shape, sorted_axes))
    if k <= SLICED_MAX_WIRES or _sparse_constant(op):
        return _apply_sliced(view, op.reshape(2**k, 2**k), k).reshape(tensor.shape)
    rows, cols = list(range(k)), list(range(k, 2 * k))
    groups = list(range(2 * k, 3 * k + 1))
    view_in = [x for g, c in zip(groups, [*cols, None]) for x in (g, c) if x is not None]
    view_out = [x for g, r in zip(groups, [*rows, None]) for x in (g, r) if x is not None]
    out = jnp.einsum(op, [*rows, *cols], view, view_in, view_out)
    return out.reshape(tensor.shape)


def _sparse_constant(matrix) -> bool:
    """A NumPy matrix with at most two nonzeros per row (a permutation, a CNOT on both sides of ρ, ...)."""
    return isinstance(matrix, np.ndarray) and bool(np.count_nonzero(matrix) <= 2 * int(np.sqrt(matrix.size)))


def view_shape(shape: Sequence[int], sorted_axes: Sequence[int]) -> tuple[int, ...]:
    r"""The shape $(g_0, 2, g_1, 2, \dots, 2, g_k)$ that keeps `sorted_axes` of `shape` and merges the runs between.

    Group sizes come from the tensor's own shape: trailing axes need not be qubits (`Circuit.unitary` carries a 2ⁿ
    column axis). Axis `sorted_axes[i]` of `shape` is axis 2i + 1 of the view.
    """
    out, prev = [], -1
    for a in sorted_axes:
        out += [math.prod(shape[prev + 1 : a]), shape[a]]
        prev = a
    out.append(math.prod(shape[prev + 1 :]))
    return tuple(out)


def _weighted_sum(weights, slices):
    r"""$\sum_j w_j s_j$, leaving out the terms whose weight is a known exact 0 and multiplying by no known 1.

    Fixed gates (X, CNOT's target, Z, S, H, ...) have constant matrices: for them the sum is as exact as before
    and does less arithmetic; traced weights (rotation angles) are always multiplied.
    """
    terms = []
    for w, s in zip(weights, slices, strict=True):
        value = _known(w)
        if value is not None and value == 0:
            continue
        terms.append(s if value is not None and value == 1 else s * w)
    return sum(terms[1:], terms[0]) if terms else jnp.zeros_like(slices[0])


def _known(weight) -> complex | None:
    """The value of a concrete (untraced) scalar, else None."""
    if isinstance(weight, jax.core.Tracer):
        return None
    return complex(np.asarray(weight))


def _rows(matrix: Array | np.ndarray) -> list[list]:
    """The entries of a small matrix, as concrete NumPy scalars where the matrix is concrete."""
    m = np.asarray(matrix) if is_concrete(matrix) else matrix
    return [[m[i, j] for j in range(m.shape[1])] for i in range(m.shape[0])]


def _apply_one(tensor: Array, matrix: Array | np.ndarray, axis: int) -> Array:
    r"""The one-wire case, $t'_i = \sum_j M_{ij} t_j$ for the two halves $t_0, t_1$ of the $(2^a, 2, 2^b)$ view.

    XLA fuses the multiply-adds into one pass over the state, where the contraction costs a dot and a transpose: an
    18-qubit state-vector energy and gradient (2 layers of the hardware-efficient ansatz) ran 1.8× faster this way.
    """
    t = tensor.reshape(math.prod(tensor.shape[:axis]), 2, math.prod(tensor.shape[axis + 1 :]))
    halves = [t[:, 0], t[:, 1]]
    m = _rows(matrix)
    out = jnp.stack([_weighted_sum(m[i], halves) for i in range(2)], axis=1)
    return out.reshape(tensor.shape)


def _apply_sliced(view: Array, matrix: Array | np.ndarray, k: int) -> Array:
    r"""The k-wire case (k ≤ `SLICED_MAX_WIRES`) on the view $(g_0, 2, g_1, \dots, 2, g_k)$: $t'_i = \sum_j M_{ij} t_j$.

    The $2^k$ slices $t_j$ (j a bit string over the kept axes, first most significant; shape $(g_0, \dots, g_k)$) are
    combined by multiply-adds and stacked back, which XLA fuses into one pass; the same product as a contraction
    (`einsum`) costs about 4× more at 20 qubits for k = 2 (a dot with a contracted axis of 4 and two transposes).
    """
    bits = list(itertools.product((0, 1), repeat=k))
    slices = [view[tuple(i for b in bs for i in (slice(None), b))] for bs in bits]
    m = _rows(matrix)
    out = {bs: _weighted_sum(m[r], slices) for r, bs in enumerate(bits)}

    def build(prefix: tuple[int, ...]) -> Array:
        if len(prefix) == k:
            return out[prefix]
        # Axis of level L sits after the groups g_0 … g_L of the partly built array.
        return jnp.stack([build((*prefix, 0)), build((*prefix, 1))], axis=len(prefix) + 1)

    return build(())


def apply_controlled(
    tensor: Array, matrix: Array, controls: Sequence[int], targets: Sequence[int], values: Sequence[int]
) -> Array:
    """Apply `matrix` on the `targets` axes only where every `controls` axis equals its entry of `values`.

    On the view that keeps every control and target axis (`view_shape`), the output is rebuilt by stacking, along
    each control axis, the untouched slice and the transformed one: XLA fuses the slicing, the multiply-adds and
    the stacking into one pass over the state (for CNOT, a swap of the two target halves where the control is 1).
    Writing the transformed slice back with `tensor.at[index].set(...)` instead costs a gather, the product and a
    scatter. A k-controlled gate costs no more than its target matrix.
    """
    sorted_axes = sorted([*controls, *targets])
    place = {a: 2 * i + 1 for i, a in enumerate(sorted_axes)}
    view = tensor.reshape(view_shape(tensor.shape, sorted_axes))
    out = _controlled(view, matrix, [place[c] for c in controls], [place[t] for t in targets], list(values))
    return out.reshape(tensor.shape)


def _controlled(view: Array, matrix: Array, controls: list[int], targets: list[int], values: list[int]) -> Array:
    """`apply_controlled` on a view, one control axis at a time (the others follow by recursion)."""
    if not controls:
        return apply_matrix(view, matrix, targets)
    c, v = controls[0], values[0]
    parts = [jax.lax.index_in_dim(view, i, c, keepdims=False) for i in range(2)]

    def shift(a: int) -> int:  # axes after the removed control axis move down by one
        return a - (a > c)

    rest = [shift(a) for a in controls[1:]]
    parts[v] = _controlled(parts[v], matrix, rest, [shift(t) for t in targets], values[1:])
    return jnp.stack(parts, axis=c)


def control_slice(tensor: Array, controls: Sequence[int], targets: Sequence[int], values: Sequence[int]):
    """The slice of `tensor` where the `controls` axes hold `values`, and where the `targets` axes lie in it."""
    index: list[slice | int] = [slice(None)] * tensor.ndim
    for c, v in zip(controls, values, strict=True):
        index[c] = v
    shifted = [t - sum(c < t for c in controls) for t in targets]
    return tensor[tuple(index)], shifted


def conjugate(matrix):
    """The complex conjugate, NumPy for a NumPy matrix (a constant stays known while tracing), else JAX."""
    return np.conj(matrix) if isinstance(matrix, np.ndarray) else jnp.conj(matrix)


def dagger(matrix):
    r"""The conjugate transpose $M^\dagger$ (NumPy stays NumPy)."""
    return conjugate(matrix).T


def check_wire_matrix(matrix, wires: tuple[int, ...]) -> None:
    """Raise `ValueError` unless `matrix` is 2ᵏ × 2ᵏ for the k `wires` it acts on."""
    d = 2 ** len(wires)
    if np.shape(matrix) != (d, d):
        raise ValueError(f"matrix must have shape ({d}, {d}) for {len(wires)} wire(s); got {np.shape(matrix)}")


def as_wires(name: str, wires, n_wires: int | None = None) -> tuple[int, ...]:
    """`wires` (an int or a sequence of ints) as a tuple of distinct non-negative ints, below `n_wires` if given.

    Raises `ValueError` naming the argument otherwise.
    """
    ws = tuple(wires) if isinstance(wires, list | tuple | np.ndarray) else (wires,)
    if not ws or not all(isinstance(w, int | np.integer) and not isinstance(w, bool) for w in ws):
        raise ValueError(f"{name} must be one or more integer wire indices; got {wires!r}")
    ws = tuple(int(w) for w in ws)
    if len(set(ws)) != len(ws):
        raise ValueError(f"{name} must be distinct wires; got {ws!r}")
    if any(w < 0 for w in ws):
        raise ValueError(f"{name} must be non-negative wire indices; got {ws!r}")
    if n_wires is not None and any(w >= n_wires for w in ws):
        raise ValueError(f"{name} must lie in range(0, {n_wires}) for a {n_wires}-qubit circuit; got {ws!r}")
    return ws
