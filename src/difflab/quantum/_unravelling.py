"""What the trajectory solvers (`mcsolve`, `smesolve`) share: their operator checks and their Dataset attributes."""

from __future__ import annotations

from typing import Any

from ..core.internal import package_version
from ._mesolve import _hamiltonian, _jump_operators


def unbatched_operators(H: Any, jump_ops: Any, solver: str, why_jumps: str) -> tuple[Any, list]:
    """`(H, jumps)` as one dense `(n, n)` Hamiltonian and at least one unbatched jump operator, or a clear error.

    `solver` names the caller in the messages; `why_jumps` says why it needs a jump operator.
    """
    H0, b_H = _hamiltonian(H, "dense")
    if b_H is not None:
        raise ValueError(f"H must be one (n, n) Hamiltonian for {solver} (vmap over calls for a batch); got {b_H}")
    jumps, b_jumps = _jump_operators(jump_ops, H0.n, "dense")
    if not jumps:
        raise ValueError(f"jump_ops must hold at least one jump operator: {why_jumps}")
    if any(b is not None for b in b_jumps):
        raise ValueError(f"jump_ops must be (n, n) operators for {solver}, without a batch axis")
    return H0, jumps


def trajectory_attrs(equation: str, ntraj: int, time_units: str) -> dict[str, Any]:
    """The attributes of a trajectory solver's Dataset: the equation, the count, units and versions."""
    return {
        "equation": equation,
        "ntraj": int(ntraj),
        "hbar": "1",
        "time_units": time_units,
        "frequency_units": f"rad/{time_units} (angular frequencies)",
        **{f"{dist}_version": package_version(dist) for dist in ("difflab", "jax", "diffrax")},
    }
