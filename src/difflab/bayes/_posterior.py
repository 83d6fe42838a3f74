r"""`posterior`: draws from the Bayesian posterior of fitted parameters (NUTS), with convergence checks.

The likelihood is Gaussian in the residuals that `calibrate` minimises (see `_density`), so the posterior mode
with uniform priors is the least-squares fit. The noise level $\sigma$ is either given or estimated at the start as
$\hat\sigma^2 = \mathrm{RSS}/(n - p)$ (Bates & Watts 1988, ch. 2), the residual variance of a good fit.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Mapping
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr
from jaxtyping import ArrayLike, PRNGKeyArray

from ..calibration.internal import (
    AbstractTransform,
    Bounded,
    Calibration,
    Comparison,
    Log,
    Positive,
    build_problem,
    fit_members,
    resolve_default_step,
)
from ..core.internal import (
    AbstractModel,
    SolveOptions,
    check_key,
    gather_moved,
    get_path,
    legacy_keywords,
    optional_module,
    warn_caller,
)
from ..data.internal import tree_fingerprint
from ._chains import run_chains
from ._density import NOISE, LogDensity
from ._sampling import SAMPLING_FIELDS, Sampling
from ._whiten import whiten

#: Convergence thresholds (Vehtari et al., "Rank-normalization, folding, and localization: an improved R-hat",
#: Bayesian Analysis 16, 2021: R-hat below 1.01 and a bulk ESS of at least 100 before trusting the draws).
RHAT_LIMIT, ESS_LIMIT = 1.01, 100.0

#: Spread of the chains' starts around `start`, in the whitened coordinates: at a fit the starts are draws from the
#: Laplace approximation N(start, H⁻¹), as dispersed as the posterior, as R-hat wants. (A fixed spread in the
#: unconstrained coordinates put a 300 ms squid-axon recording's chains hundreds of standard deviations out, into
#: other spike-timing modes, where they stuck.)
START_SPREAD = 1.0


def _legacy_posterior(*args: Any, **kwargs: Any) -> xr.Dataset:
    """`posterior` called with `chains`, `warmup` or `draws` as keywords (before `sampling`; removed at 0.3)."""
    gather_moved("posterior", kwargs, "sampling", Sampling, SAMPLING_FIELDS)
    return posterior(*args, **kwargs)


@legacy_keywords(frozenset(SAMPLING_FIELDS), _legacy_posterior)
def posterior(
    model: AbstractModel,
    protocol: Any,
    data: Any,
    *,
    params: Mapping[str, AbstractTransform | tuple[float, float] | None],
    loss: Any = "mse",
    priors: Mapping[str, Callable[[jax.Array], jax.Array]] | None = None,
    compare: Comparison | None = None,
    start: Calibration | Mapping[str, ArrayLike] | None = None,
    noise: float | AbstractTransform | tuple[float, float] | None = None,
    sampling: Sampling | None = None,
    options: SolveOptions | None = None,
    key: PRNGKeyArray,
) -> xr.Dataset:
    r"""Sample the posterior of the parameters named in `params` given one recording `data`, with NUTS.

    $$p(x \mid y) \propto \exp\Big(-\frac{\mathrm{RSS}(x)}{2\sigma^2}\Big) \prod_j p_j(x_j)$$

    with $\mathrm{RSS} = n \sum_i r_i^2$ from the residuals $r_i$ of `calibrate`'s least-squares `loss` and the $n$
    observations they stand for (one noise level $\sigma$ for all of them). For the trace MSE (the default) that
    is the residual sum of squares of the samples; for `SpikeTimes` of the spike times, and for `SpikeFeatures`
    of the features in units of their scales. The sampler works in the transforms' unconstrained coordinates,
    with their log-Jacobian, whitened by the posterior's Gauss–Newton curvature at `start` (an affine map, see
    `difflab.bayes._whiten`): at a fit the chains then see a posterior close to a standard normal and take short
    trees from the first warm-up step.

    Args:
        model: the model; fields not named in `params` stay fixed.
        protocol: the input, as for [`difflab.calibrate`][].
        data: one recording, as for `calibrate` (NaN samples are left out); several, with one parameter set for
            all, with `compare=Comparison(joint=True)`.
        params: parameter name -> transform or `(lo, hi)` for `Bounded(lo, hi)`, as for `calibrate`.
        loss: a least-squares loss of `calibrate` (`"mse"`, the default; `"spike_times"`, a
            [`SpikeTimes`][difflab.SpikeTimes] or [`MSE`][difflab.MSE] with weights,
            [`SpikeFeatures`][difflab.neuron.SpikeFeatures]): its residuals are the likelihood's.
        priors: `{name: log_p}` with `log_p(x)` the log prior density of the physical value `x` (up to a constant);
            a parameter without one gets a uniform prior (on its bounds for `Bounded`). `"noise"` names the noise
            level's, when it is sampled.
        compare: a [`Comparison`][difflab.Comparison]: which variables, on which grid (as for `calibrate`).
        start: where the chains start: a [`Calibration`][difflab.Calibration] (its best model), `{name: value}`
            (physical units, inside the bounds) or `None`: a `Bounded` parameter's centre, else the model's value.
        noise: $\sigma$, the noise standard deviation in the units of the loss's residuals (> 0): the data's
            units for the trace MSE, the time units for spike times, 1 for spike features whose scales are their
            standard deviations. `None`: $\hat\sigma^2 = \mathrm{RSS}/(n - p)$ at `start` (so start at a fit),
            stated in `attrs["noise"]`. Or sampled with the parameters: `(lo, hi)` or `Bounded(lo, hi)` (a uniform
            prior on the bounds), or `Positive()`/`Log()` with a prior `priors["noise"]`; the chains start at
            $\hat\sigma$, and the draws are the variable `noise`. The likelihood then carries its
            normalisation $-n \log\sigma$.
        sampling: a [`Sampling`][difflab.Sampling]: chains, warm-up and draws (default: 4 chains, 500 warm-up
            steps and 1000 draws each), and how they run: checkpoints and resuming, progress, a Dask cluster.
        options: a [`SolveOptions`][difflab.SolveOptions] for the model's solves, as for `calibrate` (default:
            the model's; a fixed step resolved once from the start and the bounds, or a fit's refined step).
        key: random key (chains' starts, adaptation and draws).

    Returns:
        A Dataset with one variable per parameter (and `noise` when it is sampled), dims `(chain, draw)` (plus the
        parameter's own), physical units in `units`; `rhat` and `ess_bulk` over dim `parameter` (the worst
        element of an array parameter; NaN from one chain or draw, and the ESS from fewer than four draws);
        `divergent` and `leapfrog_steps` `(chain, draw)`; attrs with the settings, `noise` (the chains' start
        when it is sampled), `noise_sampled`, `divergences`, the adapted step sizes (whitened coordinates),
        `gradients_per_draw`, the mean leapfrog steps of a kept draw (its cost in gradients of the log density),
        and `dt0`, the fixed step of the solves (`"default"` when the model's solver is adaptive or the step its
        own). [`as_inference_data`][difflab.as_inference_data] gives all of it to ArviZ.

    Warns:
        RuntimeWarning: naming the parameter when R-hat > 1.01 or bulk ESS < 100, or when any draw diverged.
    """
    if not isinstance(model, AbstractModel):
        raise TypeError(f"model must be an AbstractModel; got {type(model).__name__}")
    if importlib.util.find_spec("blackjax") is None:
        raise ImportError("posterior samples with blackjax: pip install 'difflab[posterior]'")
    check_key(key)
    sampling = Sampling() if sampling is None else sampling
    if not isinstance(sampling, Sampling):
        raise TypeError(f"sampling must be a difflab.Sampling(chains=..., warmup=..., draws=...); got {sampling!r}")
    compare = Comparison() if compare is None else compare
    problem, fit = build_problem(model, data, params, loss, compare, options)
    if not problem.loss.least_squares:
        raise TypeError(
            f"loss must be a least-squares loss for posterior (its residuals make the Gaussian likelihood): 'mse', "
            f"'spike_times', difflab.MSE, difflab.SpikeTimes or difflab.neuron.SpikeFeatures; got {loss!r}"
        )
    if fit.n_recordings != 1:
        raise ValueError(
            f"data must hold one recording for posterior; got {fit.n_recordings}: select one, or pass "
            "compare=difflab.Comparison(joint=True) for the posterior of one parameter set given all of them"
        )
    sampled_noise = _sampled_noise(noise, problem.transforms)
    priors = _checked_priors(priors, problem.transforms, sampled_noise)
    member = jax.tree.map(lambda x: x[0], fit_members(protocol, fit))
    theta = {name: problem.transforms[name].inverse(x) for name, x in _start(start, model, problem).items()}
    # the model's default fixed step resolved once, from the start and the bounds' corners, as `calibrate` does:
    # left to follow the sampled parameters it would be traced, and every solve a while loop instead of a scan
    problem = resolve_default_step(problem, jax.tree.map(lambda u: u[None], theta), member[0])
    problem = _at_the_fits_step(problem, start)
    sigma = _noise(None if sampled_noise is not None else noise, problem, theta, member)
    if sampled_noise is not None:  # the chains start at the residuals' estimate (inside the bounds), last
        if isinstance(sampled_noise, Bounded):  # a start that is not a fit can put the estimate outside them
            lo, hi = float(sampled_noise.lo), float(sampled_noise.hi)
            sigma = float(np.clip(sigma, lo + 0.01 * (hi - lo), hi - 0.01 * (hi - lo)))
        theta[NOISE] = sampled_noise.inverse(jnp.asarray(sigma, dtype=jnp.result_type(*theta.values())))
    density = LogDensity(problem=problem, member=member, sigma=jnp.asarray(sigma), priors=tuple(priors.items()),
                         noise=sampled_noise)  # fmt: skip
    _check_priors_at(density, theta)
    whitened = whiten(density, theta)
    start_key, chain_key = jax.random.split(key)
    shape = (sampling.chains, whitened.origin.size)
    z_starts = START_SPREAD * jax.random.normal(start_key, shape, whitened.origin.dtype)
    parts = _fingerprints(density, noise, theta, sampling, key)
    chains = run_chains(whitened, jax.random.split(chain_key, sampling.chains), z_starts, sampling, parts)
    positions = jax.vmap(jax.vmap(whitened.theta))(jnp.asarray(chains["z"]))
    settings = dict(sampler="NUTS (blackjax, window adaptation)", chains=sampling.chains, warmup=sampling.warmup,
                    draws=sampling.draws)  # fmt: skip
    out = _dataset(problem, positions, chains["divergent"], settings, sampled_noise)
    out["leapfrog_steps"] = xr.Variable(("chain", "draw"), chains["steps"], {"long_name": "leapfrog steps of the draw"})
    out.attrs.update(
        noise=float(sigma),
        noise_estimated=int(noise is None or sampled_noise is not None),
        noise_sampled=int(sampled_noise is not None),
        step_sizes=chains["step_size"],
        gradients_per_draw=float(np.mean(chains["steps"])),
        dt0=str(problem.sim_options.get("dt0", "default")),
    )
    _warn(out)
    return out


def _fingerprints(density, noise, theta, sampling, key) -> dict[str, str]:
    """Fingerprints of the parts of the posterior that a checkpoint belongs to, as its attributes.

    What the user gave, not what was computed from it (the estimated noise, the whitening), so that a checkpoint
    resumes on another machine whose last bits of arithmetic differ.
    """
    parts = {
        "model": (density.problem,),  # the model, fitted parameters, bounds, loss, grid and solve options
        "data": (density.member,),  # the protocol, the recording and its mask
        "noise": ("estimated" if noise is None else noise if isinstance(noise, eqx.Module) else repr(noise),),
        "priors": (density.priors,),
        "start": (theta,),
        "sampling": (sampling.chains, sampling.warmup),
        "key": (np.asarray(jax.random.key_data(key)),),
    }
    return {f"fingerprint_{name}": tree_fingerprint(*trees)[:16] for name, trees in parts.items()}


def _at_the_fits_step(problem, start):
    """`problem` solved at a fit's refined fixed step when `start` is a fit whose step is finer than the default.

    `calibrate` halves the step until it no longer moves the estimate by a noticeable part of a standard error
    (`diagnostics.attrs["dt0"]`). At the default step the posterior would sit where the step puts it: on 300 ms
    of the squid axon, 10 posterior standard deviations from the refined fit.
    """
    if not isinstance(start, Calibration) or start.diagnostics is None or not problem.step_resolved:
        return problem
    try:
        fitted = float(start.diagnostics.attrs.get("dt0", "default"))
    except ValueError:
        return problem  # an adaptive solve ("default"): its tolerances are the model's
    if fitted >= problem.sim_options["dt0"]:
        return problem
    return dataclasses.replace(problem, sim_options={**problem.sim_options, "dt0": fitted})


def _sampled_noise(noise, transforms) -> AbstractTransform | None:
    """The transform of a sampled noise level (`noise` a transform or `(lo, hi)`), or `None` for a fixed one."""
    if noise is None or (isinstance(noise, int | float | np.floating | np.integer) and not isinstance(noise, bool)):
        return None
    if isinstance(noise, tuple | list) and len(noise) == 2:
        try:
            noise = Bounded(*noise)
        except (TypeError, ValueError) as err:
            raise ValueError(f"noise: (lo, hi) bounds of the sampled noise level: {err}") from None
    if not isinstance(noise, Bounded | Positive | Log):
        raise TypeError(
            "noise must be a positive number (fixed), None (estimated at the start and fixed), or, to sample it, "
            f"(lo, hi) bounds, difflab.Bounded(lo, hi), difflab.Positive() or difflab.Log(); got {noise!r}"
        )
    if isinstance(noise, Bounded) and float(noise.lo) < 0:
        raise ValueError(f"noise: a standard deviation's bounds must lie in [0, inf); got ({noise.lo}, {noise.hi})")
    if NOISE in transforms:
        raise ValueError(f"params names {NOISE!r}, the name of the sampled noise level; rename the parameter")
    return noise


def _checked_priors(priors, transforms, sampled_noise=None) -> dict[str, Callable]:
    priors = dict(priors or {})
    if sampled_noise is not None and not isinstance(sampled_noise, Bounded) and NOISE not in priors:
        raise ValueError(
            f"noise={sampled_noise!r} samples the noise level under a flat prior on (0, inf), which is improper: "
            f"give priors={{{NOISE!r}: log_p}} or bounds, noise=(lo, hi)"
        )
    for name, prior in priors.items():
        if name == NOISE and sampled_noise is None:
            raise ValueError(f"priors names {NOISE!r}, but the noise level is not sampled: pass noise=(lo, hi)")
        if name not in transforms and name != NOISE:
            raise ValueError(f"priors names {name!r}, which is not a fitted parameter (params: {sorted(transforms)})")
        if not callable(prior):
            raise TypeError(f"priors[{name!r}] must be a function log_p(value) -> log density; got {prior!r}")
    return priors


def _check_priors_at(density: LogDensity, theta: dict[str, jax.Array]) -> None:
    """Refuse, by name, a prior that is not a finite log density at the chains' start.

    A prior returning NaN, +inf or -inf there (a density of the wrong variable, a typo, an improper or truncated
    prior that excludes the start) would give every chain a log density of -inf from its first step: NUTS would
    reject every move and return the start as every draw.
    """
    values = density.physical(theta)
    for name, prior in density.priors:
        try:
            log_p = np.asarray(prior(values[name]), dtype=float)
        except Exception as err:  # the user's function: any failure is reported with its name
            raise TypeError(
                f"priors[{name!r}] failed at the start ({name} = {np.asarray(values[name])}): {err}"
            ) from err
        if log_p.size == 0 or not np.all(np.isfinite(log_p)):
            raise ValueError(
                f"priors[{name!r}] must be a finite log density where the chains start ({name} = "
                f"{np.asarray(values[name])}); got {log_p}: a proper prior that covers the start, as log p(value)"
            )


def _start(start, model, problem) -> dict[str, jax.Array]:
    """Physical start values of every fitted parameter (see `posterior`'s `start`)."""
    values = {}
    for name, path in problem.paths:
        transform = problem.transforms[name]
        own = jnp.asarray(get_path(model, path))
        if isinstance(start, Calibration):
            value = jnp.asarray(get_path(start.model, path))
        elif isinstance(start, Mapping) and name in start:
            value = jnp.asarray(start[name], dtype=own.dtype)
        elif start is None and isinstance(transform, Bounded):
            value = jnp.broadcast_to((transform.lo + transform.hi) / 2, own.shape)
        elif start is None:
            value = own
        else:
            raise ValueError(f"start must be a Calibration, a dict naming every fitted parameter or None; {name!r} is "
                             f"missing from {start!r}")  # fmt: skip
        if value.shape != own.shape:
            raise ValueError(f"start of {name!r} must have the parameter's shape {own.shape}; got {value.shape}")
        value = transform.inside(value)  # a calibration's estimate on a bound starts just inside it
        try:
            transform.check(value, name)
        except ValueError as err:
            raise ValueError(f"start: {err}") from None
        values[name] = value
    return values


def _noise(noise, problem, theta, member) -> float:
    r"""The given noise level, checked, or $\hat\sigma = \sqrt{\mathrm{RSS}/(n - p)}$ at `theta`."""
    if noise is not None:
        if not np.isfinite(noise) or noise <= 0:
            raise ValueError(
                f"noise must be a positive standard deviation in the units of the loss's residuals; got {noise!r}"
            )
        return float(noise)
    _, data, mask = member
    n = float(problem.loss.count(data, mask))
    p = sum(int(np.size(u)) for u in theta.values())
    rss = n * float(jnp.sum(problem.residuals(theta, member) ** 2))
    if n <= p or not rss > 0:
        raise ValueError(f"noise cannot be estimated ({int(n)} samples, {p} parameters, RSS {rss}); pass noise=")
    return float(np.sqrt(rss / (n - p)))


def _dataset(problem, positions, divergent, settings, sampled_noise=None) -> xr.Dataset:
    diagnostics = optional_module("blackjax.diagnostics", "posterior", "posterior()")
    units = type(problem.model).parameter_units
    variables: dict[str, Any] = {}
    rhat, ess = [], []
    described = [(name, problem.transforms[name], {"units": units.get(name, units.get(path, "")),
                  "long_name": f"posterior draws of {name} ({path})"}) for name, path in problem.paths]  # fmt: skip
    if sampled_noise is not None:
        long_name = "posterior draws of the noise standard deviation (the units of the loss's residuals)"
        described.append((NOISE, sampled_noise, {"long_name": long_name}))
    for name, transform, attrs in described:
        x = np.asarray(jax.vmap(jax.vmap(transform.forward))(positions[name]))
        dims = ("chain", "draw", *[f"{name}_dim_{i}" for i in range(x.ndim - 2)])
        variables[name] = xr.Variable(dims, x, attrs)
        with jax.numpy_dtype_promotion("standard"):  # blackjax's ranks mix Python floats with integer counts
            # R-hat compares chains: NaN for one chain (which `chains` allows, for a quick look)
            rhat.append(float(np.max(diagnostics.potential_scale_reduction(x))) if min(x.shape[:2]) > 1 else np.nan)
            # the bulk ESS splits each chain into two halves of at least two draws: none from fewer than four
            ess.append(float(np.min(diagnostics.ess_bulk(x))) if x.shape[1] >= 4 else np.nan)
    names = [name for name, _, _ in described]
    variables["rhat"] = xr.Variable("parameter", np.array(rhat), {"long_name": "potential scale reduction R-hat"})
    variables["ess_bulk"] = xr.Variable("parameter", np.array(ess), {"long_name": "bulk effective sample size"})
    variables["divergent"] = xr.Variable(("chain", "draw"), divergent, {"long_name": "divergent transition"})
    out = xr.Dataset(variables, coords={"parameter": names})
    out.attrs.update(settings, divergences=int(divergent.sum()))
    return out


def _warn(out: xr.Dataset) -> None:
    for name in map(str, out["parameter"].values):
        rhat, ess = float(out["rhat"].sel(parameter=name)), float(out["ess_bulk"].sel(parameter=name))
        if rhat > RHAT_LIMIT or not ess >= ESS_LIMIT:  # an ESS of NaN (under four draws) is no evidence
            shown = f"R-hat {rhat:.3f} (want <= {RHAT_LIMIT})" if np.isfinite(rhat) else "no R-hat (one chain or draw)"
            warn_caller(
                f"posterior of {name!r} has not converged: {shown}, bulk ESS "
                f"{ess:.0f} (want >= {ESS_LIMIT:.0f}); run longer chains (warmup, draws; a checkpoint resumed with "
                "more draws continues them) or start at a fit",
                RuntimeWarning,
            )
    if out.attrs["divergences"] > 0:
        warn_caller(
            f"{out.attrs['divergences']} divergent transitions in the posterior of "
            f"{', '.join(map(str, out['parameter'].values))}: "
            "the draws may be biased (reparametrise, tighten the bounds or give priors)",
            RuntimeWarning,
        )
