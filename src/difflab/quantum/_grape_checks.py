"""Eager checks of `optimize_gate`'s arguments: each error names the argument, what was expected and what came."""

from __future__ import annotations

import numbers

import numpy as np

from ._checks import check_hermitian, check_unitary
from ._piecewise_controls import PiecewiseControls


def check_positive_scalar(value, name: str, units: str) -> float:
    """`value` as a float, refused unless finite and > 0."""
    if isinstance(value, bool) or not (np.ndim(value) == 0 and np.isreal(value) and 0 < float(value) < np.inf):
        raise ValueError(f"{name} must be a finite number > 0 ({units}); got {value!r}")
    return float(value)


def check_slices(slices) -> int:
    """The number of slices, a positive integer."""
    if isinstance(slices, bool) or not isinstance(slices, numbers.Integral) or slices < 1:
        raise ValueError(f"slices must be an integer >= 1 (the number of constant pieces); got {slices!r}")
    return int(slices)


def check_bound(value, name: str, n_controls: int, units: str) -> np.ndarray | None:
    """A per-control bound, shape (n_controls, 1), from a scalar or one value per control; None stays None."""
    if value is None:
        return None
    bound = np.asarray(value, dtype=float) if np.ndim(value) else np.full(n_controls, float(value))
    if bound.shape != (n_controls,) or not np.all(np.isfinite(bound) & (bound > 0)):
        raise ValueError(
            f"{name} must be finite and > 0 ({units}), a number or one per control ({n_controls}); got {value!r}"
        )
    return bound[:, None]


def check_subspace(subspace, n: int) -> tuple[int, ...] | None:
    """Distinct level indices in [0, n), at most n of them."""
    if subspace is None:
        return None
    index = np.asarray(subspace)
    if index.ndim != 1 or index.size == 0 or not np.issubdtype(index.dtype, np.integer):
        raise ValueError(f"subspace must be a non-empty sequence of level indices; got {subspace!r}")
    if index.size > n:
        raise ValueError(f"subspace has {index.size} levels but the space of H0 has only {n}; got {subspace!r}")
    if index.min() < 0 or index.max() >= n or len(set(index.tolist())) != index.size:
        raise ValueError(f"subspace must be distinct level indices in [0, {n}); got {subspace!r}")
    return tuple(int(i) for i in index)


def check_target(target, d: int) -> np.ndarray:
    """A (d, d) unitary: the gate on the computational subspace."""
    W = np.asarray(target)
    if W.shape != (d, d) or not np.issubdtype(W.dtype, np.number):
        raise ValueError(f"target must be a ({d}, {d}) unitary on the computational subspace; got shape {W.shape}")
    check_unitary(W, "target")
    return W.astype(complex)


def check_detunings(detunings, detuning_operator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The ensemble's detunings (rad/ns, 1-D, finite) and its operator (default: diag(0, 1, ..., n − 1))."""
    deltas = np.zeros(1) if detunings is None else np.asarray(detunings, dtype=float)
    if deltas.ndim != 1 or deltas.size == 0 or not np.all(np.isfinite(deltas)):
        raise ValueError(f"detunings must be a non-empty 1-D sequence of finite values (rad/ns); got {detunings!r}")
    if detuning_operator is None:
        return deltas, np.diag(np.arange(n)).astype(complex)
    check_hermitian(detuning_operator, "GrapeOptions.detuning_operator")
    if np.shape(detuning_operator) != (n, n):
        raise ValueError(
            f"GrapeOptions.detuning_operator must have the shape of H0 ({n}, {n}); got {np.shape(detuning_operator)}"
        )
    return deltas, np.asarray(detuning_operator, dtype=complex)


def check_initial(initial, n_controls: int, slices: int, duration: float, bounds) -> np.ndarray | None:
    """Initial amplitudes (n_controls, slices), rad/ns, strictly inside the bounds; from an array or a schedule."""
    if initial is None:
        return None
    if isinstance(initial, PiecewiseControls):
        edges = np.asarray(initial.times)
        if abs(edges[-1] - duration) > 1e-12 * duration or not np.allclose(np.diff(edges), duration / slices):
            raise ValueError(
                f"initial must cover the duration [0, {duration!r}] ns in {slices} equal slices; got edges "
                f"from {edges[0]!r} to {edges[-1]!r} ns"
            )
        initial = initial.amplitudes
    u = np.asarray(initial, dtype=float)
    if u.shape != (n_controls, slices) or not np.all(np.isfinite(u)):
        raise ValueError(f"initial must be finite amplitudes ({n_controls}, {slices}) in rad/ns; got {u.shape}")
    u_max, slew = bounds
    if u_max is not None and np.any(np.abs(u) >= u_max):
        raise ValueError(f"initial must lie strictly within ±u_max; largest |u| / u_max = {np.max(np.abs(u) / u_max)}")
    if slew is not None and np.any(np.abs(np.diff(u, axis=1)) >= slew * duration / slices):
        raise ValueError("initial must change by less than slew_rate × slice length between slices")
    return u
