r"""`sepropagator` and `mepropagator`: the propagator of the Schrödinger equation and of the Lindblad equation.

$$ \psi(t) = U(t)\,\psi(t_0), \qquad \mathrm{vec}\,\rho(t) = S(t)\,\mathrm{vec}\,\rho(t_0), $$

found by solving from every basis state at once: the kets $|k\rangle$ give the columns of $U$ (n solves), the
matrices $|i\rangle\langle j|$ the columns of the superoperator $S$ ($n^2$ solves; the Lindblad equation is linear,
so these non-physical "states" are allowed here). $\mathrm{vec}$ stacks columns,
$\mathrm{vec}(\rho)_{i + n j} = \rho_{ij}$: QuTiP's `operator_to_vector` / `to_super` convention, so that
$\mathrm{vec}(A\rho B) = (B^T \otimes A)\,\mathrm{vec}(\rho)$. The columns run as the members of one batched solve
(`Batching`), with `sesolve`'s and `mesolve`'s keywords, checks and defaults; the result is differentiable
(`jax.grad` through the propagator, e.g. of `gate_fidelity`). Units: ħ = 1, times in `time_units`, `H` in rad per
`time_units`. QuTiP: `propagator(H, t, c_ops)`; dynamiqs: `sepropagator`, `mepropagator`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import equinox as eqx
import jax.numpy as jnp
import numpy as np
import xarray as xr
from jaxtyping import Array, ArrayLike, Complex, Float

from ..core.internal import SolveOptions, merge_options
from ._batching import Batching, gather_batching
from ._dataset import QuantumResult
from ._mesolve import _solve
from ._operator import Operator
from ._qutip import from_qutip_arguments


class PropagatorResult(eqx.Module):
    """Propagators at the save times (a pytree: passes through `jax.jit` and `jax.grad`).

    Attributes:
        result: the solve of the basis states (`QuantumResult`, one `initial_state` per column).
    """

    result: QuantumResult

    @property
    def ts(self) -> Array:
        """Save times, shape `(time,)` (`time_units`)."""
        return self.result.ts

    @property
    def propagators(self) -> Array:
        r"""$U(t)$ (n, n) or the superoperator $S(t)$ ($n^2$, $n^2$, columns stacked), shape `(*batch, time, N, N)`."""
        states = self.result.states
        assert states is not None  # the basis states are always saved
        if self.result.open_system:  # (*batch, column, time, n, n) -> vec(rho) by columns
            n = states.shape[-1]
            states = jnp.swapaxes(states, -1, -2).reshape(*states.shape[:-2], n * n)
        return jnp.moveaxis(states, -3, -1)  # (*batch, time, row, column)

    def to_xarray(self) -> xr.Dataset:
        """Dataset with `propagator_re`, `propagator_im` (dims [batch], time, row, col), units and provenance."""
        ds = self.result.to_xarray()
        U = np.asarray(self.propagators)
        dims = (*((self.result.batch_dim,) if self.result.n_batch else ()), "time", "row", "col")
        name = "superoperator (vec stacks columns)" if self.result.open_system else "propagator U(t)"
        data = {
            f"propagator_{part}": xr.Variable(dims, values, {"units": "1", "long_name": f"{label} part of the {name}"})
            for part, label, values in (("re", "real", U.real), ("im", "imaginary", U.imag))
        }
        coords = {key: ds.coords[key] for key in ds.coords if key not in ("initial_state", "observable")}
        return xr.Dataset(data, coords=coords, attrs=ds.attrs)


def sepropagator(
    H: Complex[ArrayLike, "*batch n n"] | Operator,
    ts: Float[ArrayLike, " time"],
    *,
    drives=(),
    batching: Batching | None = None,
    time_units: str = "ns",
    layout: str = "auto",
    options: SolveOptions | None = None,
    **solve_keywords: Any,
) -> PropagatorResult:
    r"""The unitary $U(t)$, $i\dot U = (H + \sum_j u_j(t) H_j)U$, $U(t_0) = I$, at the save times `ts`.

    Args:
        H: Hamiltonian (n, n) or a batch (b, n, n), rad per `time_units` (array, `Operator` or QuTiP `Qobj`).
        ts: save times (strictly increasing, `time_units`); $U(\texttt{ts[0]}) = I$.
        drives: `Drive(protocol, operator)` terms, as in `sesolve`.
        batching: the batch dimension of `H` and how the members (batch × n columns) run, as in `sesolve`.
        time_units: "ns" or "us", as in `sesolve`.
        layout: operator storage ("auto", "dia", "dense").
        options: a [`SolveOptions`][difflab.SolveOptions], as in `sesolve`.
        **solve_keywords: the fields of `SolveOptions` as keywords.

    Returns:
        `PropagatorResult`; `.propagators` has shape ([b], time, n, n).
    """
    batching = gather_batching(batching, solve_keywords, "sepropagator")
    opts = merge_options(options, solve_keywords, "sepropagator")
    H, _, _, _ = from_qutip_arguments(H, None, (), ())
    result = _solve(
        H, None, ts, (), drives, (), open_system=False, save_states=True, batching=batching,
        time_units=time_units, options=opts, layout=layout,
    )  # fmt: skip
    return PropagatorResult(result)


def mepropagator(
    H: Complex[ArrayLike, "*batch n n"] | Operator,
    ts: Float[ArrayLike, " time"],
    *,
    jump_ops: Sequence = (),
    drives=(),
    batching: Batching | None = None,
    time_units: str = "ns",
    layout: str = "auto",
    options: SolveOptions | None = None,
    **solve_keywords: Any,
) -> PropagatorResult:
    r"""The Lindblad superoperator $S(t)$: $\mathrm{vec}\,\rho(t) = S(t)\,\mathrm{vec}\,\rho(t_0)$, columns stacked.

    Args:
        H: Hamiltonian (n, n) or a batch (b, n, n), rad per `time_units`.
        ts: save times (strictly increasing, `time_units`); $S(\texttt{ts[0]}) = I_{n^2}$.
        jump_ops: jump operators $L_k = \sqrt{\gamma_k} A_k$, as in `mesolve`.
        drives: `Drive(protocol, operator)` terms, as in `mesolve`.
        batching: the batch dimension of `H` / `jump_ops` and how the members (batch × n² columns) run.
        time_units: "ns" or "us", as in `mesolve`.
        layout: operator storage ("auto", "dia", "dense").
        options: a [`SolveOptions`][difflab.SolveOptions], as in `mesolve`.
        **solve_keywords: the fields of `SolveOptions` as keywords.

    Returns:
        `PropagatorResult`; `.propagators` has shape ([b], time, n², n²). Apply it as
        `(S @ rho.T.reshape(-1)).reshape(n, n).T` (`rho.T.reshape(-1)` stacks the columns of `rho`).
    """
    batching = gather_batching(batching, solve_keywords, "mepropagator")
    opts = merge_options(options, solve_keywords, "mepropagator")
    H, _, jump_ops, _ = from_qutip_arguments(H, None, jump_ops, ())
    result = _solve(
        H, None, ts, jump_ops, drives, (), open_system=True, save_states=True, batching=batching,
        time_units=time_units, options=opts, layout=layout,
    )  # fmt: skip
    return PropagatorResult(result)
