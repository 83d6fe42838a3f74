r"""Measurement in the computational basis: probabilities, sampled shots (the labelled Dataset of both: `_results`).

$p(b) = |\langle b|\psi\rangle|^2$ or $\langle b|\rho|b\rangle$ for bit strings $b = b_0 b_1 \ldots b_{n-1}$ (wire 0
leftmost, QuTiP order). Readout errors act on $p$ through each wire's confusion matrix (`ReadoutError`).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ._apply import apply_matrix, as_wires
from ._channels import ReadoutError


def _n_wires(state) -> int:
    shape = np.shape(state)
    dim = shape[0] if shape else 0
    n = round(float(np.log2(dim))) if dim > 1 else 0
    if n < 1 or 2**n != dim or shape not in ((dim,), (dim, dim)):
        raise ValueError(f"state must be a state vector (2ⁿ,) or a density matrix (2ⁿ, 2ⁿ); got shape {shape}")
    return n


def probabilities(state: ArrayLike, *, readout: Sequence[ReadoutError] = ()) -> Array:
    """Probabilities of the 2ⁿ bit strings (flat, wire 0 most significant) of a state vector or density matrix.

    `readout`: `ReadoutError`s, at most one per wire, whose confusion matrices map true to read-out probabilities.
    """
    n = _n_wires(state)
    state = jnp.asarray(state)
    p = jnp.real(jnp.diagonal(state)) if state.ndim == 2 else jnp.abs(state) ** 2
    p = p.reshape((2,) * n)
    seen = set()
    for i, err in enumerate(readout):
        if not isinstance(err, ReadoutError):
            raise TypeError(f"readout[{i}] must be a ReadoutError; got {type(err).__name__}")
        (wire,) = as_wires(f"readout[{i}].wires", err.wires, n)
        if wire in seen:
            raise ValueError(f"readout holds two errors for wire {wire}")
        seen.add(wire)
        p = apply_matrix(p, err.confusion(), [wire])
    return p.reshape(2**n)


def check_shots(shots) -> int:
    """`shots` as an int, refused by name unless a whole number >= 1."""
    if isinstance(shots, bool) or not isinstance(shots, int | np.integer) or shots < 1:
        raise ValueError(f"shots must be a positive integer; got {shots!r}")
    return int(shots)


def sample(key: Array, state: ArrayLike, shots: int, *, readout: Sequence[ReadoutError] = ()) -> Array:
    """`shots` measured bit strings, shape (shots, n) of 0/1 (int), drawn with the PRNG `key`."""
    shots = check_shots(shots)
    p = probabilities(state, readout=readout)
    n = _n_wires(state)
    index = jax.random.choice(key, 2**n, shape=(shots,), p=p / jnp.sum(p))
    return (index[:, None] >> jnp.arange(n - 1, -1, -1)[None, :]) & 1
