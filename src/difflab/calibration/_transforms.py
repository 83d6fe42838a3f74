"""Bijective parameter transforms: optimise in an unconstrained space, simulate in physical units.

A transform maps an unconstrained real number `u` to a physical value `x = forward(u)`
inside the parameter's domain, and back with `inverse`. Calibration updates `u`, so a
bounded parameter can never leave its bounds and a conductance can never turn negative.
"""

from __future__ import annotations

import abc

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, PRNGKeyArray

from ..core.internal import check_finite

#: Smallest value `clip` gives a positive parameter (an estimate at or below 0 becomes this).
POSITIVE_FLOOR = 1e-6


class AbstractTransform(eqx.Module):
    """A bijection `forward: R -> domain` with its `inverse`."""

    @abc.abstractmethod
    def forward(self, u: ArrayLike) -> Array:
        """Physical value from the unconstrained one."""

    @abc.abstractmethod
    def inverse(self, x: ArrayLike) -> Array:
        """Unconstrained value from the physical one."""

    @abc.abstractmethod
    def sample(self, key: PRNGKeyArray, x0: Array, shape: tuple[int, ...]) -> Array:
        """Random initial guesses (for multi-start) of `shape + x0.shape`, inside the domain."""

    @abc.abstractmethod
    def clip(self, x: ArrayLike) -> Array:
        """`x` moved just inside the domain (an estimate that fell outside it becomes a valid start)."""

    def check(self, x: ArrayLike, name: str) -> None:
        """Raise `ValueError` if concrete `x` lies outside the domain (the whole real line here: NaN/inf)."""
        _check_inside(x, name, -np.inf, np.inf, open_interval=False)

    def inside(self, x: ArrayLike) -> Array:
        """A start `x` as the fit takes it: unchanged here (see `Bounded.inside`)."""
        return jnp.asarray(x)


class Identity(AbstractTransform):
    """`x = u` (unbounded). Multi-start guesses: `x0 · U(0.5, 1.5)` (or `U(-1, 1)` at 0)."""

    def forward(self, u):
        return jnp.asarray(u)

    def inverse(self, x):
        return jnp.asarray(x)

    def clip(self, x):
        return jnp.asarray(x)

    def sample(self, key, x0, shape):
        scale = jnp.where(x0 == 0, 1.0, jnp.abs(x0))
        return x0 + scale * jax.random.uniform(key, shape + x0.shape, x0.dtype, -0.5, 0.5)


class _AbstractPositive(AbstractTransform):
    """A transform onto `x > 0`.

    `clip` raises an estimate to at least `POSITIVE_FLOOR`; multi-start guesses are log-uniform in `[x0 / 2, 2 x0]`.
    """

    def clip(self, x):
        return jnp.maximum(jnp.asarray(x), POSITIVE_FLOOR)

    def sample(self, key, x0, shape):
        return x0 * jnp.exp(jax.random.uniform(key, shape + x0.shape, x0.dtype, -np.log(2), np.log(2)))

    def check(self, x, name):
        _check_inside(x, name, 0.0, np.inf)


class Positive(_AbstractPositive):
    """`x = softplus(u) = log(1 + e^u) > 0`; inverse `u = x + log(1 - e^{-x})`.

    Softplus is linear for large `u`, so steps in `u` stay steps of similar size in `x`
    (unlike [`Log`][difflab.Log], which is scale-free). Multi-start guesses are log-uniform
    in `[x0 / 2, 2 x0]`.
    """

    def forward(self, u):
        return jax.nn.softplus(u)

    def inverse(self, x):
        x = jnp.asarray(x)
        return x + jnp.log(-jnp.expm1(-x))


class Log(_AbstractPositive):
    """`x = exp(u) > 0`; inverse `u = log(x)`: a scale-free parametrisation.

    Suited to parameters known only to an order of magnitude (rates, conductances).
    Multi-start guesses are log-uniform in `[x0 / 2, 2 x0]`.
    """

    def forward(self, u):
        return jnp.exp(u)

    def inverse(self, x):
        return jnp.log(jnp.asarray(x))


#: How far inside its bounds, as a fraction of the width, a `Bounded` parameter's guesses, clipped estimates and
#: starts from a bound are kept (on a bound the inverse is infinite).
BOUNDED_EDGE = 1e-3


class Bounded(AbstractTransform):
    """`x = lo + (hi - lo) σ(u)` with the logistic `σ`; inverse `u = logit((x - lo) / (hi - lo))`.

    Args:
        lo: lower bound (the parameter's units), finite.
        hi: upper bound, finite and `> lo`.

    Multi-start guesses are uniform in `[lo, hi]` (kept 0.1 % away from the ends).
    """

    lo: Array
    hi: Array

    def __init__(self, lo: ArrayLike, hi: ArrayLike):
        lo_arr, hi_arr = jnp.asarray(lo, dtype=float), jnp.asarray(hi, dtype=float)
        check_finite(lo_arr, "Bounded lo")
        check_finite(hi_arr, "Bounded hi")
        if np.any(np.asarray(lo_arr) >= np.asarray(hi_arr)):
            raise ValueError(f"Bounded needs lo < hi; got lo={lo}, hi={hi}")
        self.lo, self.hi = lo_arr, hi_arr

    def forward(self, u):
        return self.lo + (self.hi - self.lo) * jax.nn.sigmoid(u)

    def inverse(self, x):
        p = (jnp.asarray(x) - self.lo) / (self.hi - self.lo)
        return jnp.log(p) - jnp.log1p(-p)

    def sample(self, key, x0, shape):
        p = jax.random.uniform(key, shape + x0.shape, x0.dtype, BOUNDED_EDGE, 1 - BOUNDED_EDGE)
        return (self.lo + (self.hi - self.lo) * p).astype(x0.dtype)

    def clip(self, x):
        margin = BOUNDED_EDGE * (self.hi - self.lo)
        return jnp.clip(jnp.asarray(x), self.lo + margin, self.hi - margin)

    def check(self, x, name):
        _check_inside(x, name, float(self.lo), float(self.hi), open_interval=True)

    def inside(self, x):
        """`x` with the values exactly on a bound moved 0.1 % of the width inside, the rest unchanged.

        A fitted value saturates onto a bound where the logistic rounds to 0 or 1 (|u| above about 37 in float64),
        and the inverse is infinite there: a fit's own estimate, chained into the next fit or a posterior as its
        start, begins just inside the bound instead of being refused.
        """
        x = jnp.asarray(x)
        margin = BOUNDED_EDGE * (self.hi - self.lo)
        return jnp.where(x == self.lo, self.lo + margin, jnp.where(x == self.hi, self.hi - margin, x))


def _check_inside(x, name: str, lo: float, hi: float, open_interval: bool = True) -> None:
    arr = np.asarray(x)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"parameter {name!r} = {arr.tolist()} must be finite (a start or initial value is NaN/inf)")
    bad = (arr <= lo) | (arr >= hi) if open_interval else (arr < lo) | (arr > hi)
    if bad.any():
        raise ValueError(f"parameter {name!r} = {arr.tolist()} lies outside its transform's domain ({lo}, {hi})")


def as_transform(spec: AbstractTransform | tuple | None, name: str) -> AbstractTransform:
    """A transform from a user spec: a transform, `(lo, hi)` for `Bounded`, or `None` (Identity)."""
    if spec is None:
        return Identity()
    if isinstance(spec, AbstractTransform):
        return spec
    if isinstance(spec, tuple | list) and len(spec) == 2:
        return Bounded(*spec)
    raise TypeError(
        f"params[{name!r}] must be a transform (Positive(), Log(), Bounded(lo, hi), Identity()) "
        f"or a (lo, hi) pair; got {spec!r}"
    )
