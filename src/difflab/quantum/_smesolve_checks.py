r"""Eager checks of `smesolve`'s arguments: the measured channels, their efficiencies, the step grid and the solver.

Each raises before anything is traced, naming the argument, what was expected and what was received.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping

import diffrax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

from ..core.internal import check_numeric, is_concrete
from ._smesolve_rouchon import Rouchon

#: The default step is this fraction of the fastest time scale of the generator, 1 / (‖H‖ + Σ_k ‖L_k‖²): the
#: Euler–Maruyama bias of an average is first order in the step, about 1 % of a unit of that time scale.
DEFAULT_STEP_FRACTION = 0.01


def check_count(value, name: str, low: int = 1) -> int:
    """`value` as an int, refused by name unless it is an integer >= `low` (a bool is not a count)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def measured_indices(measured, n_jumps: int) -> tuple[int, ...]:
    """The indices into `jump_ops` of the measured operators, from `None` (all), a boolean mask or indices."""
    if measured is None:
        return tuple(range(n_jumps))
    values = np.asarray(measured)
    if values.ndim != 1:
        raise ValueError(
            f"measured must be a 1-D boolean mask of {n_jumps} entries (one per jump operator) or a list of indices "
            f"into jump_ops; got shape {values.shape}"
        )
    if values.dtype == bool:
        if values.shape[0] != n_jumps:
            raise ValueError(
                f"measured as a boolean mask must have one entry per jump operator ({n_jumps}); got {values.shape[0]}"
            )
        indices = tuple(int(k) for k in np.flatnonzero(values))
    elif np.issubdtype(values.dtype, np.integer) or values.size == 0:
        indices = tuple(int(k) for k in values)
        bad = [k for k in indices if not 0 <= k < n_jumps]
        if bad:
            raise ValueError(f"measured holds {bad[0]}, which is not an index of jump_ops (0 to {n_jumps - 1})")
        if len(set(indices)) != len(indices):
            raise ValueError(f"measured must not repeat an index (one record per channel); got {list(indices)}")
    else:
        raise TypeError(f"measured must be a boolean mask or integer indices into jump_ops; got dtype {values.dtype}")
    if not indices:
        raise ValueError("measured must select at least one of jump_ops: without a measured channel use mesolve")
    return indices


#: How a channel is detected: one quadrature (homodyne) or both at once, each with half the signal (heterodyne).
DETECTIONS = ("homodyne", "heterodyne")


def measured_channels(measured, n_jumps: int) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """The measured operators' indices into `jump_ops` and, for each, whether it is detected by heterodyne.

    `measured` is `None` (all, homodyne), a boolean mask or indices (homodyne), or a mapping from index to
    `"homodyne"` or `"heterodyne"`.
    """
    if not isinstance(measured, Mapping):
        indices = measured_indices(measured, n_jumps)
        return indices, (False,) * len(indices)
    keys = list(measured)
    if not all(isinstance(k, numbers.Integral) and not isinstance(k, bool) for k in keys):
        raise TypeError(f"measured as a mapping must have integer indices into jump_ops as keys; got {keys!r}")
    indices = measured_indices(np.asarray(keys, dtype=int), n_jumps)
    for k, how in measured.items():
        if how not in DETECTIONS:
            raise ValueError(f"measured[{k}] must be one of {DETECTIONS} (how that channel is detected); got {how!r}")
    return indices, tuple(measured[k] == "heterodyne" for k in indices)


def check_etas(etas, n_measured: int, dtype) -> Array:
    r"""The efficiencies $\eta_m$ as a (M,) array of `dtype`: a number for every channel, or one per channel."""
    if is_concrete(etas):
        check_numeric(etas, "etas")  # refuses complex numbers and strings
        values = np.asarray(etas)
        if values.ndim > 1 or (values.ndim == 1 and values.shape[0] != n_measured):
            raise ValueError(
                f"etas must be a number or hold one efficiency per measured operator ({n_measured}); got shape "
                f"{values.shape}"
            )
        flat = np.broadcast_to(values, (n_measured,)).astype(float)
        bad = np.flatnonzero(~((flat >= 0) & (flat <= 1)))  # NaN fails both comparisons
        if bad.size:
            raise ValueError(f"etas must lie in [0, 1] (a detection efficiency); got etas[{bad[0]}] = {flat[bad[0]]}")
    return jnp.broadcast_to(jnp.asarray(etas).astype(dtype), (n_measured,))


def default_step(H: np.ndarray, jumps: list[np.ndarray], drive_rate: float = 0.0) -> float:
    r"""`DEFAULT_STEP_FRACTION` of $1/(\|H\|_2 + r_d + \sum_k \|L_k\|_2^2)$ (inf for a generator that is zero).

    $r_d$ (`drive_rate`) bounds the drives: $\sum_j \max_t |u_j(t)|\,\|H_j\|_2$.
    """
    rate = float(np.linalg.norm(H, 2)) + drive_rate + sum(float(np.linalg.norm(L, 2)) ** 2 for L in jumps)
    return DEFAULT_STEP_FRACTION / rate if rate > 0 else math.inf


def step_grid(ts: np.ndarray, dt0: float) -> np.ndarray:
    """The step times: each save interval split into the fewest equal steps no longer than `dt0`.

    The save times are grid points exactly, so the states and the integrated currents are saved where a step ends
    (no interpolation of the Brownian path between steps).
    """
    spans = np.diff(ts)
    counts = np.maximum(1, np.ceil(spans / dt0 * (1 - 1e-12))).astype(int)  # a span of exactly k steps gives k
    pieces = [np.linspace(ts[i], ts[i + 1], counts[i] + 1)[:-1] for i in range(spans.shape[0])]
    return np.concatenate([*pieces, ts[-1:]])


def check_step(dt0, H, jumps, drive_rate=0.0) -> float:
    """The fixed step: `dt0` (concrete; `SolveOptions` checked it is finite and > 0) or the default from norms.

    `drive_rate` bounds the drives' part of the generator (see `default_step`); `None` when it is not known (a
    drive's amplitude traced), and then `dt0` must be given.
    """
    if dt0 is not None:
        if not is_concrete(dt0):
            raise ValueError("dt0 must be a concrete number for smesolve: it sets the number of steps (a shape)")
        return float(dt0)
    if not all(is_concrete(x) for x in (H, *jumps)) or drive_rate is None:
        raise ValueError(
            "dt0 must be given when H, the drives or jump_ops are traced (inside jax.grad or jax.jit): the default "
            "step is computed from their norms and amplitudes, which are not known while tracing"
        )
    return default_step(np.asarray(H), [np.asarray(L) for L in jumps], drive_rate)


def check_solver(solver, n_records: int = 1) -> diffrax.AbstractSolver:
    """`solver`, refused unless it converges to the Itô solution; by default `Rouchon()` (a positive map).

    Against the other Itô steps (benchmarks/quantum_sme_steps.py): Euler–Maruyama, at half the default step, takes 885
    of 1000 trajectories of a qubit whose decay and dephasing are both detected perfectly outside the set of density
    matrices (Bloch vectors up to 10 long), and Itô–Milstein needs commuting noise (one channel). Along each
    trajectory of a QND measurement Rouchon's error against the exact filter is a third of Milstein's and a twelfth
    of Euler's, for 9 % and 13 % more time per step on a 20-level cavity.
    """
    if solver is None:
        return Rouchon()
    if not isinstance(solver, diffrax.AbstractItoSolver):
        kind = "the Stratonovich solution" if isinstance(solver, diffrax.AbstractStratonovichSolver) else "no Itô SDE"
        raise ValueError(
            f"solver must be an Itô SDE solver (a diffrax.AbstractItoSolver: difflab.quantum.Rouchon(), "
            f"diffrax.Euler(), or diffrax.ItoMilstein() for one measured channel): the stochastic master equation is "
            f"written in Itô form; got {type(solver).__name__}, which solves {kind}"
        )
    if isinstance(solver, diffrax.ItoMilstein) and n_records > 1:
        # Milstein's correction without the Lévy areas of pairs of Wiener processes: exact for commuting noise only.
        # The records' terms H[c_r] rho do not commute (a heterodyne channel's two quadratures, two channels), and
        # the step falls back to Euler-Maruyama's strong order 1/2, at Milstein's cost.
        warnings.warn(
            f"solver: diffrax.ItoMilstein() with {n_records} measured records is not Milstein's method here: their "
            "noise terms do not commute and the step omits the Lévy areas between them, so it converges with strong "
            "order 1/2, as Euler-Maruyama, at a higher cost; use the default difflab.quantum.Rouchon()",
            RuntimeWarning,
            stacklevel=3,
        )
    return solver


def check_fixed_step_options(opts, n_steps: int) -> None:
    """Refuse the options of adaptive steps (the SME takes fixed steps) and a `max_steps` below the grid's."""
    if opts.rtol is not None or opts.atol is not None or opts.stepsize_controller is not None:
        raise ValueError(
            "smesolve takes fixed steps of at most dt0 (an adaptive controller would need a Brownian path resolved "
            "to tolerance, and the measurement record on its steps): set dt0 instead of rtol/atol/stepsize_controller"
        )
    if opts.max_steps is not None and opts.max_steps < n_steps:
        raise ValueError(f"max_steps must be at least the {n_steps} fixed steps of dt0 over ts; got {opts.max_steps}")


#: How much a step may amplify one mode of the generator over the whole run, relative to its slowest mode, before
#: `smesolve` warns that the step does not resolve the generator.
MODE_AMPLIFICATION = 1e3


def warn_unresolved_step(H, jumps, dt: float, n_steps: int, drive_rate: float | None = 0.0) -> None:
    r"""Warn when the explicit step amplifies a mode of $G = -iH - \frac12\sum_k L_k^\dagger L_k$ (concrete operators).

    Every explicit step of the SME (Rouchon's, Euler–Maruyama's, Milstein's) advances the unnormalised state by
    $I + G\,\Delta t$ at first order. Exactly, a mode of $G$ (eigenvalue $\lambda_i$) decays at least as fast as the
    slowest one ($\lambda_0$, the largest real part); the step multiplies it by $|1 + \lambda_i\Delta t|^2$, which
    exceeds the slowest mode's $|1 + \lambda_0\Delta t|^2$ when its frequency is not resolved ($\omega\Delta t$ of
    order 1). Over the run the ratio compounds: past `MODE_AMPLIFICATION` the mode, however little populated,
    takes over the state, which may stay positive (no later check would see it). The drives are left out of $G$;
    the default step (`default_step`, with `drive_rate`, as the warning quotes it) resolves it.
    """
    if not all(is_concrete(x) for x in (H, *jumps)):
        return
    H, L = np.asarray(H), np.asarray(jumps)
    G = -1j * H - 0.5 * np.einsum("kji,kjl->il", L.conj(), L)
    lam = np.linalg.eigvals(G)
    growth = np.abs(1 + lam * dt) ** 2
    slowest = growth[np.argmax(lam.real)]
    ratio = float(growth.max() / slowest)
    if ratio > 1 and n_steps * math.log(ratio) > math.log(MODE_AMPLIFICATION):
        worst = lam[np.argmax(growth)]
        advice = "" if drive_rate is None else f" (the default here is {default_step(H, list(L), drive_rate):.3g})"
        raise_by = n_steps * math.log10(ratio)
        warnings.warn(
            f"smesolve: dt0 = {dt:.3g} does not resolve the generator -iH - sum_k L_k^dag L_k / 2: each step "
            f"multiplies its mode of frequency {abs(worst.imag):.3g} by {ratio:.3g} relative to the slowest mode "
            f"(10^{raise_by:.0f} over the {n_steps} steps), so that mode takes over the state; pass a smaller "
            f"dt0{advice}",
            RuntimeWarning,
            stacklevel=3,
        )


#: A trajectory's final state counts as outside the density matrices below this lowest eigenvalue, or below the
#: eigensolver's own round-off for its size and precision if that is larger (100 n eps: 6e-4 for a 50-level state in
#: float32), so that a positive state is never reported.
NEGATIVE_EIGENVALUE = -1e-6


def warn_unphysical(finals, solver) -> None:
    """Warn when trajectories diverged or ended outside the density matrices (concrete states only).

    Outside: the lowest eigenvalue below `NEGATIVE_EIGENVALUE`, or below the eigensolver's round-off floor if that is
    larger. Euler–Maruyama and Milstein leave the set when the step is coarse for the measurement's strength (and
    Euler–Maruyama may diverge); every explicit step, `Rouchon()` included, amplifies round-off when it does not
    resolve the generator (`_smesolve_rouchon.py`). The averages are then not those of physical states, and nothing
    else in the result says so.
    """
    if not is_concrete(finals):
        return
    states = np.asarray(finals)
    finite = np.isfinite(states).all(axis=(-2, -1))
    lowest = np.linalg.eigvalsh(states[finite]).min(axis=-1) if finite.any() else np.zeros(0)
    floor = min(NEGATIVE_EIGENVALUE, -100 * states.shape[-1] * float(np.finfo(states.dtype).eps))
    outside = int((lowest < floor).sum())
    diverged = int((~finite).sum())
    if diverged or outside:
        worst = f" (lowest eigenvalue {lowest.min():.3g})" if outside else ""
        advice = (
            "pass a smaller dt0 (the default, 1 % of 1/(||H|| + sum_k ||L_k||^2), resolves the generator)"
            if isinstance(solver, Rouchon)
            else "use the default solver, difflab.quantum.Rouchon(), whose step is a positive map, or a smaller dt0"
        )
        warnings.warn(
            f"smesolve: of {states.shape[0]} trajectories, {diverged} diverged (NaN/inf) and {outside} ended outside "
            f"the density matrices{worst} with solver {type(solver).__name__}: their averages are not those of "
            f"physical states; {advice}",
            RuntimeWarning,
            stacklevel=3,
        )
