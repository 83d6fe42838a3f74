r"""The sampler's coordinates: the unconstrained parameters whitened by the posterior's curvature at the start.

NUTS takes steps of one size in every direction, so it needs about $\sqrt{\kappa}$ leapfrog steps per draw on a
posterior whose scales differ by a factor $\kappa$ (Neal, "MCMC using Hamiltonian dynamics", 2011, §4.1).
Fitted conductances are such a posterior: in the transforms' coordinates gNa's standard deviation is a few
thousandths and gL's a few hundredths, and gNa and gK are correlated. The window adaptation learns a diagonal
mass matrix, but only after its first windows, which run at the badly scaled start with trees of hundreds of steps.

So the chains run in $z$, with

$$u = u_0 + L z, \qquad L L^\top = H^{-1},\qquad H = \frac{n}{\sigma^2} J^\top J
    - \nabla^2_u\Big(\sum_j \log p_j + \sum_j \log\Big|\frac{\partial f_j}{\partial u_j}\Big|\Big)\Big|_{u_0},$$

$H$ being the Gauss–Newton curvature of $-\log p(u \mid y)$ at the start $u_0$ ($J = \partial r/\partial u$, the
residuals' Jacobian, one forward-mode pass per parameter; a sampled noise level adds the curvature of its own
terms, $n \log\sigma + \mathrm{RSS}/(2\sigma^2)$, on the diagonal). At a least-squares fit $u_0$ is the mode and
$\mathcal N(u_0, H^{-1})$ the Laplace approximation of the posterior, so in $z$ it is close to a standard normal:
the adaptation starts from a unit step and short trees. The map is affine, so its Jacobian is a constant and
the density of $z$ is that of $u$. Eigenvalues of $H$ below `RELATIVE_FLOOR` × the largest (a direction the data
and priors do not constrain, or a non-convex prior term) are raised to that floor; a curvature that is not finite
(a failed solve at the start) leaves $L$ the identity.
"""

from __future__ import annotations

import math

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp

from ._density import NOISE, LogDensity

#: Smallest eigenvalue of the curvature kept, relative to the largest (per the dtype's precision, see `whiten`).
RELATIVE_FLOOR = 1e-12

#: Up to this many sampled scalars the gradient is taken in forward mode: one solve carrying a tangent per
#: parameter. A reverse-mode gradient of a fixed-step solve re-solves from checkpoints and walks back through every
#: step: on the squid axon (100 ms at 0.025 ms, three conductances) it costs 6× the log density, forward mode
#: 1.6× (0.14 s against 0.036 s on two cores; 4 vmapped chains 0.18 s against 0.044 s), with the same gradient.
FORWARD_MODE_MAX = 8


class Whitened(eqx.Module):
    """`log p(z | y)`, with `u = origin + scale @ z` the flattened unconstrained parameters of `density`.

    Attributes:
        density: the log density in the unconstrained coordinates `{name: u}`.
        origin: `u_0`, the start, flattened in the order of `names`.
        scale: `L`, with `L Lᵀ` the inverse curvature at the start.
        names, shapes: each parameter's name and shape, to unflatten `u` (static: the compiled sampler is found
            again for another recording of the same shapes).
    """

    density: LogDensity
    origin: jax.Array
    scale: jax.Array
    names: tuple[str, ...] = eqx.field(static=True)
    shapes: tuple[tuple[int, ...], ...] = eqx.field(static=True)

    def __call__(self, z: jax.Array) -> jax.Array:
        if z.size <= FORWARD_MODE_MAX:
            return _forward_mode_gradient(z, self)
        return self.density(self.theta(z))

    def theta(self, z: jax.Array) -> dict[str, jax.Array]:
        """`{name: u}` at the whitened point `z` (shape `(p,)`)."""
        return unflatten(self.origin + self.scale @ z, self.names, self.shapes)


def whiten(density: LogDensity, theta: dict[str, jax.Array]) -> Whitened:
    """The density in coordinates whitened by its Gauss–Newton curvature at `theta` (see the module)."""
    names = tuple(theta)
    shapes = tuple(tuple(jnp.shape(theta[name])) for name in names)
    origin = flatten(theta, names)
    as_theta = lambda u: unflatten(u, names, shapes)  # noqa: E731

    def residuals(u):  # the value as its own aux: one solve gives it and its tangents
        r = density.problem.residuals(density.fitted(as_theta(u)), density.member, adjoint=diffrax.ForwardMode())
        return r, r

    jacobian, r0 = jax.jacfwd(residuals, has_aux=True)(origin)
    n = density.count(origin.dtype)
    curvature = n / density.sigma**2 * jacobian.T @ jacobian
    curvature = curvature - jax.hessian(lambda u: density.log_prior_and_jacobian(as_theta(u)))(origin)
    if density.noise is not None:
        # the sampled sigma = f(u): the curvature of n log f(u) + RSS / (2 f(u)^2) at the start, the parameters held
        # (their cross terms vanish at a least-squares fit, where the residuals are orthogonal to their Jacobian)
        rss, noise = n * jnp.sum(r0**2), density.noise
        assert names[-1] == NOISE, names  # the posterior puts the noise last: its flat index is the last one
        i = origin.size - 1
        nll = lambda u: n * jnp.log(noise.forward(u)) + rss / (2 * noise.forward(u) ** 2)  # noqa: E731
        curvature = curvature.at[i, i].add(jax.hessian(nll)(origin[i]))
    curvature = (curvature + curvature.T) / 2
    eigenvalues, vectors = jnp.linalg.eigh(curvature)
    largest = jnp.max(eigenvalues)
    floor = jnp.maximum(RELATIVE_FLOOR, jnp.finfo(origin.dtype).eps) * largest
    scale = vectors / jnp.sqrt(jnp.maximum(eigenvalues, floor))[None, :]
    usable = jnp.all(jnp.isfinite(curvature)) & (largest > 0)
    scale = jnp.where(usable, scale, jnp.eye(origin.size, dtype=origin.dtype))
    return Whitened(density=density, origin=origin, scale=scale, names=names, shapes=shapes)


def flatten(theta: dict[str, jax.Array], names: tuple[str, ...]) -> jax.Array:
    return jnp.concatenate([jnp.ravel(theta[name]) for name in names])


def unflatten(u: jax.Array, names: tuple[str, ...], shapes: tuple[tuple[int, ...], ...]) -> dict[str, jax.Array]:
    """`{name: u}` from the flat vector `u` of shape `(p,)` (the inverse of `flatten`).

    Not `jax.flatten_util.ravel_pytree`: its inverse is a fresh closure per call, which as a static field of
    `Whitened` would key a new compilation of the sampler on every call.
    """
    out, at = {}, 0
    for name, shape in zip(names, shapes, strict=True):
        size = math.prod(shape)
        out[name] = u[at : at + size].reshape(shape)
        at += size
    return out


@eqx.filter_custom_vjp
def _forward_mode_gradient(z: jax.Array, whitened: Whitened) -> jax.Array:
    """`whitened(z)`, whose reverse-mode derivative (what NUTS asks for) is computed in forward mode."""
    return whitened.density(whitened.theta(z))


@_forward_mode_gradient.def_fwd
def _forward_mode_gradient_fwd(perturbed, z, whitened):
    del perturbed

    def value_twice(x):  # the value as its own aux: one solve gives it and its tangents
        value = whitened.density(whitened.theta(x), adjoint=diffrax.ForwardMode())
        return value, value

    gradient, value = jax.jacfwd(value_twice, has_aux=True)(z)
    return value, gradient


@_forward_mode_gradient.def_bwd
def _forward_mode_gradient_bwd(gradient, cotangent, perturbed, z, whitened):
    del perturbed, z, whitened
    return cotangent * gradient
