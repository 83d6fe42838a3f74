r"""`mcsolve`: the Lindblad equation unravelled into quantum-jump (Monte Carlo wave-function) trajectories.

Between jumps a trajectory follows the non-Hermitian Schrödinger equation

$$ i\,\dot{\tilde\psi} = H_\text{eff}\,\tilde\psi, \qquad H_\text{eff} = H - \tfrac{i}{2}\sum_k L_k^\dagger L_k, $$

whose norm $\|\tilde\psi\|^2$ decays from 1. With $r \sim U(0, 1)$ drawn at the start and after every jump, the jump
happens when $\|\tilde\psi(t)\|^2 = r$ (found by a diffrax event: the step where the sign changes, then a root find
on the solver's dense output); the operator $L_k$ is drawn with probability $\propto \|L_k\tilde\psi\|^2$ and the
state becomes $L_k\tilde\psi / \|L_k\tilde\psi\|$. The average of
$\langle E\rangle_j(t) = \langle\tilde\psi_j|E|\tilde\psi_j\rangle / \|\tilde\psi_j\|^2$ over trajectories converges
to $\mathrm{tr}(E\rho(t))$ of `mesolve` with standard error $s/\sqrt{N}$ ($s$ the sample standard deviation over the
N trajectories), reported with the mean. References: Dalibard, Castin & Mølmer, PRL 68, 580 (1992); Mølmer, Castin
& Dalibard, JOSA B 10, 524 (1993); Plenio & Knight, RMP 70, 101 (1998).

Trajectories are vmapped (one batched solve, in chunks of `chunk` trajectories), each a `lax.while_loop` of
event-terminated solves; randomness comes only from `key`, so a run is reproducible. **Gradients are not
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
import optimistix as optx
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
    values, num_jumps, jump_times, jump_which = (jnp.concatenate(p, axis=0) for p in zip(*parts))
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
    G = -1j * p.H - 0.5 * jnp.einsum("kji,kjl->il", jnp.conj(p.jumps), p.jumps)  # -i H_eff

    def field(t, y, args):
        d = G @ _complex(y)
        return jnp.stack([d.real, d.imag])

    def expect(t, y, args):
        psi = _complex(y)
        values = jnp.einsum("i,mij,j->m", jnp.conj(psi), p.exp_ops, psi)
        return values / as_complex(jnp.vdot(psi, psi).real, psi)

    def norm_event(t, y, args, **kwargs):
        return jnp.sum(y**2) - args

    term = diffrax.ODETerm(field)
    event = diffrax.Event(norm_event, root_finder=optx.Newton(rtol=1e-10, atol=1e-12))
    t_end = p.ts[-1]
    n_save = p.ts.shape[0]

    def segment(carry):
        t, y, key, out, count, times, which = carry
        key, k_r, k_jump = jax.random.split(key, 3)
        r = jax.random.uniform(k_r, dtype=y.dtype)
        saveat = diffrax.SaveAt(subs=[diffrax.SubSaveAt(ts=jnp.clip(p.ts, t, t_end), fn=expect),
                                      diffrax.SubSaveAt(t1=True)])  # fmt: skip
        sol = diffrax.diffeqsolve(
            term, p.solver, t, t_end, p.dt0, y, args=r, saveat=saveat, stepsize_controller=p.controller,
            event=event, max_steps=p.max_steps,
        )  # fmt: skip
        saved, (t1,), (y1,) = sol.ys[0], sol.ts[1], sol.ys[1]
        keep = (p.ts >= t) & (p.ts <= t1)
        out = jnp.where(keep[:, None], saved, out)
        jumped = sol.event_mask if sol.event_mask is not None else jnp.array(False)
        psi = _complex(y1)
        weights = jnp.sum(jnp.abs(jnp.einsum("kij,j->ki", p.jumps, psi)) ** 2, axis=1)
        k = jax.random.categorical(k_jump, jnp.log(weights))
        new = p.jumps[k] @ psi
        new = new / as_complex(jnp.linalg.norm(new), new)
        y_next = jnp.where(jumped, jnp.stack([new.real, new.imag]), y1)
        slot = jnp.minimum(count, p.max_jumps - 1)
        record = jumped & (count < p.max_jumps)
        times = jnp.where(record, times.at[slot].set(t1), times)
        which = jnp.where(record, which.at[slot].set(k), which)
        t_next = jnp.where(jumped, t1, t_end)
        return t_next, y_next, key, out, count + jumped.astype(int), times, which

    out0 = jnp.zeros((n_save, p.exp_ops.shape[0]), complex)
    carry = (p.ts[0], p.psi0, key, out0, jnp.array(0), jnp.full(p.max_jumps, jnp.nan), jnp.full(p.max_jumps, -1))
    _, _, _, out, count, times, which = jax.lax.while_loop(lambda c: c[0] < t_end, segment, carry)
    return out, count, times, which
