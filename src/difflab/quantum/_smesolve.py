r"""`smesolve`: the Lindblad equation unravelled into diffusive trajectories of homodyne or heterodyne detection.

Each trajectory solves the Itô stochastic master equation of continuously monitored jump operators $L_m$ (a subset
of the $L_k$, each detected with efficiency $\eta_m \in [0, 1]$):

$$ d\rho = -i[H, \rho]\,dt + \sum_k \mathcal{D}[L_k]\rho\,dt + \sum_m \sqrt{\eta_m}\,\mathcal{H}[L_m]\rho\,dW_m, $$

$$ \mathcal{D}[L]\rho = L\rho L^\dagger - \tfrac12\{L^\dagger L, \rho\}, \qquad
   \mathcal{H}[c]\rho = c\rho + \rho c^\dagger - \mathrm{tr}(c\rho + \rho c^\dagger)\,\rho, $$

with independent Wiener increments $dW_m$, and records the integrated homodyne currents

$$ dY_m = \sqrt{\eta_m}\,\mathrm{tr}(L_m\rho + \rho L_m^\dagger)\,dt + dW_m, $$

integrated as extra components of the state, so that the record is driven by the same Brownian path as $\rho$.
`SMEResult.currents` holds $J_m = \Delta Y_m / \Delta t$ over each bin between consecutive save times. The average
of $\rho$ over trajectories obeys the Lindblad equation (`mesolve`) whatever the $\eta_m$.

**Heterodyne detection** of a channel measures both quadratures at once: it is the homodyne detection of two
operators, $L_m/\sqrt2$ and $-iL_m/\sqrt2$, each with its own Wiener process, so each record carries half the signal
($\mathbb{E}\,dY_I = \sqrt{\eta_m/2}\,\langle L_m + L_m^\dagger\rangle dt$,
$\mathbb{E}\,dY_Q = \sqrt{\eta_m/2}\,\langle -iL_m + iL_m^\dagger\rangle dt$) and the same unit noise; for a
cavity field $L = \sqrt\kappa\,a$ the pair is $\sqrt{2\eta\kappa}\,(\mathrm{Re}, \mathrm{Im})\langle a\rangle$.
References: Wiseman & Milburn, *Quantum Measurement and Control* (Cambridge, 2010), ch. 4; Jacobs & Steck,
Contemp. Phys. 47, 279 (2006).

**Scheme.** Real components $(\mathrm{Re}\,\rho, \mathrm{Im}\,\rho, Y)$ are solved by `diffrax.diffeqsolve` with
`MultiTerm(ODETerm(drift), ControlTerm(diffusion, brownian))` on a fixed grid: every save interval is split into the
fewest equal steps no longer than `dt0`, so the states and records are saved where steps end. The default step is
`Rouchon()` (`_smesolve_rouchon.py`): Rouchon & Ralph's normalised completely positive map, which keeps every
trajectory a density matrix (exactly in exact arithmetic, to round-off at any step that resolves the generator, as
the default step does), has weak order 1 and, for one channel, follows the exact filter of its
record to first order. `diffrax.Euler()` (Euler–Maruyama, strong order 1/2) and, for one measured channel (whose
noise commutes with itself), `diffrax.ItoMilstein()` (strong order 1) step the Itô equation itself; they keep $\rho$
Hermitian and of unit trace (each increment is Hermitian, and traceless when $\mathrm{tr}\,\rho = 1$) but positive
only to their accuracy: for a driven qubit ($\Omega = 2\gamma$, detuned by $\gamma/2$) whose decay is measured with
$\eta = 1$, at $dt = 10^{-3}/\gamma$, the length of the Bloch vector strays from 1 by 0.002 on average and by at
most 0.08 over 200 trajectories with Milstein (0.02 and 0.4 with Euler–Maruyama), and with its dephasing measured
too, Euler–Maruyama at half the default step takes 885 of 1000 trajectories out of the ball
(benchmarks/quantum_sme_steps.py). diffrax's other SDE solvers converge to the Stratonovich solution and are
refused. The Brownian path draws each step's increment from the trajectory's key and the step's index
(`_smesolve_noise.py` says why not a `VirtualBrownianTree`): exact in law on the grid, and a function of the key
alone, so the reverse pass of a gradient sees the very noise of the forward pass.

**Gradients.** With the noise fixed by `key`, every trajectory is a smooth function of `H`, `jump_ops`, `etas` and
`rho0` (no branching, unlike jumps), so `jax.grad` of the trajectory average of a smooth function of the
expectations or currents is the pathwise (reparameterised) derivative: an unbiased estimate of the derivative of the
discretised average, with its own sampling error. Reverse mode goes through diffrax's
`RecursiveCheckpointAdjoint` (the default `adjoint`); forward mode (`jax.jvp`) needs `adjoint=diffrax.ForwardMode()`.
Not differentiable: `ts` and `dt0` (they fix the step grid), `key`; the derivative with respect to $\eta_m$ is
infinite at $\eta_m = 0$ ($\sqrt{\eta}$). Under `jax.grad` the default step cannot be computed from traced operators:
pass `dt0`.

**Time-dependent H.** `H` may be `[H0, Drive(protocol, operator), ...]`, $H(t) = H_0 + \sum_j u_j(t)\,H_j$
(`_smesolve_drives.py`): the drives enter the drift, their jump times are step boundaries, their largest sampled
amplitude counts in the default step, and `jax.grad` goes through their parameters as through `H`'s.

Units: ħ = 1, times in `time_units`, `H` in rad per `time_units`, $L_k = \sqrt{\gamma_k} A_k$ with $\gamma_k$ in
1/`time_units`; $W$ and $Y$ in $\sqrt{\text{time\_units}}$, the currents in $1/\sqrt{\text{time\_units}}$. QuTiP:
`smesolve(H, rho0, tlist, c_ops, sc_ops, heterodyne=False, e_ops=..., ntraj=...)`; dynamiqs:
`dsmesolve(H, jump_ops, etas, rho0, tsave, keys)`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Complex, Float, PRNGKeyArray

from ..core.internal import SolveOptions, check_finite, check_increasing, check_key, is_concrete, merge_options
from ._checks import check_density, check_ket, check_time_units
from ._complex import as_complex, from_parts
from ._drives import Controls
from ._mesolve import _exp_ops, _ket_column
from ._operator import check_numeric
from ._qutip import from_qutip_arguments
from ._smesolve_checks import (
    check_count,
    check_etas,
    check_fixed_step_options,
    check_solver,
    check_step,
    measured_channels,
    step_grid,
    warn_unphysical,
    warn_unresolved_step,
)
from ._smesolve_drives import drive_rate, drive_terms, edges_inside, split_drives
from ._smesolve_noise import StepBrownianPath
from ._smesolve_result import SMEResult
from ._smesolve_rouchon import KrausOperators, generator, record_signal
from ._unravelling import unbatched_operators

#: Trajectories per vmapped batch are bounded so that a batch's saved values and states stay near 2**24 floats
#: (128 MiB in float64); a last, partial batch is padded to the same size so that it reuses the compiled program.
BATCH_FLOATS = 2**24


class _Problem(eqx.Module):
    H: Array  # (n, n) complex, the static part
    drive_ops: Array  # (d, n, n) complex, the drives' operators H_j
    controls: Controls  # their amplitudes u_j(t), rad per time unit
    jumps: Array  # (k, n, n)
    measured_ops: Array  # (m, n, n), the measured L_m without their sqrt(eta)
    etas: Array  # (m,)
    unread: Array  # (k,): 1 - eta_k, the part of each L_k that is not detected (1 when it is not measured)
    exp_ops: Array  # (e, n, n)
    y0: Array  # (2 n^2 + m,) real: Re rho, Im rho, Y = 0
    grid: Array  # step times; the save times are among them
    ts: Array
    solver: Any
    adjoint: Any
    throw: bool = eqx.field(static=True)


def smesolve(
    H: Complex[ArrayLike, "n n"],
    rho0: Complex[ArrayLike, "n n"] | Complex[ArrayLike, " n"],
    ts: Float[ArrayLike, " time"],
    jump_ops: Sequence,
    *,
    measured: Sequence[int] | Sequence[bool] | None = None,
    etas: Float[ArrayLike, "*measured"] = 1.0,
    ntraj: int = 500,
    key: PRNGKeyArray,
    exp_ops: Sequence | Mapping = (),
    time_units: str = "ns",
    options: SolveOptions | None = None,
    **solve_keywords: Any,
) -> SMEResult:
    r"""Average `ntraj` homodyne trajectories of the stochastic master equation from `rho0`.

    Each trajectory solves, in Itô form, with independent Wiener increments $dW_m$,

    $$ d\rho = -i[H, \rho]\,dt + \sum_k \mathcal{D}[L_k]\rho\,dt
       + \sum_{m \in \text{measured}} \sqrt{\eta_m}\,\mathcal{H}[L_m]\rho\,dW_m, \qquad
       dY_m = \sqrt{\eta_m}\,\mathrm{tr}(L_m\rho + \rho L_m^\dagger)\,dt + dW_m, $$

    $\mathcal{D}[L]\rho = L\rho L^\dagger - \frac12\{L^\dagger L, \rho\}$,
    $\mathcal{H}[c]\rho = c\rho + \rho c^\dagger - \mathrm{tr}(c\rho + \rho c^\dagger)\rho$ (Wiseman & Milburn,
    *Quantum Measurement and Control*, 2010, ch. 4). Fixed steps of at most `dt0`, by default Rouchon & Ralph's
    positive map (`Rouchon()`, weak order 1): every trajectory stays a density matrix. With the noise fixed by
    `key`, `jax.grad` through a trajectory average is the pathwise derivative with respect to `H`, `jump_ops`,
    `etas` and `rho0` (pass `dt0`). Units: ħ = 1, $Y$ in $\sqrt{\text{time\_units}}$, currents in
    $1/\sqrt{\text{time\_units}}$.

    Args:
        H: the Hamiltonian, rad per `time_units`: one (n, n) operator (array, `Operator` or QuTiP `Qobj`), or a
            list `[H0, Drive(protocol, operator), ...]` for $H(t) = H_0 + \sum_j u_j(t) H_j$ (QuTiP's list form,
            with the `Drive` terms of `sesolve`/`mesolve`); the drives' pulse edges become step boundaries.
        rho0: initial density matrix (n, n), or a ket (n,).
        ts: save times (strictly increasing, `time_units`); the trajectories start at `ts[0]`, and the currents
            are averaged over the bins between consecutive times.
        jump_ops: jump operators $L_k = \sqrt{\gamma_k} A_k$ (n, n); at least one.
        measured: which jump operators are monitored, and how: indices into `jump_ops` or a boolean mask of one
            entry per operator (homodyne detection), or a mapping from index to `"homodyne"` or `"heterodyne"`
            (QuTiP's `heterodyne=True` for all is `{k: "heterodyne" for k in ...}`); default all, homodyne. The
            others only dissipate. A heterodyne channel gives two records, its in-phase and quadrature currents of
            $L_m/\sqrt2$ and $-iL_m/\sqrt2$.
        etas: detection efficiencies $\eta_m \in [0, 1]$: one number for every measured channel, or one per
            measured operator in the order of `measured` (default 1, perfect detection). With $\eta_m = 0$ the
            channel's current is pure noise.
        ntraj: number of trajectories (an integer >= 1).
        key: a JAX PRNG key (`jax.random.key(0)`); trajectory j uses `jax.random.fold_in(key, j)`, so a run is
            reproducible and its first trajectories are those of a shorter run with the same key.
        exp_ops: operators whose trajectory averages are returned (a sequence, or a mapping name -> operator).
        time_units: "ns" or "us".
        options: `SolveOptions`: `dt0`, the largest step in `time_units` (default 1 % of
            $1/(\|H_0\|_2 + \sum_j \max|u_j|\,\|H_j\|_2 + \sum_k \|L_k\|_2^2)$; required under `jax.grad`),
            `solver` (an Itô solver; default `Rouchon()`, which keeps every trajectory positive;
            `diffrax.Euler()`, or `diffrax.ItoMilstein()` for one measured channel), `adjoint`,
            `max_steps`, `throw`. `rtol`, `atol` and `stepsize_controller` are refused: the steps are fixed.
        **solve_keywords: the fields of `SolveOptions` as keywords (`dt0=1e-3`).

    Returns:
        `SMEResult`: `expects` and `expects_stderr` (time, observable), per-trajectory values, the currents
        (trajectory, bin, record; one record per homodyne channel, two per heterodyne one) and the
        trajectory-averaged final state.
    """
    opts = merge_options(options, solve_keywords, "smesolve")
    H, drives = split_drives(H)
    H, rho0, jump_ops, exp_ops = from_qutip_arguments(H, rho0, jump_ops, exp_ops, "rho0")
    ntraj = check_count(ntraj, "ntraj")
    check_key(key)
    time_units = check_time_units(time_units)
    ts = _save_times(ts, time_units)
    H0, jumps = unbatched_operators(H, jump_ops, "smesolve", "a homodyne record monitors one of them")
    n = H0.n
    indices, heterodyne = measured_channels(measured, len(jumps))
    names, ops, _ = _exp_ops(exp_ops, n)
    rho = _initial_density(rho0, n)
    H_dense, L_dense = H0.to_dense(), jnp.stack([L.to_dense() for L in jumps])
    D_dense, controls = drive_terms(drives, n, H_dense.dtype)
    E_dense = jnp.stack([op.to_dense() for op in ops] or [jnp.zeros((n, n), H_dense.dtype)])
    # one precision for the whole solve, the widest given (cast here: the solve mixes no dtypes implicitly)
    cdtype = functools.reduce(np.promote_types, [np.dtype(x.dtype) for x in (H_dense, L_dense, E_dense, rho)])
    H_dense, L_dense, E_dense, rho, D_dense = (x.astype(cdtype) for x in (H_dense, L_dense, E_dense, rho, D_dense))
    real = jnp.finfo(cdtype).dtype
    rate = drive_rate(controls, D_dense, ts)
    dt = check_step(opts.dt0, H_dense, list(L_dense), rate)
    grid = step_grid(np.union1d(ts, edges_inside(controls, ts)), dt)
    check_fixed_step_options(opts, grid.shape[0] - 1)
    warn_unresolved_step(H_dense, L_dense, dt, grid.shape[0] - 1, rate)
    channel_etas = check_etas(etas, len(indices), real)
    ops, record_etas, channels, quadratures = _records(L_dense, indices, heterodyne, channel_etas)
    unread = jnp.ones(len(jumps), real).at[jnp.asarray(indices)].set(1 - channel_etas)
    problem = _Problem(
        H_dense, D_dense, controls, L_dense, ops, record_etas, unread, E_dense,
        jnp.concatenate([jnp.real(rho).ravel(), jnp.imag(rho).ravel(), jnp.zeros(len(channels), real)]),
        jnp.asarray(grid, real), jnp.asarray(ts, real),
        check_solver(opts.solver, len(channels)), opts.adjoint or diffrax.RecursiveCheckpointAdjoint(), opts.throw,
    )  # fmt: skip
    values, records, finals = _run(problem, jax.vmap(jax.random.fold_in, (None, 0))(key, jnp.arange(ntraj)), n)
    warn_unphysical(finals, problem.solver)
    values = values[..., : len(names)]
    currents = jnp.diff(records, axis=1) / jnp.diff(problem.ts)[None, :, None]
    mean = jnp.mean(values, axis=0)
    # one trajectory has no spread to measure: its standard error is NaN (ddof=1)
    spread = from_parts(jnp.std(values.real, axis=0, ddof=1), jnp.std(values.imag, axis=0, ddof=1))
    stderr = spread / as_complex(np.sqrt(ntraj), spread)
    final = jnp.mean(finals, axis=0)
    return SMEResult(problem.ts, mean, stderr, values, currents, final, problem.etas, channels, tuple(names),
                     time_units, quadratures)  # fmt: skip


def _records(L: Array, indices, heterodyne, etas: Array):
    r"""The records detected: operators $c_r$ (r, n, n), efficiencies (r,), channel index and quadrature of each.

    A homodyne channel gives one record, of $L_m$. A heterodyne channel gives two, of $L_m/\sqrt2$ (in phase, "I")
    and $-iL_m/\sqrt2$ (quadrature, "Q"), each with its own Wiener process: both quadratures at once, each with half
    the signal (Wiseman & Milburn 2010, sec. 4.5). The unconditional dynamics is the same either way.
    """
    ops, effs, channels, quadratures = [], [], [], []
    for j, (k, both) in enumerate(zip(indices, heterodyne, strict=True)):
        if both:
            half = L[k] * math.sqrt(0.5)  # a Python float: weakly typed, L's precision kept
            ops += [half, -1j * half]
            effs += [etas[j], etas[j]]
            channels += [k, k]
            quadratures += ["I", "Q"]
        else:
            ops.append(L[k])
            effs.append(etas[j])
            channels.append(k)
            quadratures.append("homodyne")
    return jnp.stack(ops), jnp.stack(effs), tuple(channels), tuple(quadratures)


def _save_times(ts, time_units: str) -> np.ndarray:
    """`ts` as a concrete, finite, strictly increasing 1-D float array of at least two times."""
    check_numeric(ts, "ts", f"a 1-D numeric array of save times ({time_units})")
    if not is_concrete(ts):
        raise ValueError("ts must be concrete for smesolve: the save times fix the step grid (a shape)")
    values = np.asarray(ts, dtype=float)  # NumPy: inside jax.jit a cast by jnp would be traced
    if values.ndim != 1 or values.shape[0] < 2:
        raise ValueError(f"ts must be 1-D with at least 2 times; got shape {values.shape}")
    check_finite(values, "ts")
    check_increasing(values, "ts")
    return values


def _initial_density(rho0, n: int) -> Array:
    """`rho0` (a ket or a density matrix) as a checked complex density matrix (n, n)."""
    if isinstance(rho0, list | tuple) or np.ndim(rho0) == 3:
        raise ValueError(f"rho0 must be one state, a ket ({n},) or a density matrix ({n}, {n}), for smesolve")
    state = as_complex(_ket_column(rho0, n, "rho0"))  # of the state's own precision
    if state.ndim == 1:
        check_ket(state, n, "rho0")
        state = jnp.outer(state, jnp.conj(state))
    check_density(state, n, "rho0")
    return 0.5 * (state + jnp.conj(state.T))  # exactly Hermitian: the scheme keeps what it starts from


def _run(problem: _Problem, keys, n: int):
    """Every trajectory's saved values, in batches of equal size (the last one padded with repeated keys)."""
    ntraj = keys.shape[0]
    per_trajectory = problem.ts.shape[0] * (2 * problem.exp_ops.shape[0] + problem.etas.shape[0]) + 4 * n * n
    size = max(1, min(ntraj, BATCH_FLOATS // per_trajectory))
    parts = []
    for start in range(0, ntraj, size):
        batch = keys[start : start + size]
        pad = size - batch.shape[0]
        if pad:
            batch = jnp.concatenate([batch, jnp.repeat(batch[-1:], pad, axis=0)])
        parts.append([x[: size - pad] for x in _run_batch(problem, batch)])
    return (jnp.concatenate(p, axis=0) for p in zip(*parts))


@eqx.filter_jit
def _run_batch(problem: _Problem, keys):
    return jax.vmap(lambda k: _trajectory(problem, k))(keys)


def _trajectory(p: _Problem, key):
    """One trajectory: (expectations (time, e), integrated currents Y (time, m), final state (n, n))."""
    n = p.H.shape[0]
    n2, m = n * n, p.measured_ops.shape[0]
    G0 = -1j * p.H - 0.5 * jnp.einsum("kji,kjl->il", jnp.conj(p.jumps), p.jumps)  # -i H_eff without the drives
    c = as_complex(jnp.sqrt(p.etas), p.H)[:, None, None] * p.measured_ops  # sqrt(eta_m) L_m

    def density(y):
        return jax.lax.complex(y[:n2], y[n2 : 2 * n2]).reshape(n, n)

    def drift(t, y, args):
        rho = density(y)
        G = generator(G0, p.drive_ops, p.controls, t)
        d = G @ rho + rho @ jnp.conj(G.T) + jnp.einsum("kij,jl,kml->im", p.jumps, rho, jnp.conj(p.jumps))
        d = 0.5 * (d + jnp.conj(d.T))  # exactly Hermitian increments keep rho exactly Hermitian
        return jnp.concatenate([jnp.real(d).ravel(), jnp.imag(d).ravel(), record_signal(c, rho)])

    def diffusion(t, y, args):
        rho = density(y)
        cr = c @ rho
        e = cr + jnp.conj(jnp.swapaxes(cr, 1, 2))  # c rho + rho c^dag
        h = e - as_complex(jnp.real(jnp.trace(e, axis1=1, axis2=2)), rho)[:, None, None] * rho[None]
        rows = [jnp.real(h).reshape(m, n2), jnp.imag(h).reshape(m, n2), jnp.eye(m, dtype=y.dtype)]
        return jnp.concatenate(rows, axis=1).T  # (2 n^2 + m, m): dY_m carries dW_m itself

    def save(t, y, args):
        return jnp.einsum("eij,ji->e", p.exp_ops, density(y)), y[2 * n2 :]

    t0, t1 = p.grid[0], p.grid[-1]
    brownian = StepBrownianPath(p.grid, key, jax.ShapeDtypeStruct((m,), p.y0.dtype))
    terms: diffrax.MultiTerm = diffrax.MultiTerm(diffrax.ODETerm(drift), diffrax.ControlTerm(diffusion, brownian))
    saveat = diffrax.SaveAt(subs=[diffrax.SubSaveAt(ts=p.ts, fn=save), diffrax.SubSaveAt(t1=True)])
    kraus = KrausOperators(G0, p.drive_ops, p.controls, p.jumps, p.unread, c)  # what Rouchon steps with
    sol = diffrax.diffeqsolve(
        terms, p.solver, t0, t1, None, p.y0, args=kraus, saveat=saveat, stepsize_controller=diffrax.StepTo(p.grid),
        max_steps=p.grid.shape[0], adjoint=p.adjoint, throw=p.throw,
    )  # fmt: skip
    (values, records), final = sol.ys
    return values, records, density(final[0])
