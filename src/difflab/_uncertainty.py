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
import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree


@eqx.filter_jit
def covariance(problem, values, member):
    """``(cov, sigma2)`` of the flattened physical parameters ``values`` for one recording."""
    protocol, data, mask = member
    # Flatten in the order of problem.paths (a dict pytree would sort the names).
    ordered = [values[name] for name, _ in problem.paths]
    flat, unravel_list = ravel_pytree(ordered)
    unravel = lambda x: dict(zip([n for n, _ in problem.paths], unravel_list(x)))  # noqa: E731

    def residuals(x):
        pred, _ = problem.predict(unravel(x), protocol, adjoint=diffrax.ForwardMode())
        parts = [jnp.ravel(jnp.where(mask[k], pred[k] - data[k], 0.0)) for k in sorted(data)]
        return jnp.concatenate(parts)

    r = residuals(flat)
    jac = jax.jacfwd(residuals)(flat)
    n = sum(jnp.sum(m) for m in mask.values())
    sigma2 = jnp.sum(r**2) / jnp.maximum(n - flat.shape[0], 1)
    return sigma2 * jnp.linalg.pinv(jac.T @ jac), sigma2
