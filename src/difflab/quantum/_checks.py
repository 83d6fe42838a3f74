"""Eager input checks for quantum models (raised before tracing, naming the argument at fault).

Checks run only on concrete values; traced values (inside `jax.jit` or `jax.grad`) pass through unchecked.
"""

from __future__ import annotations

import jax
import numpy as np

from ..core.internal import is_concrete
from ._operator import Operator, check_numeric
from ._storage import RealDense

#: Relative tolerance on Hermiticity and on the trace/norm of states (float64 round-off is ~1e-16).
HERMITIAN_RTOL = 1e-10
NORM_ATOL = 1e-8


def _dense(x) -> np.ndarray | None:
    """`x` as a NumPy array, or None when it is traced."""
    if isinstance(x, Operator):
        leaves = jax.tree_util.tree_leaves(x)
        if not all(is_concrete(leaf) for leaf in leaves):
            return None
        return _operator_to_numpy(x)
    if not is_concrete(x):
        return None
    return np.asarray(x)


def _operator_to_numpy(op: Operator) -> np.ndarray:
    def part(p):
        if isinstance(p, RealDense):
            return np.asarray(p.matrix)
        out = np.zeros((*np.shape(p.diags)[:-2], p.n, p.n))
        diags = np.asarray(p.diags)
        for j, k in enumerate(p.offsets):
            rows = np.arange(max(0, -k), min(p.n, p.n - k))
            out[..., rows, rows + k] = diags[..., j, rows]
        return out

    return part(op.re) + 1j * part(op.im)


def check_finite(x, name: str) -> None:
    """Raise `ValueError` if the concrete operator or state `x` holds NaN or inf.

    A NaN would otherwise vanish silently: it fails every comparison, so a Hermiticity test passes it
    and the sparse-layout detection drops it as a zero diagonal (H = [[0, nan], [nan, 0]] ran as H = 0).
    """
    if not isinstance(x, Operator) and is_concrete(x):
        check_numeric(x, name, "a numeric array or an Operator")
    m = _dense(x)
    if m is None:
        return
    bad = ~np.isfinite(m)
    if bad.any():
        raise ValueError(f"{name} must be finite; found {int(bad.sum())} NaN/inf entries, first at index "
                         f"{np.argwhere(bad)[0].tolist()}")  # fmt: skip


def check_hermitian(x, name: str) -> None:
    """Raise `ValueError` if the concrete operator `x` is not finite or differs from its conjugate transpose."""
    check_finite(x, name)
    m = _dense(x)
    if m is None:
        return
    if m.ndim < 2 or m.shape[-1] != m.shape[-2]:
        raise ValueError(f"{name} must be a square matrix (n, n); got shape {m.shape}")
    err = np.abs(m - np.conj(np.swapaxes(m, -1, -2))).max(initial=0.0)
    scale = max(1.0, np.abs(m).max(initial=0.0))
    if err > HERMITIAN_RTOL * scale:
        raise ValueError(f"{name} must be Hermitian (a Hamiltonian or observable); max |{name} - {name}^†| = {err:.3g}")


def check_same_dim(x, n: int, name: str, reference: str) -> None:
    """Raise `ValueError` if operator `x` is not n×n (the dimension of `reference`)."""
    if not isinstance(x, Operator) and is_concrete(x):
        check_numeric(x, name, f"a numeric ({n}, {n}) array or an Operator")
    shape = (x.n, x.n) if isinstance(x, Operator) else tuple(np.shape(x))[-2:]
    if shape != (n, n):
        raise ValueError(f"{name} has shape {shape} but {reference} acts on dimension {n}: expected ({n}, {n})")


def check_ket(psi, n: int, name: str = "psi0") -> None:
    """Raise `ValueError` unless `psi` has shape (..., n) and unit norm."""
    if is_concrete(psi):
        check_numeric(psi, name, f"a ket: a numeric array of shape ({n},)")
    shape = tuple(np.shape(psi))
    if len(shape) < 1 or shape[-1] != n:
        raise ValueError(f"{name} must be a state vector of dimension {n} (shape (..., {n})); got shape {shape}")
    check_finite(psi, name)
    v = _dense(psi)
    if v is None:
        return
    if _looks_like_density(v):
        raise ValueError(
            f"{name} must be a ket of shape ({n},) or ({n}, 1); got shape {shape}, Hermitian with trace 1: it looks "
            "like a density matrix. Pass a ket, or use mesolve (rho0) for a density matrix"
        )
    norm = np.linalg.norm(v, axis=-1)
    off = np.abs(norm - 1.0) > NORM_ATOL
    if np.any(off):
        where = np.argwhere(off)[0]
        at = f"[{', '.join(map(str, where))}]" if len(shape) > 1 else ""
        raise ValueError(f"{name}{at} must have unit norm; got norm {norm[tuple(where)]:.12g}")


def _looks_like_density(v: np.ndarray) -> bool:
    """True for a square (n, n) array that is Hermitian with trace 1 but whose rows are not all unit kets."""
    if v.ndim != 2 or v.shape[0] != v.shape[1] or v.shape[0] < 2:
        return False
    rows_unit = np.all(np.abs(np.linalg.norm(v, axis=-1) - 1.0) <= NORM_ATOL)
    hermitian = np.abs(v - v.conj().T).max() <= HERMITIAN_RTOL * max(1.0, np.abs(v).max())
    return bool(not rows_unit and hermitian and abs(np.trace(v) - 1.0) <= NORM_ATOL)


def check_density(rho, n: int, name: str = "rho0") -> None:
    """Raise `ValueError` unless `rho` has shape (..., n, n), is Hermitian and has unit trace."""
    shape = tuple(np.shape(rho))
    if len(shape) < 2 or shape[-2:] != (n, n):
        raise ValueError(f"{name} must be a density matrix of dimension {n} (shape (..., {n}, {n})); got {shape}")
    m = _dense(rho)
    if m is None:
        return
    check_hermitian(m, name)
    trace = np.trace(m, axis1=-2, axis2=-1)
    if np.any(np.abs(trace - 1.0) > NORM_ATOL):
        bad = trace.ravel()[np.argmax(np.abs(trace.ravel() - 1.0))]
        raise ValueError(f"{name} must have trace 1; got trace {bad.real:.12g}")
    lowest = float(np.linalg.eigvalsh(m).min())
    if lowest < -NORM_ATOL:
        raise ValueError(
            f"{name} must be positive semidefinite (a density matrix has no negative probabilities); its "
            f"lowest eigenvalue is {lowest:.6g}"
        )


#: Tolerance of the unitarity check on user matrices, max |U†U − 1| (float64 round-off is ~1e-15).
UNITARY_ATOL = 1e-8


def check_unitary(matrix, name: str) -> None:
    """Raise `ValueError` naming `name` if the concrete `matrix` is not unitary within `UNITARY_ATOL`."""
    if not is_concrete(matrix):
        return
    m = np.asarray(matrix, dtype=complex)
    if not np.all(np.isfinite(m)):
        raise ValueError(f"{name} must be finite; got NaN/inf entries")
    err = np.abs(m.conj().T @ m - np.eye(m.shape[0])).max()
    if err > UNITARY_ATOL:
        raise ValueError(f"{name} must be unitary: max |U†U − 1| = {err:.3g} exceeds {UNITARY_ATOL:g}")


def is_hermitian(x) -> bool:
    """True when concrete `x` equals its conjugate transpose (traced values count as Hermitian)."""
    try:
        check_hermitian(x, "x")
    except ValueError:
        return False
    return True


TIME_UNITS = ("ns", "us")


def check_time_units(time_units) -> str:
    """Raise `ValueError` unless `time_units` is one of `TIME_UNITS` (frequencies are in rad per this unit)."""
    if time_units not in TIME_UNITS:
        raise ValueError(f"time_units must be one of {TIME_UNITS} (frequencies in rad per unit); got {time_units!r}")
    return time_units
