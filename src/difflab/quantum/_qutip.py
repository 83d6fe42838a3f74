"""Interoperability with QuTiP: `from_qutip`, `to_qutip`, and QuTiP objects accepted at the entry points.

QuTiP is optional (`pip install difflab[qutip]`): only `to_qutip` imports it. A `Qobj` is recognised by its
interface (`full()` and `dims`), so `from_qutip` and the entry points (`sesolve`, `mesolve`, the propagators,
`steadystate`, `mcsolve`, `smesolve`) convert one without importing QuTiP. Shapes follow difflab: a ket becomes (n,), an
operator or density matrix (n, n), a superoperator ($n^2$, $n^2$) in QuTiP's column-stacking convention (the same
as `mepropagator`'s). The tensor structure (`dims`) is checked where two `Qobj`s meet, then dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex

from ..core.internal import optional_module


def is_qobj(x) -> bool:
    """True for a QuTiP `Qobj` (duck-typed: a `full()` method and a `dims` attribute)."""
    return callable(getattr(x, "full", None)) and hasattr(x, "dims") and hasattr(x, "isket")


def from_qutip(obj) -> Complex[Array, "..."]:
    """The dense array of a QuTiP `Qobj`: a ket as (n,), a bra as (n,) (conjugated back), others as (m, n)."""
    if not is_qobj(obj):
        raise TypeError(f"obj must be a qutip.Qobj; got {type(obj).__name__}")
    full = np.asarray(obj.full())
    if obj.isket:
        return jnp.asarray(full[:, 0])
    if obj.isbra:
        return jnp.asarray(np.conj(full[0, :]))
    return jnp.asarray(full)


def to_qutip(array: Complex[ArrayLike, "..."], dims: Sequence[int] | Sequence[Sequence[int]] | None = None):
    """A QuTiP `Qobj` of `array`: a ket (n,) or (n, 1), or an operator / density matrix (n, n).

    Args:
        array: the state or operator (NumPy or JAX, concrete).
        dims: the subsystem dimensions, e.g. `[2, 10]` for a qubit ⊗ a 10-level cavity (their product must be n),
            or QuTiP's full form `[[2, 10], [2, 10]]`; default one system of n levels.
    """
    qutip = optional_module("qutip", "qutip", "to_qutip")
    values = np.asarray(array)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or not (values.shape[1] == 1 or values.shape[0] == values.shape[1]):
        raise ValueError(f"array must be a ket (n,) or (n, 1) or a square operator (n, n); got shape {np.shape(array)}")
    n = values.shape[0]
    if dims is None:
        return qutip.Qobj(values)
    nested = all(isinstance(d, Sequence) for d in dims)  # QuTiP's [[row dims], [column dims]]
    full = [[int(k) for k in d] for d in dims if isinstance(d, Sequence)] if nested else None
    flat = list(full[0]) if full else [int(d) for d in dims if not isinstance(d, Sequence)]
    if int(np.prod(flat)) != n:
        raise ValueError(f"dims {list(dims)} multiply to {int(np.prod(flat))} but array acts on dimension {n}")
    if full is None:
        full = [flat, [1] * len(flat) if values.shape[1] == 1 else flat]
    return qutip.Qobj(values, dims=full)


def _tensor_dims(obj) -> list[int] | None:
    """The subsystem dimensions of the space a `Qobj` acts on (None for a plain array)."""
    if not is_qobj(obj):
        return None
    return list(obj.dims[0])


def _convert(x, name: str, reference_dims: list[int] | None, reference: str):
    if not is_qobj(x):
        return x
    dims = _tensor_dims(x)
    if reference_dims is not None and dims != reference_dims:
        raise ValueError(
            f"{name} has QuTiP dims {dims} but {reference} has dims {reference_dims}: the subsystems must match"
        )
    return from_qutip(x)


def from_qutip_arguments(H, state0, jump_ops, exp_ops, state_name: str = "psi0"):
    """`(H, state0, jump_ops, exp_ops)` with every `Qobj` converted; mismatched tensor dims refused by name."""
    ref = _tensor_dims(H)
    H = _convert(H, "H", None, "H")
    if isinstance(state0, list | tuple):
        state0 = [_convert(s, f"{state_name}[{i}]", ref, "H") for i, s in enumerate(state0)]
    else:
        state0 = _convert(state0, state_name, ref, "H")
    if isinstance(jump_ops, list | tuple):
        jump_ops = [_convert(L, f"jump_ops[{k}]", ref, "H") for k, L in enumerate(jump_ops)]
    if isinstance(exp_ops, Mapping):
        exp_ops = {key: _convert(E, f"exp_ops[{key!r}]", ref, "H") for key, E in exp_ops.items()}
    elif isinstance(exp_ops, list | tuple):
        exp_ops = [_convert(E, f"exp_ops[{m}]", ref, "H") for m, E in enumerate(exp_ops)]
    return H, state0, jump_ops, exp_ops
