r"""Time-dependent Hamiltonians in `smesolve`: $H(t) = H_0 + \sum_j u_j(t)\,H_j$, given as `[H0, Drive(...), ...]`.

The list form is QuTiP's (`[H0, [H1, f]]`) with difflab's `Drive(protocol, operator)` terms, the ones `sesolve` and
`mesolve` take as `drives=`. The drives enter the drift only: the measurement's backaction does not depend on $H$.
Their pulse edges (`protocol.jump_times()`) become step boundaries, so that no fixed step straddles a jump of an
amplitude, and their largest amplitude counts in the default step.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

from ..core.internal import is_concrete
from ._checks import check_hermitian
from ._drives import Controls, Drive

#: Samples of each amplitude over the solve for the default step's bound on the drives
_AMPLITUDE_SAMPLES = 2001


def split_drives(H) -> tuple[Any, tuple[Drive, ...]]:
    """`(H0, drives)` from `H`: an operator alone, or a list `[H0, Drive(...), ...]`."""
    if not (isinstance(H, list | tuple) and any(isinstance(term, Drive) for term in H)):
        return H, ()
    if isinstance(H[0], Drive):
        raise ValueError(
            "H as a list must start with the static Hamiltonian (an (n, n) operator; 0 * identity for none), "
            "followed by Drive(protocol, operator) terms"
        )
    for k, term in enumerate(H[1:], start=1):
        if not isinstance(term, Drive):
            raise TypeError(
                f"H[{k}] must be a Drive(protocol, operator) after the static H[0]; got {type(term).__name__}"
            )
    return H[0], tuple(H[1:])


def drive_terms(drives: tuple[Drive, ...], n: int, dtype) -> tuple[Array, Controls]:
    """The drives' operators as one `(d, n, n)` array of `dtype` and their amplitudes as one `Controls`."""
    ops = []
    for j, drive in enumerate(drives, start=1):
        if drive.operator.n != n:
            raise ValueError(f"H[{j}].operator acts on dimension {drive.operator.n} but H[0] on {n}")
        dense = drive.operator.to_dense()
        check_hermitian(dense, f"H[{j}].operator")
        ops.append(dense.astype(dtype))
    stacked = jnp.stack(ops) if ops else jnp.zeros((0, n, n), dtype)
    return stacked, Controls(*(drive.protocol for drive in drives))


def drive_rate(controls: Controls, ops: Array, ts: np.ndarray) -> float | None:
    r"""$\sum_j \max_t |u_j(t)|\,\|H_j\|_2$ over `ts[0] … ts[-1]` (sampled), or `None` when it cannot be known."""
    if not controls.protocols:
        return 0.0
    if not all(is_concrete(x) for x in (ops, *jax.tree.leaves(controls))):
        return None
    t = np.union1d(np.linspace(ts[0], ts[-1], _AMPLITUDE_SAMPLES), edges_inside(controls, ts))
    peaks = np.max(np.abs(np.asarray(jax.vmap(controls)(jnp.asarray(t)))), axis=0)
    norms = [float(np.linalg.norm(np.asarray(op), 2)) for op in ops]
    return float(np.dot(peaks, norms))


def edges_inside(controls: Controls, ts: np.ndarray) -> np.ndarray:
    """The amplitudes' jump times strictly inside `(ts[0], ts[-1])`, when known (none when traced)."""
    traced = controls.jump_times()
    if not is_concrete(traced):
        return np.zeros(0)
    jumps = np.asarray(traced, dtype=float)
    return np.unique(jumps[np.isfinite(jumps) & (jumps > ts[0]) & (jumps < ts[-1])])
