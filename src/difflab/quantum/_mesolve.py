r"""`sesolve` and `mesolve`: QuTiP-style entry points returning labelled `xarray.Dataset`s.

Units: $\hbar = 1$; times in `time_units` (ns or µs); `H`, drive amplitudes in rad per time unit; jump operators
carry $\sqrt{\text{rate}}$ (rate in 1/time unit). Expectation values are saved at `ts` without storing states unless
`save_states=True`.

Batching: `H` and each jump operator may carry a leading batch axis (b, n, n) — all batched inputs share one
dimension, named and labelled by `batching=Batching(dim, coords)` — and the initial state may be a list (or stacked
array) of states (dimension `initial_state`). Every combination is solved by one compiled single solve, run over
the members with the ensemble strategies (`Batching(strategy=...)`, default per backend: one batched solve on
accelerators; see `_batch.py` and docs/backends.md).

Both return a `QuantumResult` (a pytree: `expects`, `states`, `ts`; `.to_xarray()` for the labelled Dataset they
returned before) and take the solver keywords of `difflab.simulate` (`solver`, `stepsize_controller`, `dt0`,
`adjoint`, `max_steps`, `throw`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import ArrayLike, Complex, Float

from ..core.internal import (
    SolveOptions,
    check_finite,
    check_increasing,
    default_solver,
    default_strategy,
    merge_options,
)
from ._base import convert_drive_list, default_controller
from ._batch import solve_members
from ._batching import Batching, gather_batching
from ._checks import check_density, check_hermitian, check_ket, check_same_dim
from ._dataset import QuantumResult
from ._lindblad import LindbladModel
from ._operator import Operator, as_operator_batch, check_numeric
from ._operator_cache import cached_operator, check_finite_once
from ._qutip import from_qutip_arguments
from ._schrodinger import SchrodingerModel, split_state
from ._solve import QuantumModel, solve_model


class _Problem(eqx.Module):
    """Everything one member's solve needs; `*_batched` flags say which operators carry the batch axis."""

    H0: Operator
    drives: tuple
    jump_ops: tuple[Operator, ...]
    y0: dict
    ts: jax.Array
    exp_ops: tuple[Operator, ...]
    H0_batched: bool = eqx.field(static=True)
    jump_batched: tuple[bool, ...] = eqx.field(static=True)
    n_states: int = eqx.field(static=True)
    open_system: bool = eqx.field(static=True)
    save_states: bool = eqx.field(static=True)
    options: tuple = eqx.field(static=True)
    time_units: str = eqx.field(static=True)


def _solve_member(problem: _Problem, index):
    b, m = index // problem.n_states, index % problem.n_states

    def pick(op, batched):
        return jax.tree.map(lambda x: x[b], op) if batched else op

    H0 = pick(problem.H0, problem.H0_batched)
    y0 = {k: v[m] for k, v in problem.y0.items()}
    if problem.open_system:
        jumps = [pick(L, f) for L, f in zip(problem.jump_ops, problem.jump_batched)]
        model: QuantumModel = LindbladModel(H0, problem.drives, jumps, time_units=problem.time_units)
    else:
        model = SchrodingerModel(H0, problem.drives, time_units=problem.time_units)
    return solve_model(
        model,
        problem.ts,
        exp_ops=problem.exp_ops,
        y0=y0,
        save_states=problem.save_states,
        **dict(problem.options),
    )


def sesolve(
    H: Complex[ArrayLike, "*batch n n"] | Operator,
    psi0: Complex[ArrayLike, "*states n"] | Sequence,
    ts: Float[ArrayLike, " time"],
    *,
    drives=(),
    exp_ops: Sequence | Mapping = (),
    save_states: bool = False,
    batching: Batching | None = None,
    time_units: str = "ns",
    layout: str = "auto",
    options: SolveOptions | None = None,
    **solve_keywords: Any,
) -> QuantumResult:
    r"""Solve $i\dot\psi = (H + \sum_j u_j(t) H_j)\psi$ and return $\langle E_m\rangle(t)$ as a Dataset.

    Args:
        H: Hamiltonian (n, n) or a batch (b, n, n), rad per `time_units`.
        psi0: ket (n,), or a list / (m, n) array of kets (dimension `initial_state`).
        ts: save times (strictly increasing, `time_units`); the solve starts at `ts[0]`.
        drives: `Drive(protocol, operator)` terms.
        exp_ops: operators whose expectation values are saved (a sequence, or a mapping name -> operator).
        save_states: also save $\psi(t)$ (variables `psi_re`, `psi_im`, dims (..., time, level)); always
            saved when `exp_ops` is empty.
        batching: a [`Batching`][difflab.quantum.Batching]: the name and coordinates of the batch dimension of
            `H`, and how the members run (default per backend and state size).
        time_units: "ns" or "us": the unit of `ts` and `dt0`; `H` and the drives are in rad per this unit.
        layout: operator storage ("auto", "dia", "dense").
        options: a [`SolveOptions`][difflab.SolveOptions], as in `difflab.simulate`: `rtol` and `atol`
            (dimensionless, as the state) tighten the default controller (PID at rtol 1e-6, atol 1e-8 with the
            maximum step half the shortest drive feature), `dt0` is in `time_units`; default solver per backend.
        **solve_keywords: the fields of `SolveOptions` as keywords (`rtol=1e-8`), not both ways for one field.
            `batch_dim`, `batch_coords`, `strategy` and `batch` are deprecated spellings of the fields of
            `batching` (they go at 0.3).

    Returns:
        `QuantumResult`: `expects` (complex, [batch], [initial_state], time, observable), `states`, `ts`,
        `num_steps`; `.to_xarray()` gives a Dataset with `expect` (dims [batch_dim], [initial_state], time,
        observable), `expect_imag` when an observable is not Hermitian, optional states, `num_steps`, units and
        provenance attributes.
    """
    batching = gather_batching(batching, solve_keywords, "sesolve")
    opts = merge_options(options, solve_keywords, "sesolve")
    H, psi0, _, exp_ops = from_qutip_arguments(H, psi0, (), exp_ops, "psi0")
    return _solve(
        H, psi0, ts, (), drives, exp_ops, open_system=False, save_states=save_states, batching=batching,
        time_units=time_units, options=opts, layout=layout,
    )  # fmt: skip


def mesolve(
    H: Complex[ArrayLike, "*batch n n"] | Operator,
    rho0: Complex[ArrayLike, "*states n n"] | Complex[ArrayLike, " n"] | Sequence,
    ts: Float[ArrayLike, " time"],
    *,
    jump_ops: Sequence = (),
    drives=(),
    exp_ops: Sequence | Mapping = (),
    save_states: bool = False,
    batching: Batching | None = None,
    time_units: str = "ns",
    layout: str = "auto",
    options: SolveOptions | None = None,
    **solve_keywords: Any,
) -> QuantumResult:
    r"""Solve the Lindblad equation $\dot\rho = -i[H(t), \rho] + \sum_k D[L_k]\rho$; return $\mathrm{tr}(E_m\rho(t))$.

    Args:
        H: Hamiltonian (n, n) or a batch (b, n, n), rad per `time_units`.
        rho0: density matrix (n, n) or ket (n,), or a list of them / an (m, n, n) array (dimension `initial_state`).
        ts: save times (strictly increasing, `time_units`).
        jump_ops: jump operators $L_k = \sqrt{\gamma_k} A_k$, each (n, n) or a batch (b, n, n).
        drives: `Drive(protocol, operator)` terms, as in `sesolve`.
        exp_ops: operators whose expectation values are saved, as in `sesolve`.
        save_states: also save $\rho(t)$ (variables `rho_re`, `rho_im` in the Dataset); always saved when
            `exp_ops` is empty.
        batching: the batch dimension's name and coordinates and how the members run, as in `sesolve`.
        time_units: "ns" or "us", as in `sesolve` (`H`, the jump operators' rates and the drives per this unit).
        layout: operator storage ("auto", "dia", "dense"), as in `sesolve`.
        options: a [`SolveOptions`][difflab.SolveOptions], as in `sesolve`.
        **solve_keywords: the fields of `SolveOptions` as keywords, as in `sesolve`.

    Returns:
        `QuantumResult` as described in `sesolve`.

    Example:
        >>> a = tensor(eye(2), destroy(10)); sm = tensor(sigmam(), eye(10))
        >>> H, psi0 = a.T.conj() @ sm + a @ sm.T.conj(), tensor(basis(2, 0), fock(10, 0))
        >>> result = mesolve(H, psi0, jnp.linspace(0, 10, 101), jump_ops=[jnp.sqrt(0.1) * a],
        ...                  exp_ops={"n": a.T.conj() @ a})
        >>> ds = result.to_xarray()
    """
    batching = gather_batching(batching, solve_keywords, "mesolve")
    opts = merge_options(options, solve_keywords, "mesolve")
    H, rho0, jump_ops, exp_ops = from_qutip_arguments(H, rho0, jump_ops, exp_ops, "rho0")
    return _solve(
        H, rho0, ts, jump_ops, drives, exp_ops, open_system=True, save_states=save_states, batching=batching,
        time_units=time_units, options=opts, layout=layout,
    )  # fmt: skip


def _solve(H, state0, ts, jump_ops, drives, exp_ops, *, open_system, save_states, batching, time_units, options,
           layout) -> QuantumResult:  # fmt: skip
    if not isinstance(save_states, bool | np.bool_):
        raise TypeError(f"save_states must be True or False; got {type(save_states).__name__} {save_states!r}")
    batch_dim = batching.dim
    check_numeric(ts, "ts", f"a 1-D numeric array of save times ({time_units})")
    ts = jnp.asarray(ts, dtype=float)
    if ts.ndim != 1 or ts.shape[0] < 2:
        raise ValueError(f"ts must be 1-D with at least 2 times; got shape {ts.shape}")
    check_finite(ts, "ts")
    check_increasing(ts, "ts")
    H0, b_H = _hamiltonian(H, layout)
    n = H0.n
    drives = convert_drive_list(drives, n)
    jumps, b_jumps = _jump_operators(jump_ops, n, layout)
    sizes = {b for b in (b_H, *b_jumps) if b is not None}
    if len(sizes) > 1:
        raise ValueError(f"Batched H and jump_ops must share one batch size; got sizes {sorted(sizes)}")
    n_batch = sizes.pop() if sizes else None
    coords = _batch_coords(batching.coords, n_batch, batch_dim)  # before the solve, which may take long
    names, ops, all_hermitian = _exp_ops(exp_ops, n)
    # without observables the states are the result (as QuTiP and dynamiqs return them); saving nothing at all
    # failed inside the solve
    save_states = bool(save_states) or not ops
    if state0 is None:  # a propagator: the basis kets, or the basis matrices |i><j| in column-stacking order
        y0, n_states = basis_states(n, open_system)
        state0 = [None] * n_states
    else:
        state0 = _ket_column(state0, n, "rho0" if open_system else "psi0")  # (n, 1) is one ket, not n kets
        y0, n_states = _initial_states(state0, n, open_system)
    members = (n_batch or 1) * n_states
    state_size = 2 * (n * n if open_system else n)
    strategy = batching.strategy or default_strategy(adaptive=True, state_size=state_size)
    # the models' own default controller and solver, computed once for all members (the options were checked when
    # they were made, before any member is traced)
    controller = options.stepsize_controller or options.controller(default_controller(drives))
    options = dict(solver=options.solver or default_solver(), stepsize_controller=controller, dt0=options.dt0,
                   adjoint=options.adjoint, max_steps=options.max_steps, throw=options.throw)  # fmt: skip
    problem = _Problem(
        H0, drives, tuple(jumps), y0, ts, tuple(ops), b_H is not None, tuple(b is not None for b in b_jumps),
        n_states, open_system, bool(save_states), tuple(options.items()), time_units,
    )  # fmt: skip
    traj = solve_members(_solve_member, problem, members, strategy)
    lead = ((n_batch,) if n_batch else ()) + ((n_states,) if n_states > 1 or _is_list(state0, open_system) else ())
    return QuantumResult(
        traj, lead, tuple(names), all_hermitian, batch_dim, coords, open_system, time_units, n_batch
    )  # fmt: skip


def _hamiltonian(H, layout: str) -> tuple[Operator, int | None]:
    """`H` checked (numeric, finite, Hermitian, at least 1×1) and converted; returns `(operator, batch size)`."""
    if not isinstance(H, Operator):
        expected = "a Hamiltonian: a numeric (n, n) array (e.g. q.sigmax()), a batch (b, n, n) or an Operator"
        check_numeric(H, "H", expected)
    if np.ndim(H) == 2 and not isinstance(H, Operator):
        check_finite_once(H, "H")
        H0, herm = cached_operator(H, name="H", layout=layout)
        if not herm:
            check_hermitian(H, "H")  # raises with the details
        b_H = None
    else:
        check_hermitian(H, "H")
        H0, b_H = as_operator_batch(H, name="H", layout=layout)
    if H0.n < 1:
        raise ValueError(f"H must act on at least one level; got shape {H0.shape}")
    return H0, b_H


def _jump_operators(jump_ops, n: int, layout: str) -> tuple[list[Operator], list[int | None]]:
    """Checked jump operators (n×n or batches (b, n, n), finite) and their batch sizes."""
    jumps, b_jumps = [], []
    for k, L in enumerate(_operator_list(jump_ops, "jump_ops")):
        check_same_dim(L, n, f"jump_ops[{k}]", "H")
        check_finite_once(L, f"jump_ops[{k}]")
        op, b = as_operator_batch(L, name=f"jump_ops[{k}]", layout=layout)
        jumps.append(op)
        b_jumps.append(b)
    return jumps, b_jumps


def _batch_coords(batch_coords, n_batch: int | None, batch_dim: str) -> tuple:
    """`batch_coords` as (name, values) pairs, refused unless each holds one value per member of the batch."""
    for key, values in (batch_coords or {}).items():
        size = np.shape(values)[0] if np.ndim(values) == 1 else None
        if size != n_batch:
            expected = f"{n_batch} values (one per member of the batch of H / jump_ops)" if n_batch else "no batch"
            raise ValueError(
                f"batch_coords[{key!r}] must be 1-D with {expected} along {batch_dim!r}; got shape {np.shape(values)}"
            )
    return tuple((key, tuple(np.asarray(values).tolist())) for key, values in (batch_coords or {}).items())


def _ket_column(state, n: int, name: str):
    """A column ket (n, 1) as the ket (n,) it stands for (after a check that `state` is numeric)."""
    if isinstance(state, list | tuple):
        return state
    check_numeric(state, name, f"a numeric array: a ket ({n},) or ({n}, 1), a density matrix ({n}, {n}) or a stack")
    return np.asarray(state)[:, 0] if np.shape(state) == (n, 1) and n > 1 else state


def _is_list(state0, open_system) -> bool:
    return isinstance(state0, list | tuple) or np.ndim(state0) == (3 if open_system else 2)


def _operator_list(ops, name: str):
    """`ops` as a sequence of operators: a lone operator would be iterated row by row, so it is refused."""
    if isinstance(ops, Operator) or (not isinstance(ops, list | tuple | Mapping) and np.ndim(ops) == 2):
        shape = (ops.n, ops.n) if isinstance(ops, Operator) else np.shape(ops)
        raise TypeError(f"{name} must be a list of operators; got a single operator of shape {shape}: pass [op]")
    return ops


def _exp_ops(exp_ops, n):
    exp_ops = _operator_list(exp_ops, "exp_ops")
    items = list(exp_ops.items()) if isinstance(exp_ops, Mapping) else [(f"e{m}", E) for m, E in enumerate(exp_ops)]
    ops, hermitian = [], []
    for name, E in items:
        check_same_dim(E, n, f"exp_ops[{name!r}]", "H")
        op, herm = cached_operator(E, name=f"exp_ops[{name!r}]")
        ops.append(op)
        hermitian.append(herm)
    return [name for name, _ in items], ops, all(hermitian)


def basis_states(n: int, open_system: bool) -> tuple[dict, int]:
    r"""Split basis states: the kets $|k\rangle$, or $|i\rangle\langle j|$ as member $i + n j$ (columns stacked).

    The Lindblad equation is linear in $\rho$, so these non-Hermitian, traceless "states" evolve into the columns
    of the superoperator; they bypass the density-matrix checks.
    """
    if not open_system:
        return split_state(np.eye(n, dtype=complex), "psi"), n
    basis = np.zeros((n * n, n, n), complex)
    for j in range(n):
        for i in range(n):
            basis[i + n * j, i, j] = 1.0
    return split_state(basis, "rho"), n * n


def _initial_states(state0, n, open_system):
    """Stacked split initial states, shape (m, n) or (m, n, n), and m."""
    label = "rho0" if open_system else "psi0"
    if not open_system and not isinstance(state0, list | tuple) and np.ndim(state0) == 2:
        check_ket(state0, n, label)  # an (m, n) stack, refused as a whole when it is an (n, n) density matrix
    states = list(state0) if _is_list(state0, open_system) else [state0]
    out = []
    for i, s in enumerate(states):
        name = label + (f"[{i}]" if len(states) > 1 else "")
        s = np.asarray(_ket_column(s, n, name), dtype=complex)
        if open_system:
            if s.ndim == 1:
                check_ket(s, n, name)
                s = np.outer(s, np.conj(s))
            check_density(s, n, name)
        else:
            check_ket(s, n, name)
        out.append(s)
    stacked = np.stack(out)
    return split_state(stacked, "rho" if open_system else "psi"), len(out)
