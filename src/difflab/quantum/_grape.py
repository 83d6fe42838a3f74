r"""`optimize_gate`: piecewise-constant optimal control of a gate (GRAPE).

The controls $u_k(t)$ of $H(t) = H_0 + \sum_k u_k(t) H_k$ are held constant on `slices` equal slices of the gate
time $T$; the propagator is the exact product of the slices' exponentials (`piecewise_propagator`), and the
gradient of the average gate fidelity with respect to every $u_{kj}$ is exact (reverse mode through `expm`).
GRAPE: Khaneja et al., J. Magn. Reson. 172, 296 (2005); with L-BFGS: de Fouquières et al., J. Magn. Reson.
212, 412 (2011). The objective, the amplitude bound (a tanh) and the slew-rate bound (a walk of bounded steps; both
exact by construction, no penalty) are in `_grape_objective`. With `jump_ops` the slices' propagators are the
superoperators $e^{\mathcal{L}_j \Delta t}$ of the Lindblad generator and the figures those of the channel
(`_piecewise_channel`, `_channel_fidelity`). Units: ħ = 1, time in ns, $H_0$ and the amplitudes in rad/ns, the slew
rate in rad/ns², the control operators dimensionless, decay rates in 1/ns.
QuTiP: `qutip_qtrl.pulseoptim.optimize_pulse_unitary` / `qutip_qoc.optimize_pulses` (GRAPE); dynamiqs: gradients
through `dq.sesolve` with `dq.pwc` drives.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxtyping import ArrayLike

from ..core.internal import optax_update
from ._checks import check_hermitian
from ._grape_checks import (
    check_bound,
    check_detunings,
    check_initial,
    check_positive_scalar,
    check_slices,
    check_subspace,
    check_target,
)
from ._grape_objective import GateProblem, amplitudes, figures, loss, parameters_of
from ._grape_result import GateOptimization
from ._piecewise_channel import check_jump_operators, dissipator
from ._piecewise_controls import check_control_system


@dataclass(frozen=True)
class GrapeOptions:
    r"""How `optimize_gate` runs.

    Attributes:
        steps: the most optimiser steps.
        tol: stop once the loss (infidelity + leakage penalty) is below this.
        leakage_weight: $w_L$, the weight of the mean leakage in the loss (dimensionless, >= 0).
        optimizer: an optax transformation; default `optax.lbfgs()` (with its zoom line search). Adam
            (`optax.adam(0.05)`) works too: the parameters are of order one.
        seed: of the random initial guess (used when `optimize_gate` gets no `initial`).
        starts: without `initial`, the most random starts tried one after another (seeds `seed`, `seed + 1`, ...)
            until one reaches `tol`; the best is returned. A bounded problem can end in a side minimum from one start
            (a slew-bounded CZ: F = 0.9966 and 0.964 from seeds 0 and 1, 0.9999992 from seed 2), and the later
            starts reuse the compiled step. `starts=1` keeps one.
        detuning_operator: $N$ (n, n), Hermitian, of the robust ensemble $H_0 + \delta_e N$ (`optimize_gate`'s
            `detunings`); default None: diag(0, 1, ..., n − 1), the number operator of one transmon (pass e.g.
            $n_1 + n_2$ for two).
    """

    steps: int = 500
    tol: float = 1e-7
    leakage_weight: float = 1.0
    optimizer: optax.GradientTransformation | None = None
    seed: int = 0
    detuning_operator: ArrayLike | None = None
    starts: int = 3

    def __post_init__(self):
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < 1:
            raise ValueError(f"GrapeOptions.steps must be an integer >= 1; got {self.steps!r}")
        if isinstance(self.starts, bool) or not isinstance(self.starts, int) or self.starts < 1:
            raise ValueError(f"GrapeOptions.starts must be an integer >= 1; got {self.starts!r}")
        check_positive_scalar(self.tol, "GrapeOptions.tol", "dimensionless")
        if not (np.ndim(self.leakage_weight) == 0 and 0 <= float(self.leakage_weight) < np.inf):
            raise ValueError(f"GrapeOptions.leakage_weight must be finite and >= 0; got {self.leakage_weight!r}")
        if self.detuning_operator is not None:
            check_hermitian(self.detuning_operator, "GrapeOptions.detuning_operator")


@functools.cache  # one wrapped optimiser per optimiser: a new closure would recompile `_step` on every call
def _with_extra_args(optimizer: optax.GradientTransformation) -> optax.GradientTransformationExtraArgs:
    return optax.with_extra_args_support(optimizer)


#: L-BFGS with optax's zoom line search: on the slice-exponential product it converges in tens of steps.
DEFAULT_OPTIMIZER = optax.lbfgs()


@eqx.filter_jit
def _step(params, state, problem: GateProblem, optimizer):
    (value, infidelity), grad = jax.value_and_grad(loss, has_aux=True)(params, problem)

    def value_fn(p):
        return loss(p, problem)[0]

    updates, state = optax_update(optimizer, grad, state, params, value=value, grad=grad, value_fn=value_fn)
    return optax.apply_updates(params, updates), state, value, infidelity


@eqx.filter_jit
def _figures(params, problem: GateProblem):
    return figures(amplitudes(params, problem), problem)


def _names(controls) -> tuple[tuple[str, ...], list]:
    if isinstance(controls, Mapping):
        return tuple(str(k) for k in controls), list(controls.values())
    if not isinstance(controls, Sequence) or isinstance(controls, str):
        raise ValueError(f"controls must be a sequence or a mapping name -> operator; got {controls!r}")
    return tuple(f"u{k}" for k in range(len(controls))), list(controls)


def _random_start(problem: GateProblem, slices: int, seed: int) -> dict:
    """Parameters of order 0.3 (amplitudes about a third of the bound): random, so no gradient vanishes by symmetry."""
    rng = np.random.default_rng(seed)
    k = problem.operators.shape[0]
    if problem.slew_step is None:
        return {"z": jnp.asarray(0.3 * rng.standard_normal((k, slices)))}
    z0, y = rng.standard_normal((k, 1)), rng.standard_normal((k, slices - 1))
    return {"z0": jnp.asarray(0.3 * z0), "y": jnp.asarray(0.3 * y)}


def optimize_gate(
    H0: ArrayLike,
    controls: Sequence | Mapping,
    target: ArrayLike,
    duration: float,
    slices: int,
    *,
    subspace: Sequence[int] | None = None,
    u_max: float | ArrayLike | None = None,
    slew_rate: float | ArrayLike | None = None,
    detunings: ArrayLike | None = None,
    jump_ops: Sequence = (),
    initial: ArrayLike | None = None,
    options: GrapeOptions | None = None,
) -> GateOptimization:
    r"""Piecewise-constant controls that make $U(T)$ of $H_0 + \sum_k u_k(t) H_k$ the gate `target` on `subspace`.

    Args:
        H0: drift Hamiltonian (n, n), rad/ns, Hermitian (e.g. a transmon's anharmonicity term, rotating frame).
        controls: the control operators $H_k$ (n, n), Hermitian, dimensionless: a sequence, or a mapping
            name -> operator (the names label the result's Dataset).
        target: the gate (d, d), unitary, on the computational levels `subspace` (d = n without one).
        duration: gate time $T$ (ns).
        slices: number of equal constant pieces of each control (>= 1).
        subspace: the d computational level indices (e.g. (0, 1) of a transmon; (0, 1, 3, 4) of two three-level
            transmons); leakage out of it is penalised (`GrapeOptions.leakage_weight`).
        u_max: amplitude bound (rad/ns), a number or one per control: $|u_k(t)| < u_{\max,k}$ exactly (tanh).
        slew_rate: slew bound (rad/ns²), a number or one per control: $|u_{k,j+1} - u_{kj}| < \sigma_k \Delta t$
            exactly, by a parametrisation (a walk of tanh-bounded steps; `_grape_objective`), not a penalty.
        detunings: a robust ensemble: the loss is averaged over $H_0 + \delta_e N$ for these $\delta_e$ (rad/ns),
            vmapped ($N$: `GrapeOptions.detuning_operator`, by default the transmon's number operator).
        jump_ops: jump operators $L_k = \sqrt{\gamma_k} A_k$ (n, n), rates $\gamma_k$ in 1/ns, as in `mesolve`:
            the gate is then the channel of the Lindblad equation (a product of $n^2 \times n^2$ slice
            superoperators) and the fidelity and leakage are the channel's. Default none: the unitary.
        initial: initial amplitudes (n_controls, slices), rad/ns, within the bounds, or a `PiecewiseControls` on
            the same grid; default random (`GrapeOptions.seed`).
        options: `GrapeOptions` (steps, tolerance, leakage weight, optax optimiser, seed, random starts, detuning
            operator).

    Returns:
        `GateOptimization` of the step with the lowest loss: amplitudes, fidelity and leakage at zero detuning
        (of the channel when there are jump operators), the fidelity at each detuning, the infidelity history and
        `to_xarray()`.
    """
    options = GrapeOptions() if options is None else options
    names, operators = _names(controls)
    H0c, ops = check_control_system(H0, operators)
    n, k = H0c.shape[0], ops.shape[0]
    duration = check_positive_scalar(duration, "duration", "ns")
    slices = check_slices(slices)
    subspace = check_subspace(subspace, n)
    W = check_target(target, n if subspace is None else len(subspace))
    bound = check_bound(u_max, "u_max", k, "rad/ns")
    slew = check_bound(slew_rate, "slew_rate", k, "rad/ns^2")
    deltas, N = check_detunings(detunings, options.detuning_operator, n)
    jumps = check_jump_operators(jump_ops, n)
    u0 = check_initial(initial, k, slices, duration, (bound, slew))

    scale = bound if bound is not None else np.full((k, 1), np.pi / duration)
    problem = GateProblem(
        H0c, ops, jnp.asarray(W), jnp.full(slices, duration / slices), jnp.asarray(deltas), jnp.asarray(N),
        jnp.asarray(scale), None if slew is None else jnp.asarray(slew * (duration / slices) / scale),
        jnp.asarray(float(options.leakage_weight)), dissipator(jumps, n) if jumps else None, subspace,
        bound is not None,
    )  # fmt: skip
    optimizer = _with_extra_args(DEFAULT_OPTIMIZER if options.optimizer is None else options.optimizer)
    seeds = [None] if u0 is not None else [options.seed + i for i in range(options.starts)]
    best: tuple = (np.inf, None, [], None)  # loss, parameters, history, seed
    for seed in seeds:
        start = parameters_of(jnp.asarray(u0), problem) if seed is None else _random_start(problem, slices, seed)
        loss_value, params, history = _descend(start, problem, optimizer, options)
        if best[1] is None or loss_value < best[0]:
            best = (loss_value, params, history, seed)
        if best[0] < options.tol:
            break

    u_best = np.asarray(amplitudes(best[1], problem))
    ensemble_infidelity, _ = _figures(best[1], problem)
    nominal = eqx.tree_at(lambda p: p.detunings, problem, jnp.zeros(1))
    infidelity0, leakage0 = _figures(best[1], nominal)
    return GateOptimization(
        amplitudes=u_best, duration=duration, control_names=names, fidelity=1.0 - float(infidelity0[0]),
        leakage=float(leakage0[0]), detunings=deltas, ensemble_fidelity=1.0 - np.asarray(ensemble_infidelity),
        history=np.asarray(best[2]), loss=best[0], open_system=bool(jumps), seed=best[3],
    )  # fmt: skip


def _descend(params, problem: GateProblem, optimizer, options: GrapeOptions) -> tuple[float, dict, list[float]]:
    """One start's optimisation: the lowest loss, its parameters and the infidelity before each step."""
    state = optimizer.init(params)
    history: list[float] = []
    best = (np.inf, params)
    for _ in range(options.steps):
        new_params, state, value, infidelity = _step(params, state, problem, optimizer)
        history.append(float(infidelity))
        if float(value) < best[0]:
            best = (float(value), params)
        if best[0] < options.tol or not np.isfinite(float(value)):
            break
        params = new_params
    return best[0], best[1], history
