r"""The log posterior density of a calibration problem in its unconstrained coordinates.

With `calibrate`'s residuals $r(\theta)$ (the trace MSE's: $r_i = (\hat y_i - y_i)/\sqrt{n}$ for one variable of
$n$ measured samples, so that $n \sum_i r_i^2$ is the residual sum of squares), independent Gaussian noise of
standard deviation $\sigma$ (data units) and physical parameters $x = f(u)$ reached through each parameter's
bijective transform $f$ from the sampler's coordinates $u$,

$$\log p(u \mid y) = -\frac{n}{2\sigma^2} \sum_i r_i(f(u))^2 - n \log\sigma + \sum_j \log p_j(x_j)
   + \sum_j \log\left|\frac{\partial f_j}{\partial u_j}\right| + \text{const},$$

the last term being the change of variables from $x$ to $u$ (Gelman et al., *Bayesian Data Analysis*, 3rd ed.,
2013, §1.8; the Stan Reference Manual, "Constraint transforms"). The default prior $p_j$ is uniform in
physical units: proper on a `Bounded` parameter, flat (improper) on an unbounded one. With $\sigma$ fixed the
term $-n \log\sigma$ is a constant; with $\sigma$ sampled it is one more coordinate (`NOISE`), reached through its
own transform, with its own prior and Jacobian.
"""

from __future__ import annotations

from collections.abc import Callable

import equinox as eqx
import jax
import jax.numpy as jnp

from ..calibration.internal import AbstractTransform, Problem

#: The name of the noise standard deviation among the sampled coordinates, when it is sampled.
NOISE = "noise"


class LogDensity(eqx.Module):
    """`log p(u | y)` of one recording, a function of the unconstrained parameters `{name: u}`.

    Attributes:
        problem: the calibration problem (`calibrate`'s own: its residuals and transforms).
        member: `(protocol, data, mask)` of the recording.
        sigma: noise standard deviation, in the units of the loss's residuals: the value when it is fixed, the
            chains' start when it is sampled.
        priors: `(name, log p(x))` pairs for parameters with a prior other than uniform (physical units); a tuple,
            so that the compiled sampler is found again for the same functions.
        noise: the transform of the sampled noise standard deviation (`theta[NOISE]` its unconstrained
            coordinate), or `None` when `sigma` is fixed.
    """

    problem: Problem
    member: tuple
    sigma: jax.Array
    priors: tuple[tuple[str, Callable], ...] = eqx.field(static=True)
    noise: AbstractTransform | None = None

    def __call__(self, theta: dict[str, jax.Array], adjoint=None) -> jax.Array:
        """The log density at `theta`; `adjoint`: the solve's (`None`: the model's default, for reverse mode)."""
        residuals = self.problem.residuals(self.fitted(theta), self.member, adjoint)
        n = self.count(residuals.dtype)
        sigma = self.noise_at(theta)
        log_likelihood = -0.5 * n * jnp.sum(residuals**2) / sigma**2
        if self.noise is not None:  # the normalisation of the n Gaussian terms, a constant when sigma is fixed
            log_likelihood = log_likelihood - n * jnp.log(sigma)
        total = log_likelihood + self.log_prior_and_jacobian(theta)
        # a failed solve (NaN or inf residuals) is a point of zero density, which NUTS rejects, not a crash
        return jnp.where(jnp.isfinite(total), total, -jnp.inf)

    def count(self, dtype) -> jax.Array:
        """$n$, the observations that the residuals stand for."""
        _, data, mask = self.member
        return jnp.asarray(self.problem.loss.count(data, mask)).astype(dtype)

    def fitted(self, theta: dict[str, jax.Array]) -> dict[str, jax.Array]:
        """`theta` without the noise's coordinate: the model's fitted parameters."""
        return {name: u for name, u in theta.items() if name != NOISE}

    def noise_at(self, theta: dict[str, jax.Array]) -> jax.Array:
        r"""$\sigma$ at `theta`: the fixed value, or the sampled one through its transform."""
        return self.sigma if self.noise is None else self.noise.forward(theta[NOISE])

    def physical(self, theta: dict[str, jax.Array]) -> dict[str, jax.Array]:
        """`{name: x}`: every sampled coordinate in physical units, the sampled noise level included."""
        values = self.problem.physical(self.fitted(theta))
        return values if self.noise is None else {**values, NOISE: self.noise_at(theta)}

    def log_prior_and_jacobian(self, theta: dict[str, jax.Array]) -> jax.Array:
        r"""The terms without the data: $\sum_j \log p_j(x_j) + \sum_j \log|\partial f_j / \partial u_j|$."""
        values = self.physical(theta)
        total = log_jacobian(self.problem, self.fitted(theta))
        if self.noise is not None:
            total = total + _log_slope(self.noise, theta[NOISE])
        log_prior = sum((jnp.sum(prior(values[name])) for name, prior in self.priors), jnp.zeros(()))
        return log_prior + total


def log_jacobian(problem: Problem, theta: dict[str, jax.Array]) -> jax.Array:
    r"""$\sum_j \log|\partial f_j / \partial u_j|$ over every fitted scalar.

    The transforms act element by element, so one forward-mode product with a tangent of ones gives the whole
    diagonal of the Jacobian.
    """
    return sum((_log_slope(problem.transforms[name], theta[name]) for name, _ in problem.paths), jnp.zeros(()))


def _log_slope(transform: AbstractTransform, u) -> jax.Array:
    u = jnp.asarray(u)
    _, slope = jax.jvp(transform.forward, (u,), (jnp.ones_like(u),))
    return jnp.sum(jnp.log(jnp.abs(slope)))
