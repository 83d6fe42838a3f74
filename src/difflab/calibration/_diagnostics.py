r"""Is the fit limited by the noise? Resolution refinement and misfit diagnostics for least-squares fits.

Standard errors from $\hat\sigma^2 (J^\top J)^{-1}$ describe the scatter that the *measurement noise*
causes. Two other errors can exceed it and then bias the estimate by more than its stated error:

- **Discretisation.** The optimum of a fit to a model solved with step $h$ is the optimum for that
  discrete model. `fit_statistics` measures how far it
  moves when the model is solved more finely (half the fixed step, or tolerances ÷ 16). When the
  shift exceeds `REFINE_FRACTION` of a standard error and the user left the step to difflab,
  `calibrate` halves the step as often as the shift predicts is needed (at most `MAX_HALVINGS`
  times) and continues from the current optimum; otherwise it warns.
- **Model error.** A residual variance well above the noise variance estimated from the data itself
  (`noise_sigma`) means the model cannot reproduce the data:
  the fit warns and `Calibration.diagnostics.misfit_ratio` says by how much.
"""

from __future__ import annotations

import dataclasses

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from ..core.internal import SolveOptions, default_dt0, warn_caller
from ._transforms import Bounded
from ._uncertainty import fit_statistics, noise_sigma

#: Refine when the optimum moves by more than this fraction of a standard error.
REFINE_FRACTION = 0.25
#: At most this many halvings of the step (8× the steps of the default).
MAX_HALVINGS = 3
#: Warn when the residual variance exceeds the data's noise variance by this factor.
MISFIT_RATIO_LIMIT = 1.5


class CalibrationWarning(UserWarning):
    """The estimate's error is dominated by something other than the measurement noise."""


def user_fixed_resolution(problem) -> bool:
    """True when the user chose the step, the tolerances or the step-size controller (difflab then keeps them)."""
    resolved = {"dt0", "stepsize_controller"} if problem.step_resolved else set()
    chosen = {"dt0", "stepsize_controller", "solver", "rtol", "atol"} - resolved
    return any(name in problem.sim_options for name in chosen)


def _controller(problem, options):
    """The step-size controller the fit's solves use (the user's, or the model's default with their tolerances)."""
    tolerances = SolveOptions(**{name: options.pop(name) for name in ("rtol", "atol") if name in options})
    return options.get("stepsize_controller") or tolerances.controller(problem.model.default_stepsize_controller())


def resolve_default_step(problem, theta, protocol):
    """`problem` with the model's default fixed step resolved once, as a number, for the whole fit.

    A model's default step may follow fitted parameters (a neuron's follows its temperature and its largest
    conductance, `HodgkinHuxley.default_dt0`). Left to follow them, the step would be a traced value inside the
    fit: every solve would then run as a `while_loop` instead of a scan, and the refinement could not halve it.
    So the step is resolved here from concrete models: every start (`theta`, unconstrained, a member axis
    first) and the two corners of the bounds (every `Bounded` parameter at its `lo`, then at its `hi`; the
    others at their starts), and the shortest is kept. The fit then never leaves the resolution the default rule
    gives anywhere in its bounds. Unchanged when the user chose the step or the controller is not a fixed step.
    """
    options = dict(problem.sim_options)
    controller = _controller(problem, dict(options))
    if "dt0" in options or not isinstance(controller, diffrax.ConstantStepSize):
        return problem
    starts = problem.physical(theta)
    candidates = [starts]
    for end in ("lo", "hi"):
        candidates.append({
            name: jnp.broadcast_to(getattr(t, end), starts[name].shape) if isinstance(t, Bounded) else starts[name]
            for name, t in problem.transforms.items()
        })  # fmt: skip
    steps = [_default_step(problem, problem.build(values), protocol, controller) for values in candidates]
    if not all(isinstance(dt, int | float) for dt in steps):
        return problem  # a rule that is not concrete even for concrete parameters: left to the solves
    options["dt0"] = float(min(steps))
    return dataclasses.replace(problem, sim_options=options, step_resolved=True)


def _default_step(problem, model, protocol, controller):
    """The model's default step under `protocol`; in a joint fit the shortest under any recording's protocol.

    Not a number (`None`, a traced value) where the rule is not concrete.
    """
    if not problem.joined:
        return default_dt0(model, protocol, controller)
    steps = [default_dt0(model, jax.tree.map(lambda x, r=r: x[r], protocol), controller) for r in range(problem.joined)]
    odd = [dt for dt in steps if not isinstance(dt, int | float)]
    return odd[0] if odd else min(steps)


def traced_tolerances(problem):
    """`problem` with the model's default PID tolerances held as arrays, so that `finer` keeps its compiled programs.

    A Python float in the solve options is static under `jit`: the refinement's tolerances ÷ 16 would trace and
    compile the fit's step, evaluation and statistics again (about half of a small fit's first-call time). As
    arrays they are arguments of the same programs. Unchanged when the user chose the resolution (it is never
    refined then) or the controller is not a `PIDController`.
    """
    if user_fixed_resolution(problem):
        return problem
    options = dict(problem.sim_options)
    controller = _controller(problem, options)
    if not isinstance(controller, diffrax.PIDController):
        return problem
    # weakly typed, as the Python floats were: a float32 solve's error norm is not widened to float64
    options["stepsize_controller"] = eqx.tree_at(
        lambda c: (c.rtol, c.atol), controller, (jnp.asarray(controller.rtol), jnp.asarray(controller.atol))
    )
    return dataclasses.replace(problem, sim_options=options, step_resolved=True)


def finer(problem, protocol, halvings: int = 1):
    """`problem` solved more finely: the fixed step halved `halvings` times, or PID tolerances ÷ 16 as often.

    `None` when the resolution cannot be refined (another controller, a traced step).
    """
    options = dict(problem.sim_options)
    model = problem.model
    controller = _controller(problem, options)
    if isinstance(controller, diffrax.ConstantStepSize):
        dt0 = options.get("dt0")
        dt0 = _default_step(problem, model, protocol, controller) if dt0 is None else dt0
        if dt0 is None or not isinstance(dt0, int | float):
            return None
        options["dt0"] = float(dt0) / 2**halvings
        options["stepsize_controller"] = controller
    elif isinstance(controller, diffrax.PIDController):
        c = controller
        options["stepsize_controller"] = eqx.tree_at(
            lambda k: (k.rtol, k.atol), c, (c.rtol / 16**halvings, c.atol / 16**halvings)
        )
    else:
        return None
    return eqx.tree_at(lambda p: p.sim_options, problem, options)


def best_members(losses: np.ndarray, n_rec: int, starts: int) -> np.ndarray:
    """Index of the lowest-loss start of every recording in the member axis."""
    loss = np.asarray(losses).reshape(n_rec, starts)
    return np.arange(n_rec) * starts + np.argmin(np.where(np.isfinite(loss), loss, np.inf), axis=1)


def member_statistics(problem, theta, members, index, with_shift: bool = True) -> list[dict[str, np.ndarray]]:
    """`fit_statistics` of every member in `index` as numpy arrays.

    `shift` is NaN where the model's resolution cannot be refined (or `with_shift` is off).
    """
    out = []
    physical = problem.physical(theta)
    for m in index:
        member = jax.tree.map(lambda x, m=m: x[m], members)
        fine = finer(problem, member[0]) if with_shift else None
        values = {k: v[m] for k, v in physical.items()}
        cov, sigma2, shift, mean_square = (np.asarray(x) for x in fit_statistics(problem, fine, values, member))
        stderr = np.sqrt(np.maximum(np.diagonal(cov), 0.0))
        shift = shift if fine is not None else np.full_like(shift, np.nan)
        out.append({"cov": cov, "sigma2": sigma2, "shift": shift, "stderr": stderr, "mean_square": mean_square})
    return out


def _shift_ratio(stats) -> float:
    """Largest |shift| / standard error (NaN if unknown)."""
    se = np.where(stats["stderr"] > 0, stats["stderr"], np.inf)
    return float(np.max(np.abs(stats["shift"]) / se))


def halvings_needed(found) -> int:
    r"""How many halvings of the step bring the discretisation bias below `REFINE_FRACTION` standard errors.

    For a scheme of order 2 the bias of the optimum at step $h$ is about $\tfrac43$ of its shift
    between $h$ and $h/2$ and falls as $h^2$, so $k$ halvings divide it by $4^k$. 0: no refinement.
    """
    ratio = max((_shift_ratio(f) for f in found), default=np.nan) * 4 / 3
    if not np.isfinite(ratio) or ratio <= REFINE_FRACTION:
        return 0
    return int(min(MAX_HALVINGS, max(1, np.ceil(0.5 * np.log2(ratio / REFINE_FRACTION)))))


def diagnostics(stats, fit, labels, trace_loss: bool = True) -> xr.Dataset:
    """Noise level, residual level, misfit ratio and resolution shift of every recording's best start.

    The misfit ratio compares trace residuals with the trace's noise, so it is NaN unless the loss is
    the trace MSE (`trace_loss`); it is also NaN for noise-free data (a noise level below 1e-6 of
    the data's spread), where a ratio of two rounding errors says nothing.
    """
    noises, spread = [], []
    for r in range(fit.n_recordings):
        noises.append(noise_sigma({k: v[r] for k, v in fit.values.items()}, {k: m[r] for k, m in fit.mask.items()}))
        spread.append(max(float(np.std(v[r][m[r]])) for v, m in zip(fit.values.values(), fit.mask.values())))
    noise = np.asarray(noises, dtype=float)
    residual = np.sqrt(np.asarray([float(s["mean_square"]) for s in stats]))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(noise > 1e-6 * np.asarray(spread), residual**2 / noise**2, np.nan)
    ratio = ratio if trace_loss else np.full_like(ratio, np.nan)
    shift = np.stack([s["shift"] for s in stats])
    stderr = np.stack([s["stderr"] for s in stats])
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.abs(shift) / stderr
    ds = xr.Dataset(
        {
            "noise_sigma": ("recording", noise, {"long_name": "noise level from the data's second differences (MAD)"}),
            "residual_sigma": ("recording", residual, {"long_name": "root mean square residual at the optimum"}),
            "misfit_ratio": ("recording", ratio,
                             {"long_name": "residual variance / noise variance (about 1 when noise dominates)"}),
            "resolution_shift": (("recording", "parameter"), shift,
                                 {"long_name": "move of the optimum when the model is solved more finely"}),
            "shift_over_stderr": (("recording", "parameter"), relative,
                                  {"long_name": "|resolution_shift| / standard error"}),
        },
        coords={"recording": fit.recordings, "parameter": labels},
    )  # fmt: skip
    return ds


def warn(ds: xr.Dataset, fixed: bool) -> None:
    """Warn when the misfit or the discretisation, not the noise, dominates the estimate's error."""
    ratio = ds["misfit_ratio"].values
    large = np.isfinite(ratio) & (ratio > MISFIT_RATIO_LIMIT)
    if large.any():
        warn_caller(
            f"the residual variance is {np.nanmax(ratio):.3g}× the noise variance estimated from the data: the "
            "optimiser has not converged, or model or discretisation error dominates; the estimates may be "
            "biased by more than their standard errors (see Calibration.diagnostics)",
            CalibrationWarning,
        )
    relative = ds["shift_over_stderr"].values
    worst = float(np.max(np.where(np.isfinite(relative), relative, 0.0), initial=0.0))
    if worst > 4 * REFINE_FRACTION:
        how = "pass a smaller dt0 or tighter tolerances in options" if fixed else "refinement stopped"
        warn_caller(
            f"the optimum moves by {worst:.3g} standard errors when the model is "
            f"solved more finely: the discretisation limits the estimate ({how})",
            CalibrationWarning,
        )
