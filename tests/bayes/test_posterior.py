r"""NUTS posterior of the straight line y = a t + b (`Line`) against its exact Gaussian posterior.

With Gaussian noise σ and flat priors (bounds far wider than the posterior), the posterior of (a, b) is Gaussian with
mean the least-squares estimate β̂ = (XᵀX)⁻¹Xᵀy and covariance σ²(XᵀX)⁻¹, X = [t, 1]. The draws must match both within
their Monte Carlo error: the mean to 4 standard errors sd/√ESS, each covariance element to 4 √(2/ESS) √(var_i var_j).
One compiled sampler serves both seeds (same shapes and settings).
"""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import xarray as xr
from _systems import Line

import difflab
from difflab.bayes._density import LogDensity
from difflab.bayes._posterior import _at_the_fits_step, _warn
from difflab.bayes._whiten import FORWARD_MODE_MAX, whiten
from difflab.calibration.internal import Calibration, Comparison, build_problem, fit_members, resolve_default_step
from difflab.neuron import HodgkinHuxley

pytestmark = pytest.mark.slow  # one NUTS compilation (about a minute on a busy 2-core machine)

TS = np.linspace(0.0, 2.0, 21)
SIGMA = 0.1
BOUNDS = {"a": (-5.0, 5.0), "b": (-5.0, 5.0)}
SETTINGS = dict(sampling=difflab.Sampling(chains=4, warmup=200, draws=300))
X = np.stack([TS, np.ones_like(TS)], axis=1)


def line_data(seed):
    rng = np.random.default_rng(seed)
    return {"time": TS, "y": 0.7 * TS + 0.3 + SIGMA * rng.standard_normal(TS.size)}


def exact(y, sigma):
    beta = np.linalg.solve(X.T @ X, X.T @ y)
    return beta, sigma**2 * np.linalg.inv(X.T @ X)


def check_against_exact(post, beta, cov):
    draws = np.stack([post["a"].values.ravel(), post["b"].values.ravel()])
    ess = post["ess_bulk"].values
    assert post.attrs["divergences"] == 0
    assert np.all(post["rhat"].values < 1.01)
    sd = np.sqrt(np.diag(cov))
    np.testing.assert_array_less(np.abs(draws.mean(axis=1) - beta), 4 * sd / np.sqrt(ess))
    tolerance = 4 * np.sqrt(2 / ess.min()) * np.outer(sd, sd)
    np.testing.assert_array_less(np.abs(np.cov(draws) - cov), tolerance)


def test_given_noise_matches_exact_posterior():
    data = line_data(0)
    post = difflab.posterior(Line(), difflab.Constant(0.0), data, params=BOUNDS, noise=SIGMA,
                             key=jax.random.key(0), **SETTINGS)  # fmt: skip
    assert post["a"].dims == ("chain", "draw") and post["a"].shape == (4, 300)
    assert post["a"].attrs["units"] == "mV/ms" and post.attrs["noise"] == SIGMA and post.attrs["warmup"] == 200
    check_against_exact(post, *exact(data["y"], SIGMA))


def test_estimated_noise_from_start_matches_exact_posterior():
    data = line_data(1)
    beta, _ = exact(data["y"], 1.0)
    sigma = np.sqrt(np.sum((data["y"] - X @ beta) ** 2) / (TS.size - 2))  # RSS / (n - p) at least squares
    post = difflab.posterior(Line(), difflab.Constant(0.0), data, params=BOUNDS, start={"a": beta[0], "b": beta[1]},
                             key=jax.random.key(1), **SETTINGS)  # fmt: skip
    assert post.attrs["noise_estimated"] == 1
    np.testing.assert_allclose(post.attrs["noise"], sigma, rtol=1e-9)
    check_against_exact(post, *exact(data["y"], sigma))


def test_a_joint_posterior_with_a_weighted_loss_matches_the_stacked_exact_posterior():
    """Two recordings of one line (`Comparison(joint=True)`) under `MSE(weights={"y": w})`: the likelihood is
    exp(-w RSS / (2σ²)) over both, so the posterior is Gaussian with the stacked least-squares mean and covariance
    (σ²/w)(XₛᵀXₛ)⁻¹, Xₛ = [X; X]."""
    y = np.stack([line_data(3)["y"], line_data(4)["y"]])
    w = 4.0
    post = difflab.posterior(Line(), difflab.Constant(0.0), {"time": TS, "y": y}, params=BOUNDS, noise=SIGMA,
                             loss=difflab.MSE(weights={"y": w}), compare=difflab.Comparison(joint=True),
                             key=jax.random.key(3), **SETTINGS)  # fmt: skip
    stacked = np.concatenate([X, X])
    beta = np.linalg.solve(stacked.T @ stacked, stacked.T @ y.ravel())
    check_against_exact(post, beta, SIGMA**2 / w * np.linalg.inv(stacked.T @ stacked))


def test_a_sampled_noise_level_matches_the_exact_marginal_posteriors():
    # flat priors on (a, b) and a uniform prior on sigma (bounds far wider than its posterior): integrating out (a, b)
    # leaves p(sigma | y) ∝ sigma^-(N - p) exp(-S / 2 sigma^2), so S / sigma^2 ~ chi^2 with nu = N - p - 1 degrees of
    # freedom, and (a, b) follow a Student t with nu degrees of freedom, mean the least-squares estimate and
    # covariance S / (nu - 2) (X^T X)^-1 (Gelman et al., Bayesian Data Analysis, 3rd ed., §3.2 and §14.2)
    data = line_data(0)
    post = difflab.posterior(Line(), difflab.Constant(0.0), data, params=BOUNDS, noise=(0.01, 1.0),
                             key=jax.random.key(0), **SETTINGS)  # fmt: skip
    beta, unit_cov = exact(data["y"], 1.0)
    S = float(np.sum((X @ beta - data["y"]) ** 2))
    nu = TS.size - 2 - 1
    assert post.attrs["noise_sampled"] == 1 and list(post["parameter"].values) == ["a", "b", "noise"]
    check_against_exact(post.sel(parameter=["a", "b"]), beta, S / (nu - 2) * unit_cov)
    w = S / post["noise"].values.ravel() ** 2
    ess = float(post["ess_bulk"].sel(parameter="noise"))
    np.testing.assert_array_less(abs(w.mean() - nu), 4 * np.sqrt(2 * nu / ess))  # chi^2: mean nu, variance 2 nu
    np.testing.assert_array_less(abs(w.var() - 2 * nu), 4 * 2 * nu * np.sqrt(2 / ess) * 2)


def test_gaussian_prior_matches_conjugate_posterior():
    """A prior a ~ N(μ, τ²): precision XᵀX/σ² + diag(1/τ², 0), mean P⁻¹(Xᵀy/σ² + (μ/τ², 0)) (conjugate update)."""
    data, mu, tau = line_data(2), 0.5, 0.05
    post = difflab.posterior(Line(), difflab.Constant(0.0), data, params=BOUNDS, noise=SIGMA,
                             priors={"a": lambda a: -0.5 * ((a - mu) / tau) ** 2}, key=jax.random.key(2),
                             **SETTINGS)  # fmt: skip
    precision = X.T @ X / SIGMA**2 + np.diag([1 / tau**2, 0.0])
    cov = np.linalg.inv(precision)
    check_against_exact(post, cov @ (X.T @ data["y"] / SIGMA**2 + np.array([mu / tau**2, 0.0])), cov)


def test_log_density_has_jacobian_and_prior():
    """log p(u) = -RSS/(2σ²) + log p(a) + log|dx/du| summed, against the closed form at two points."""
    data, prior = line_data(0), lambda a: -0.5 * (a - 1.0) ** 2
    problem, fit = build_problem(Line(), data, BOUNDS, "mse", Comparison(), None)
    member = jax.tree.map(lambda x: x[0], fit_members(difflab.Constant(0.0), fit))
    density = LogDensity(problem=problem, member=member, sigma=jnp.asarray(SIGMA), priors=(("a", prior),))

    def closed_form(a, b):
        rss = np.sum((data["y"] - a * TS - b) ** 2)
        jacobian = sum(np.log((x + 5) * (5 - x) / 10) for x in (a, b))  # d/du of -5 + 10 σ(u) = (x+5)(5-x)/10
        return -rss / (2 * SIGMA**2) + prior(a) + jacobian

    points = [(0.6, 0.2), (0.9, -0.4)]
    theta = [{"a": problem.transforms["a"].inverse(a), "b": problem.transforms["b"].inverse(b)} for a, b in points]
    got = [float(density(t)) for t in theta]
    np.testing.assert_allclose(got[0] - got[1], closed_form(*points[0]) - closed_form(*points[1]), rtol=1e-9)


def test_whitening_is_the_exact_covariance_of_a_linear_model():
    """Unbounded (identity) parameters and flat priors: the Gauss–Newton curvature of the line is its exact
    precision XᵀX/σ², wherever it is taken, so L Lᵀ = σ²(XᵀX)⁻¹."""
    data = line_data(0)
    problem, fit = build_problem(Line(), data, {"a": None, "b": None}, "mse", Comparison(), None)
    member = jax.tree.map(lambda x: x[0], fit_members(difflab.Constant(0.0), fit))
    density = LogDensity(problem=problem, member=member, sigma=jnp.asarray(SIGMA), priors=())
    white = whiten(density, {"a": jnp.asarray(0.2), "b": jnp.asarray(-1.0)})
    np.testing.assert_allclose(white.scale @ white.scale.T, SIGMA**2 * np.linalg.inv(X.T @ X), rtol=1e-10)
    z = jnp.array([0.3, -1.7])
    # the density of z is that of u (the affine map's Jacobian is a constant)
    theta = white.theta(z)
    np.testing.assert_allclose(white(z) - white(jnp.zeros(2)), density(theta) - density(white.theta(jnp.zeros(2))),
                               rtol=1e-12)  # fmt: skip


def test_a_sampled_noise_level_has_its_normalisation_and_curvature():
    """With sigma = e^u sampled (`Log`): log p = -RSS/(2σ²) - N log σ + log|dσ/du| + log p(σ), against the closed
    form; at the least-squares fit, with σ² = RSS/N, the curvature of its own terms in u is 2N and its cross terms
    with (a, b) vanish, so the whitening's noise block is 1/(2N)."""
    data, prior = line_data(0), lambda s: -s
    problem, fit = build_problem(Line(), data, {"a": None, "b": None}, "mse", Comparison(), None)
    member = jax.tree.map(lambda x: x[0], fit_members(difflab.Constant(0.0), fit))
    beta, _ = exact(data["y"], 1.0)
    rss = float(np.sum((X @ beta - data["y"]) ** 2))
    n, sigma = TS.size, np.sqrt(rss / TS.size)
    density = LogDensity(problem=problem, member=member, sigma=jnp.asarray(sigma), priors=(("noise", prior),),
                         noise=difflab.Log())  # fmt: skip

    def closed_form(a, b, s):
        return -np.sum((data["y"] - a * TS - b) ** 2) / (2 * s**2) - n * np.log(s) + np.log(s) + prior(s)

    points = [(0.6, 0.2, 0.3), (0.9, -0.4, 0.05)]
    got = [float(density({"a": jnp.asarray(a), "b": jnp.asarray(b), "noise": jnp.log(s)})) for a, b, s in points]
    np.testing.assert_allclose(got[0] - got[1], closed_form(*points[0]) - closed_form(*points[1]), rtol=1e-9)
    start = {"a": jnp.asarray(beta[0]), "b": jnp.asarray(beta[1]), "noise": jnp.log(jnp.asarray(sigma))}
    white = whiten(density, start)
    covariance = np.asarray(white.scale @ white.scale.T)
    # the prior -σ and the Jacobian u add -d²/du² (-e^u + u) = σ to the noise's curvature
    np.testing.assert_allclose(covariance[2, 2], 1 / (2 * n + sigma), rtol=1e-10)
    np.testing.assert_allclose(covariance[:2, :2], sigma**2 * np.linalg.inv(X.T @ X), rtol=1e-10)
    np.testing.assert_allclose(covariance[:2, 2], 0.0, atol=1e-14)


def test_forward_mode_gradient_equals_reverse_mode():
    """Up to FORWARD_MODE_MAX scalars the sampler's gradient is taken in forward mode inside a custom VJP: the
    value and the gradient NUTS receives equal the reverse-mode ones of the same density."""
    data = line_data(0)
    problem, fit = build_problem(Line(), data, BOUNDS, "mse", Comparison(), None)
    member = jax.tree.map(lambda x: x[0], fit_members(difflab.Constant(0.0), fit))
    density = LogDensity(problem=problem, member=member, sigma=jnp.asarray(SIGMA), priors=(("a", jnp.sin),))
    white = whiten(density, {"a": jnp.asarray(0.1), "b": jnp.asarray(-0.2)})
    assert white.origin.size <= FORWARD_MODE_MAX
    z = jnp.array([0.4, -0.9])
    value, gradient = jax.value_and_grad(white)(z)
    reverse_value, reverse = jax.value_and_grad(lambda x: density(white.theta(x)))(z)
    np.testing.assert_allclose(value, reverse_value, rtol=1e-13)
    np.testing.assert_allclose(gradient, reverse, rtol=1e-10)
    assert np.all(np.abs(np.asarray(gradient)) > 1e-3)  # not a trivial zero


def test_correlated_badly_scaled_posterior_takes_short_trees():
    """Measured at 20–22 ms only (the line starts at 0, where the sample is NaN): a and b correlate at −0.9996
    and their standard deviations differ 21-fold. The correlation matrix's condition number is 2400, so a
    diagonal mass matrix would need trees of about 50 leapfrog steps; whitened at the start, the chains take a
    few."""
    ts = np.linspace(20.0, 22.0, 21)
    design = np.stack([ts, np.ones_like(ts)], axis=1)
    y = 0.7 * ts + 0.3 + SIGMA * np.random.default_rng(5).standard_normal(ts.size)
    beta = np.linalg.solve(design.T @ design, design.T @ y)
    cov = SIGMA**2 * np.linalg.inv(design.T @ design)
    assert cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1]) < -0.9995
    data = {"time": np.concatenate([[0.0], ts]), "y": np.concatenate([[np.nan], y])}
    post = difflab.posterior(Line(), difflab.Constant(0.0), data, params={"a": None, "b": None}, noise=SIGMA,
                             start={"a": 0.7, "b": 0.3}, key=jax.random.key(5), **SETTINGS)  # fmt: skip
    check_against_exact(post, beta, cov)
    assert post.attrs["gradients_per_draw"] < 8, post.attrs["gradients_per_draw"]


def test_the_squid_axons_step_is_resolved_from_the_start_and_the_bounds():
    """As in `calibrate`: the default fixed step is resolved once, as a number, from the start and the bounds'
    corners (gNa up to 1000 mS/cm²: 5/256 ms), not left to follow the sampled gNa, which would make every solve a
    while loop."""
    protocol, ts = difflab.Step(10.0, 2.5, 15.0), jnp.arange(0.0, 15.0, 0.125)
    model = HodgkinHuxley.squid_axon()
    data = {"time": ts, "V": difflab.simulate(model, protocol, ts).ys["V"]}
    # one chain of four draws without warm-up (a quick look, allowed): no R-hat, and a warning that says so
    with pytest.warns(RuntimeWarning, match=r"posterior of 'gNa' has not converged: no R-hat \(one chain or draw\)"):
        post = difflab.posterior(model, protocol, data, params={"gNa": (50.0, 1000.0)}, noise=1.0,
                                 start={"gNa": 120.0}, sampling=difflab.Sampling(chains=1, warmup=0, draws=4),
                                 key=jax.random.key(0))  # fmt: skip
    assert post.attrs["dt0"] == str(5 / 256)
    assert np.isnan(post["rhat"].values).all()
    assert np.all(np.abs(post["gNa"].values - 120.0) < 5.0)  # 1 mV noise on 120 samples: gNa known to < 1 mS/cm²


def test_a_fits_refined_step_is_the_posteriors():
    """A fit that refined its step (`diagnostics.attrs["dt0"]`) hands it on when it is finer than the default."""
    protocol, ts = difflab.Step(10.0, 2.5, 15.0), jnp.arange(0.0, 15.0, 0.125)
    model = HodgkinHuxley.squid_axon()
    data = {"time": ts, "V": difflab.simulate(model, protocol, ts).ys["V"]}
    problem, _ = build_problem(model, data, {"gNa": (50.0, 250.0)}, "mse", Comparison(), None)
    problem = resolve_default_step(problem, {"gNa": jnp.zeros(1)}, protocol)
    assert problem.sim_options["dt0"] == 5 / 64

    def fit_at(dt0):
        none = xr.Dataset()
        return Calibration(model=model, estimates=none, losses=xr.DataArray(0.0), history=none, covariance=None,
                           solver_ok=xr.DataArray(True), steps=0, checkpoint=None,
                           diagnostics=xr.Dataset(attrs={"dt0": dt0}))  # fmt: skip

    assert _at_the_fits_step(problem, fit_at(str(5 / 256))).sim_options["dt0"] == 5 / 256
    assert _at_the_fits_step(problem, fit_at("0.25")) is problem  # coarser than the default: the default stays
    assert _at_the_fits_step(problem, fit_at("default")) is problem  # an adaptive fit
    assert _at_the_fits_step(problem, {"gNa": 120.0}) is problem  # not a fit


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(priors={"c": lambda c: 0.0}), "priors names 'c', which is not a fitted parameter"),
        (dict(start={"a": 7.0, "b": 0.0}), "start: parameter 'a' = 7.0 lies outside"),
        (dict(noise=0.0), "noise must be a positive standard deviation in the units of the loss's residuals; got 0.0"),
        (dict(noise=-1.0), "noise must be a positive standard deviation"),
        (dict(noise=difflab.Positive()), "samples the noise level under a flat prior on (0, inf), which is improper"),
        (dict(noise=(-1.0, 1.0)), "noise: a standard deviation's bounds must lie in [0, inf); got (-1.0, 1.0)"),
        (dict(noise=(1.0, 0.5)), "noise: (lo, hi) bounds of the sampled noise level:"),
        (dict(priors={"noise": lambda s: 0.0}), "priors names 'noise', but the noise level is not sampled"),
        (dict(noise="fit"), "noise must be a positive number (fixed), None (estimated at the start and fixed), or"),
        (dict(priors={"a": lambda a: jnp.log(a - 10.0)}), "priors['a'] must be a finite log density where the chains"),
        (dict(priors={"b": lambda b: b.nonexistent}), "priors['b'] failed at the start (b = 0.0): "),
    ],
)
def test_bad_input_refused_by_name(change, message):
    kwargs = dict(params=BOUNDS, noise=SIGMA, key=jax.random.key(0), **SETTINGS) | change
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        difflab.posterior(Line(), difflab.Constant(0.0), line_data(0), **kwargs)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (dict(chains=0), "chains must be a whole number >= 1; got 0"),
        (dict(draws=0), "draws must be a whole number >= 1; got 0"),
        (dict(warmup=-1), "warmup must be a whole number >= 0; got -1"),
        (dict(chains=2.0), "chains must be a whole number >= 1; got 2.0"),
    ],
)
def test_sampling_settings_are_checked_when_made_and_the_old_keywords_still_reach_them(settings, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        difflab.Sampling(**settings)
    kwargs = dict(params=BOUNDS, noise=SIGMA, key=jax.random.key(0)) | settings
    name = next(iter(settings))
    with pytest.warns(DeprecationWarning, match=re.escape(f"posterior({name}=...) is deprecated and goes at 0.3")):
        with pytest.raises(ValueError, match=re.escape(message)):
            difflab.posterior(Line(), difflab.Constant(0.0), line_data(0), **kwargs)


def test_a_loss_that_is_not_least_squares_and_several_recordings_are_refused_by_name():
    with pytest.raises(TypeError, match=r"loss must be a least-squares loss for posterior .* got 'firing_rate'"):
        difflab.posterior(Line(), difflab.Constant(0.0), line_data(0), params=BOUNDS, loss="firing_rate",
                          key=jax.random.key(0))  # fmt: skip
    two = {"time": TS, "y": np.stack([line_data(0)["y"], line_data(1)["y"]])}
    joint = "got 2: select one, or pass compare=difflab.Comparison(joint=True)"
    with pytest.raises(ValueError, match=re.escape(joint)):
        difflab.posterior(Line(), difflab.Constant(0.0), two, params=BOUNDS, key=jax.random.key(0))
    with pytest.raises(TypeError, match=re.escape("sampling must be a difflab.Sampling(chains=..., warmup=...")):
        difflab.posterior(Line(), difflab.Constant(0.0), line_data(0), params=BOUNDS, sampling={"chains": 2},
                          key=jax.random.key(0))  # fmt: skip


def test_unconverged_and_divergent_chains_warn_by_name():
    bad = xr.Dataset(
        {"rhat": ("parameter", [1.2, 1.0]), "ess_bulk": ("parameter", [500.0, 40.0])},
        coords={"parameter": ["a", "b"]},
        attrs={"divergences": 3},
    )
    with pytest.warns(RuntimeWarning) as record:
        _warn(bad)
    messages = [str(w.message) for w in record]
    assert len(messages) == 3
    assert messages[0].startswith("posterior of 'a' has not converged: R-hat 1.200")
    assert messages[1].startswith("posterior of 'b' has not converged: R-hat 1.000 (want <= 1.01), bulk ESS 40")
    assert messages[2].startswith("3 divergent transitions")
