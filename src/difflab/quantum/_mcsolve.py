r"""`mcsolve`: the Lindblad equation unravelled into quantum-jump (Monte Carlo wave-function) trajectories.

Between jumps a trajectory follows the non-Hermitian Schrödinger equation

$$ i\,\dot{\tilde\psi} = H_\text{eff}\,\tilde\psi, \qquad H_\text{eff} = H - \tfrac{i}{2}\sum_k L_k^\dagger L_k, $$

whose norm $\|\tilde\psi\|^2$ decays from 1. With $r \sim U(0, 1)$ drawn at the start and after every jump, the jump
happens when $\|\tilde\psi(t)\|^2 = r$ (the step where it falls below r, then the secant's root and Newton's steps
on the step's dense output, to round-off); the operator $L_k$ is drawn with probability
$\propto \|L_k\tilde\psi\|^2$ and the state becomes $L_k\tilde\psi / \|L_k\tilde\psi\|$. The average of
$\langle E\rangle_j(t) = \langle\tilde\psi_j|E|\tilde\psi_j\rangle / \|\tilde\psi_j\|^2$ over trajectories converges
to $\mathrm{tr}(E\rho(t))$ of `mesolve` with standard error $s/\sqrt{N}$ ($s$ the sample standard deviation over the
N trajectories), reported with the mean. References: Dalibard, Castin & Mølmer, PRL 68, 580 (1992); Mølmer, Castin
& Dalibard, JOSA B 10, 524 (1993); Plenio & Knight, RMP 70, 101 (1998).

Trajectories are vmapped (in chunks of `chunk` trajectories), each a `lax.while_loop` of single steps of a diffrax
solver and step-size controller, a jump made inside the loop: a batch takes as many iterations as its longest
trajectory has steps (benchmarks/README.md: 1000 trajectories of a 50-level cavity in 4.2–4.7 s, where a loop
of event-terminated solves took 75 s); randomness comes only from `key`, so a run is reproducible. **Gradients are not
supported**: an expectation value is piecewise constant in the parameters through the jump decisions and the loop
has no reverse-mode derivative; differentiate `mesolve` instead. Units: ħ = 1, times in `time_units`, `H` in rad per
`time_units`, $L_k = \sqrt{\gamma_k} A_k$ with $\gamma_k$ in 1/`time_units`. QuTiP: `mcsolve(H, psi0, tlist, c_ops,
e_ops, ntraj=...)`; dynamiqs: `jssesolve` (0.3).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr
from jaxtyping import Array, ArrayLike, Complex, Float, PRNGKeyArray

from ..core.internal import SolveOptions, check_finite, check_increasing, check_key, merge_options
from ._checks import check_ket, check_time_units
from ._complex import as_complex, from_parts
from ._mesolve import _exp_ops, _ket_column
from ._qutip import from_qutip_arguments
from ._unravelling import trajectory_attrs, unbatched_operators

#: Default tolerances of the trajectories' PID controller (the state has unit norm at each jump).
RTOL, ATOL = 1e-6, 1e-8
#: Steps allowed between two jumps when `max_steps` is not given (diffrax's default for one solve).
DEFAULT_MAX_STEPS = 4096


class MCResult(eqx.Module):
    r"""Trajectory averages of a jump unravelling, with their standard errors (a pytree of arrays).

    Attributes:
        ts: save times (time,), `time_units`.
        expects: mean $\langle E_m\rangle(t)$ over trajectories, complex (time, observable).
        expects_stderr: standard error of that mean: real part for the real part, imaginary for the imaginary.
        trajectory_expects: every trajectory's values, complex (trajectory, time, observable).
        num_jumps: jumps per trajectory (trajectory,).
        jump_times: times of the first `max_jumps` jumps (trajectory, max_jumps), NaN where none.
        jump_which: index k of the jump operator of each jump (trajectory, max_jumps), -1 where none.
    """

    ts: Float[Array, " time"]
    expects: Complex[Array, "time observable"]
    expects_stderr: Complex[Array, "time observable"]
    trajectory_expects: Complex[Array, "trajectory time observable"]
    num_jumps: Array
    jump_times: Array
    jump_which: Array
    names: tuple[str, ...] = eqx.field(static=True)
    time_units: str = eqx.field(static=True)

    def to_xarray(self) -> xr.Dataset:
        """Dataset: `expect`, `expect_stderr` (time, observable) with their imaginary parts, `num_jumps`, jumps."""
        mean, err = np.asarray(self.expects), np.asarray(self.expects_stderr)
        unit = {"units": "1"}
        data = {
            "expect": (("time", "observable"), mean.real, {**unit, "long_name": "trajectory mean"}),
            "expect_stderr": (("time", "observable"), err.real, {**unit, "long_name": "standard error of the mean"}),
            "num_jumps": (("trajectory",), np.asarray(self.num_jumps), {"long_name": "jumps per trajectory"}),
            "jump_times": (("trajectory", "jump"), np.asarray(self.jump_times), {"units": self.time_units}),
            "jump_which": (("trajectory", "jump"), np.asarray(self.jump_which), {"long_name": "jump operator index"}),
        }
        if np.any(mean.imag != 0):
            data["expect_imag"] = (("time", "observable"), mean.imag, unit)
            data["expect_imag_stderr"] = (("time", "observable"), err.imag, unit)
        coords = {"time": ("time", np.asarray(self.ts), {"units": self.time_units}), "observable": list(self.names)}
        attrs = trajectory_attrs("Lindblad master equation, quantum-jump unravelling", np.shape(self.num_jumps)[0],
                                 self.time_units)  # fmt: skip
        return xr.Dataset(data, coords=coords, attrs=attrs)


class _Problem(eqx.Module):
    H: Array
    jumps: Array  # (k, n, n)
    exp_ops: Array  # (m, n, n)
    psi0: Array  # (2, n)
    ts: Array
    solver: Any
    controller: Any
    dt0: Any
    max_steps: int | None = eqx.field(static=True)
    max_jumps: int = eqx.field(static=True)


def mcsolve(
    H: Complex[ArrayLike, "n n"],
    psi0: Complex[ArrayLike, " n"],
    ts: Float[ArrayLike, " time"],
    jump_ops: Sequence,
    *,
    ntraj: int = 500,
    key: PRNGKeyArray,
    exp_ops: Sequence | Mapping = (),
    max_jumps: int = 64,
    chunk: int = 1000,
    time_units: str = "ns",
    options: SolveOptions | None = None,
    **solve_keywords: Any,
) -> MCResult:
    r"""Average `ntraj` quantum-jump trajectories from `psi0` (module docstring); no gradients.

    Args:
        H: time-independent Hamiltonian (n, n), rad per `time_units` (array, `Operator` or QuTiP `Qobj`).
        psi0: initial ket (n,), unit norm.
        ts: save times (strictly increasing, `time_units`); the trajectories start at `ts[0]`.
        jump_ops: jump operators $L_k = \sqrt{\gamma_k} A_k$ (n, n); at least one.
        ntraj: number of trajectories (an integer >= 1).
        key: a JAX PRNG key (`jax.random.key(0)`); trajectory j uses `jax.random.split(key, ntraj)[j]`.
        exp_ops: operators whose trajectory averages are returned (a sequence, or a mapping name -> operator).
        max_jumps: how many jump times per trajectory are recorded (`num_jumps` counts all of them).
        chunk: trajectories per vmapped batch (bounds memory: each holds its saved values).
        time_units: "ns" or "us".
        options: `SolveOptions`: `solver` (default Tsit5), `rtol`/`atol` (default 1e-6/1e-8) or
            `stepsize_controller`, `dt0`, `max_steps` per solve between two jumps; `adjoint` is not used.
        **solve_keywords: the fields of `SolveOptions` as keywords.

    Returns:
        `MCResult`: `expects` and `expects_stderr` (time, observable), per-trajectory values and jumps.
    """
    opts = merge_options(options, solve_keywords, "mcsolve")
    H, psi0, jump_ops, exp_ops = from_qutip_arguments(H, psi0, jump_ops, exp_ops, "psi0")
    for name, value, low in (("ntraj", ntraj, 1), ("max_jumps", max_jumps, 1), ("chunk", chunk, 1)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    check_key(key)
    time_units = check_time_units(time_units)
    ts = jnp.asarray(ts, dtype=float)
    if ts.ndim != 1 or ts.shape[0] < 2:
        raise ValueError(f"ts must be 1-D with at least 2 times; got shape {ts.shape}")
    check_finite(ts, "ts")
    check_increasing(ts, "ts")
    H0, jumps = unbatched_operators(H, jump_ops, "mcsolve", "without one there is nothing to unravel (use sesolve)")
    n = H0.n
    names, ops, _ = _exp_ops(exp_ops, n)
    psi0 = jnp.asarray(_ket_column(psi0, n, "psi0"), dtype=complex)
    check_ket(psi0, n, "psi0")
    dense_ops = [op.to_dense() for op in ops] or [jnp.zeros((n, n), complex)]
    controller = opts.controller(diffrax.PIDController(rtol=RTOL, atol=ATOL))
    problem = _Problem(
        H0.to_dense(), jnp.stack([L.to_dense() for L in jumps]), jnp.stack(dense_ops),
        jnp.stack([psi0.real, psi0.imag]), ts, opts.solver or diffrax.Tsit5(), controller, opts.dt0,
        opts.max_steps, max_jumps,
    )  # fmt: skip
    keys = jax.random.split(key, ntraj)
    parts = [_run_chunk(problem, keys[i : i + chunk]) for i in range(0, ntraj, chunk)]
    values, num_jumps, jump_times, jump_which, unfinished = (jnp.concatenate(p, axis=0) for p in zip(*parts))
    if bool(jnp.any(unfinished)):
        limit = DEFAULT_MAX_STEPS if opts.max_steps is None else opts.max_steps
        raise RuntimeError(
            f"mcsolve: {int(jnp.sum(unfinished))} of {ntraj} trajectories took more than max_steps = {limit} steps "
            "between two jumps and did not reach ts[-1]; raise max_steps (or loosen rtol/atol)"
        )
    values = values[..., : len(names)]
    mean = jnp.mean(values, axis=0)
    # one trajectory has no spread to measure: its standard error is NaN (ddof=1)
    stderr = from_parts(jnp.std(values.real, axis=0, ddof=1), jnp.std(values.imag, axis=0, ddof=1)) / float(
        np.sqrt(ntraj)
    )
    return MCResult(ts, mean, stderr, values, num_jumps, jump_times, jump_which, tuple(names), time_units)


@eqx.filter_jit
def _run_chunk(problem: _Problem, keys):
    return jax.vmap(lambda k: _trajectory(problem, k))(keys)


def _complex(y):
    return jax.lax.complex(y[0], y[1])


def _trajectory(p: _Problem, key):
    """One trajectory as a loop of single adaptive steps, a jump made where a step crosses the threshold.

    A step that crosses the jump threshold ends at the crossing, where the jump is made, and the loop goes on with
    the next step.

    Vmapped, every trajectory takes one step per iteration, so a batch runs for as many iterations as its
    longest trajectory has steps. (A loop of event-terminated solves, one per segment between jumps, runs each
    segment for as long as the batch's longest one: about as many whole-interval solves as the most jumps.)
    """
    G = -1j * p.H - 0.5 * jnp.einsum("kji,kjl->il", jnp.conj(p.jumps), p.jumps)  # -i H_eff

    def field(t, y, args):
        d = G @ _complex(y)
        return jnp.stack([d.real, d.imag])

    def expect(y):
        psi = _complex(y)
        values = jnp.einsum("i,mij,j->m", jnp.conj(psi), p.exp_ops, psi)
        return values / as_complex(jnp.vdot(psi, psi).real, psi)

    terms = diffrax.ODETerm(field)
    solver, controller = p.solver, p.controller
    t0, t_end = p.ts[0], p.ts[-1]
    end_floor = t_end - 100 * jnp.finfo(p.ts.dtype).eps * jnp.maximum(jnp.abs(t_end), 1.0)
    error_order = solver.error_order(terms)
    limit = DEFAULT_MAX_STEPS if p.max_steps is None else p.max_steps
    # the random stream of the event-terminated version, so a key gives the same trajectories: every segment between
    # jumps splits the key in three, for the next key, its threshold and the choice of its closing jump
    key, k_r, k_jump = jax.random.split(key, 3)
    t_next, controller_state = controller.init(terms, t0, t_end, p.psi0, p.dt0, None, solver.func, error_order)
    t_next = jnp.minimum(t_next, t_end)
    n_save, n_obs = p.ts.shape[0], p.exp_ops.shape[0]
    state = _Walk(
        t=t0, t_next=t_next, y=p.psi0, solver_state=solver.init(terms, t0, t_next, p.psi0, None),
        controller_state=controller_state, made_jump=jnp.array(False),
        threshold=jax.random.uniform(k_r, dtype=p.psi0.dtype), key=key, k_jump=k_jump,
        out=jnp.zeros((n_save, n_obs), complex), saved=jnp.array(0), count=jnp.array(0),
        times=jnp.full(p.max_jumps, jnp.nan), which=jnp.full(p.max_jumps, -1), steps=jnp.array(0),
    )  # fmt: skip

    def step(s: _Walk) -> _Walk:
        y1, y_error, dense, solver_state, _ = solver.step(terms, s.t, s.t_next, s.y, None, s.solver_state,
                                                         s.made_jump)  # fmt: skip
        y_error = jnp.where(jnp.isnan(y_error), jnp.inf, y_error)
        keep, _, t_after, discontinuity, controller_state, _ = controller.adapt_step_size(
            s.t, s.t_next, s.y, y1, None, y_error, error_order, s.controller_state
        )
        path = solver.interpolation_cls(t0=s.t, t1=s.t_next, **dense)
        # the norm decays between jumps; a jump is due where it falls to the threshold drawn after the last one
        jumped = keep & (jnp.sum(y1**2) <= s.threshold)
        norm_left = lambda t: jnp.sum(path.evaluate(t) ** 2) - s.threshold  # noqa: E731
        t_jump = _crossing(norm_left, s.t, s.t_next, jnp.sum(s.y**2) - s.threshold, jnp.sum(y1**2) - s.threshold)
        t_reached = jnp.where(jumped, t_jump, s.t_next)
        out, saved = _save(p.ts, expect, path, s.out, s.saved, jnp.where(keep, t_reached, s.t - 1.0))
        psi = _complex(path.evaluate(t_jump))
        weights = jnp.sum(jnp.abs(jnp.einsum("kij,j->ki", p.jumps, psi)) ** 2, axis=1)
        k = jax.random.categorical(s.k_jump, jnp.log(weights))
        key, k_r, k_jump = jax.random.split(s.key, 3)
        landed = p.jumps[k] @ psi
        landed = landed / as_complex(jnp.linalg.norm(landed), landed)
        y_new = jnp.where(jumped, jnp.stack([landed.real, landed.imag]), jnp.where(keep, y1, s.y))
        t_new = jnp.where(keep, t_reached, s.t)
        t_after = jnp.where(jumped, t_jump + (t_after - s.t_next), t_after)
        t_after = jnp.where(t_after > end_floor, t_end, jnp.minimum(t_after, t_end))
        slot = jnp.minimum(s.count, p.max_jumps - 1)
        record = jumped & (s.count < p.max_jumps)
        return _Walk(
            t=t_new, t_next=t_after, y=y_new,
            solver_state=jax.tree.map(lambda a, b: jnp.where(keep, a, b), solver_state, s.solver_state),
            # the solver restarts its first-same-as-last stage after a jump (ours, or a controller's `jump_ts`), and
            # keeps that flag through rejected steps until one is kept
            controller_state=controller_state, made_jump=jnp.where(keep, jumped | discontinuity, s.made_jump),
            threshold=jnp.where(jumped, jax.random.uniform(k_r, dtype=s.threshold.dtype), s.threshold),
            key=jnp.where(jumped, key, s.key), k_jump=jnp.where(jumped, k_jump, s.k_jump),
            out=out, saved=saved, count=s.count + jumped.astype(int),
            times=jnp.where(record, s.times.at[slot].set(t_jump), s.times),
            which=jnp.where(record, s.which.at[slot].set(k), s.which),
            steps=jnp.where(jumped, 0, s.steps + 1),
        )  # fmt: skip

    s = jax.lax.while_loop(lambda s: (s.t < t_end) & (s.steps < limit), step, state)
    return s.out, s.count, s.times, s.which, s.t < t_end


class _Walk(eqx.Module):
    """A trajectory's loop state.

    Time, proposed next time, state, the solver's and controller's states, whether the last step ended in a jump,
    the jump threshold, the key, saved values and how many, and the jumps.
    """

    t: Array
    t_next: Array
    y: Array
    solver_state: Any
    controller_state: Any
    made_jump: Array
    threshold: Array
    key: Array
    k_jump: Array
    out: Array
    saved: Array
    count: Array
    times: Array
    which: Array
    steps: Array


def _crossing(g, a, b, ga, gb, iterations: int = 4):
    """The root of `g` in [a, b] where g(a) = ga > 0 >= g(b) = gb: the norm's crossing of the threshold.

    The secant's root, then Newton's steps on the step's dense output (kept inside [a, b]): the norm is smooth and
    monotone between jumps, so four steps reach round-off from the secant's O(h^2) start. For a step that does not
    cross, some point of it (unused).
    """
    t = a + (b - a) * jnp.clip(ga / jnp.where(ga > gb, ga - gb, 1.0), 0.0, 1.0)
    for _ in range(iterations):
        value, slope = jax.jvp(g, (t,), (jnp.ones_like(t),))
        t = jnp.clip(t - value / jnp.where(slope < 0, slope, -1.0), a, b)
    return t


def _save(ts, expect, path, out, saved, until):
    """Save the expectations at every save time in [ts[saved], until] from the step's dense output."""

    def more(c):
        return (c[1] < ts.shape[0]) & (ts[jnp.minimum(c[1], ts.shape[0] - 1)] <= until)

    def one(c):
        out, j = c
        return out.at[j].set(expect(path.evaluate(ts[j]))), j + 1

    return jax.lax.while_loop(more, one, (out, saved))
