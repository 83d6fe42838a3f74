r"""Parameter uncertainty at the optimum from the Gauss–Newton approximation of the Hessian.

For residuals $r_i(\theta) = \hat y_i(\theta) - y_i$ over the $n$ measured samples and $p$
fitted scalars, with Jacobian $J = \partial r / \partial \theta$ (physical units),

$$\hat\sigma^2 = \frac{\sum_i r_i^2}{n - p}, \qquad
  \operatorname{Cov}(\hat\theta) \approx \hat\sigma^2 (J^\top J)^{-1},$$

and the standard errors are the square roots of the diagonal (Bates & Watts, *Nonlinear
Regression Analysis and Its Applications*, 1988, ch. 2). This assumes independent Gaussian
noise of one variance on all fitted samples.
"""

from __future__ import annotations

import diffrax
import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree

from ._jacobian import value_and_jacfwd


@eqx.filter_jit
def fit_statistics(problem, finer, values, member):
    r"""Covariance, residual level and resolution shift of the physical parameters `values` of one recording.

    The residuals are the loss's own (`problem.loss.residuals`: for the trace MSE, each variable's
    misfit scaled by $\sqrt{w_v / n_v}$; for spike times, the shifts of the observed spikes), so the
    covariance is that of the weighted least-squares problem the fit solved; $n$ is the number of
    observations behind them (`problem.loss.count`). Returns `(cov, sigma2, shift, mean_square)`:
    the Gauss–Newton covariance above, the residual variance $\hat\sigma^2$ (NaN when $n \le p$:
    with no degree of freedom left the errors are unknown, not 0), the move of the optimum when the
    model is solved as in `finer`, and the mean squared *trace* residual of the measured samples.
    With $\delta = r_\text{fine}(\theta) - r(\theta)$ one Gauss–Newton step gives that move,
    $\Delta\theta = -(J^\top J)^{-1} J^\top \delta$ (NaN when `finer` is `None`). A move
    comparable to the standard errors means that the discretisation (step or tolerances), not the
    noise, limits the estimate.
    """
    protocol, data, mask = member
    # Flatten in the order of problem.paths (a dict pytree would sort the names).
    ordered = [values[name] for name, _ in problem.paths]
    flat, unravel_list = ravel_pytree(ordered)
    unravel = lambda x: dict(zip([n for n, _ in problem.paths], unravel_list(x)))  # noqa: E731

    def predict(prob, x):
        return prob.predict(unravel(x), protocol, adjoint=diffrax.ForwardMode())[0]

    def predict_and_residuals(prob, x):
        pred = predict(prob, x)
        return pred, prob.loss.residuals(pred, data, mask)

    # the prediction, residuals and Jacobian from one forward pass (the predictions' tangents are dropped by XLA)
    (pred, r), (_, jac) = value_and_jacfwd(lambda x: predict_and_residuals(problem, x), flat)
    normal = jnp.linalg.pinv(jac.T @ jac)
    n = jnp.asarray(problem.loss.count(data, mask)).astype(r.dtype)  # a count, in the residuals' dtype
    dof = n - flat.shape[0]
    # the residuals carry the loss's 1/n scaling: undo it so that sigma2 (J^T J)^-1 is scale-free
    sigma2 = jnp.where(dof > 0, jnp.sum(r**2) * n / jnp.maximum(dof, 1), jnp.nan)
    if finer is None:
        shift = jnp.full_like(flat, jnp.nan)
    else:
        shift = -normal @ (jac.T @ (predict_and_residuals(finer, flat)[1] - r))
    raw = [jnp.where(mask[k], pred[k] - data[k], 0.0) for k in sorted(data) if k in pred]
    measured = jnp.asarray(sum(jnp.sum(mask[k]) for k in sorted(data) if k in pred)).astype(r.dtype)
    mean_square = sum(jnp.sum(x**2) for x in raw) / jnp.maximum(measured, 1)
    return sigma2 / n * normal, sigma2, shift, mean_square


def noise_sigma(values, mask) -> float:
    r"""The noise level of a recording from the data alone: $\hat\sigma = \mathrm{MAD}(\Delta^2 y) / (0.6745 \sqrt 6)$.

    For white noise of variance $\sigma^2$ the second difference $y_{i+1} - 2 y_i + y_{i-1}$ has
    variance $6\sigma^2$; the median absolute deviation ignores the few samples where the signal
    itself curves sharply (spikes). A smooth signal sampled coarsely adds its own curvature, so the
    figure is an upper bound there. NaN when fewer than 8 consecutive measured triples exist.
    """
    second = []
    for name in sorted(values):
        y = np.asarray(values[name], dtype=float)
        m = np.asarray(mask[name], dtype=bool)
        d2 = y[2:] - 2 * y[1:-1] + y[:-2]
        ok = m[2:] & m[1:-1] & m[:-2]
        second.append(d2[ok].ravel())
    d2 = np.concatenate(second) if second else np.zeros(0)
    if d2.size < 8:
        return float("nan")
    mad = np.median(np.abs(d2 - np.median(d2)))
    return float(mad / 0.6745 / np.sqrt(6.0))
