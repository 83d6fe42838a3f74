r"""The log posterior density of a calibration problem in its unconstrained coordinates.

With `calibrate`'s residuals $r(\theta)$ (the trace MSE's: $r_i = (\hat y_i - y_i)/\sqrt{n}$ for one variable of
$n$ measured samples, so that $n \sum_i r_i^2$ is the residual sum of squares), independent Gaussian noise of
standard deviation $\sigma$ (data units) and physical parameters $x = f(u)$ reached through each parameter's
bijective transform $f$ from the sampler's coordinates $u$,

$$\log p(u \mid y) = -\frac{n}{2\sigma^2} \sum_i r_i(f(u))^2 + \sum_j \log p_j(x_j)
   + \sum_j \log\left|\frac{\partial f_j}{\partial u_j}\right| + \text{const},$$

the last term being the change of variables from $x$ to $u$ (Gelman et al., *Bayesian Data Analysis*, 3rd ed.,
2013, §1.8; the Stan Reference Manual, "Constraint transforms"). The default prior $p_j$ is uniform in
physical units: proper on a `Bounded` parameter, flat (improper) on an unbounded one.
"""

from __future__ import annotations

from collections.abc import Callable

import equinox as eqx
import jax
import jax.numpy as jnp

from ..calibration.internal import Problem


class LogDensity(eqx.Module):
    """`log p(u | y)` of one recording, a function of the unconstrained parameters `{name: u}`.

    Attributes:
        problem: the calibration problem (`calibrate`'s own: its residuals and transforms).
        member: `(protocol, data, mask)` of the recording.
        sigma: noise standard deviation, in the data's units.
        priors: `(name, log p(x))` pairs for parameters with a prior other than uniform (physical units); a tuple,
            so that the compiled sampler is found again for the same functions.
    """

    problem: Problem
    member: tuple
    sigma: jax.Array
    priors: tuple[tuple[str, Callable], ...] = eqx.field(static=True)

    def __call__(self, theta: dict[str, jax.Array], adjoint=None) -> jax.Array:
        """The log density at `theta`; `adjoint`: the solve's (`None`: the model's default, for reverse mode)."""
        residuals = self.problem.residuals(theta, self.member, adjoint)
        _, data, mask = self.member
        n = jnp.asarray(self.problem.loss.count(data, mask)).astype(residuals.dtype)
        log_likelihood = -0.5 * n * jnp.sum(residuals**2) / self.sigma**2
        total = log_likelihood + self.log_prior_and_jacobian(theta)
        # a failed solve (NaN or inf residuals) is a point of zero density, which NUTS rejects, not a crash
        return jnp.where(jnp.isfinite(total), total, -jnp.inf)

    def log_prior_and_jacobian(self, theta: dict[str, jax.Array]) -> jax.Array:
        r"""The terms without the data: $\sum_j \log p_j(x_j) + \sum_j \log|\partial f_j / \partial u_j|$."""
        values = self.problem.physical(theta)
        log_prior = sum((jnp.sum(prior(values[name])) for name, prior in self.priors), jnp.zeros(()))
        return log_prior + log_jacobian(self.problem, theta)


def log_jacobian(problem: Problem, theta: dict[str, jax.Array]) -> jax.Array:
    r"""$\sum_j \log|\partial f_j / \partial u_j|$ over every fitted scalar.

    The transforms act element by element, so one forward-mode product with a tangent of ones gives the whole
    diagonal of the Jacobian.
    """
    total = jnp.zeros(())
    for name, _ in problem.paths:
        u = jnp.asarray(theta[name])
        _, slope = jax.jvp(problem.transforms[name].forward, (u,), (jnp.ones_like(u),))
        total = total + jnp.sum(jnp.log(jnp.abs(slope)))
    return total
