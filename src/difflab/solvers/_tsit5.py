r"""`UnrolledTsit5`: Tsitouras' 5(4) Runge–Kutta pair with its stages written out, as a diffrax solver.

The method is exactly `diffrax.Tsit5` (same tableau, same embedded error estimate, same order-4 dense output,
same step sequence under the same controller). Two things differ in how a step is computed:

- **Stage sums are element-wise.** Stage $i$ evaluates $f$ at $y_0 + h\sum_{j<i} a_{ij} f_j$, written as a chain
  of adds that XLA fuses into one pass over the state. `diffrax.Tsit5` stores the slopes in one stacked
  (7, ...) buffer and contracts a full row of the tableau with it at every stage, so each stage reads all seven
  slopes; under forward-mode differentiation that buffer grows with every tangent.
- **Dense output reads the slopes where they are.** The interpolant is
  $y(t_0 + \theta h) = y_0 + h \sum_i b_i(\theta) f_i$ with diffrax's own Tsit5 weights $b_i(\theta)$. The slopes
  are passed to the interpolation as they are, with no stacked copy, and the weighted sum is element-wise, so
  when only a function of the state is saved (an expectation value, one voltage) XLA computes just the entries
  that function reads.

Each stage input is written to memory once (see `difflab.solvers._fusion.materialise`) before the right-hand side
reads it; otherwise XLA would recompute the stage sum inside every diagonal of a diagonal-sparse operator.

Measured on a Lindblad problem (Jaynes–Cummings, ρ of 60 × 60, 248 steps, 500 saved expectation values,
2-core x86 CPU, medians of 7 alternating calls): 0.037 s against 0.067 s for `diffrax.Tsit5`, and a forward-mode
gradient with two tangents in 0.138 s against 0.333 s; a 10-spin Ising chain (21 diagonals) runs at the same speed
as `diffrax.Tsit5` (benchmarks/README.md). The solver is meant for ordinary differential equations
(`diffrax.ODETerm`); use `diffrax.Tsit5` for anything else.

Reference: Ch. Tsitouras, "Runge–Kutta pairs of order 5(4) satisfying only the first column simplifying
assumption", Computers & Mathematics with Applications 62 (2011) 770–775.
"""

from __future__ import annotations

import functools
from typing import ClassVar

import diffrax
import equinox.internal as eqxi
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jaxtyping import Array, PyTree

from ._fusion import materialise

__all__ = ["UnrolledTsit5"]

_TABLEAU = diffrax.Tsit5.tableau
_A = tuple(tuple(float(a) for a in row) for row in _TABLEAU.a_lower)  # rows 2..7 of the Butcher matrix
_C = (0.0, *(float(c) for c in _TABLEAU.c))
_B_ERROR = tuple(float(b) for b in _TABLEAU.b_error)
_STAGES = len(_C)


def _weighted_sum(y0, h, coefficients, slopes):
    r"""$y_0 + h \sum_j c_j f_j$ leaf by leaf, zero coefficients skipped (y0 None: the sum alone)."""

    def leaf(y, *fs):
        total = None
        for c, f in zip(coefficients, fs):
            if not (isinstance(c, float) and c == 0.0):  # tableau zeros are Python floats; weights are traced
                total = c * f if total is None else total + c * f
        return h * total if y is None else y + h * total

    if y0 is None:
        return jax.tree.map(lambda *fs: leaf(None, *fs), *slopes)
    return jax.tree.map(leaf, y0, *slopes)


@functools.cache
def _dense_weight_coefficients(dtype: str) -> np.ndarray:
    r"""Coefficients $C_{ip}$ of diffrax's Tsit5 weights $b_i(\theta) = \sum_{p=1}^{4} C_{ip}\,\theta^p$, shape (7, 4).

    Read off diffrax's own interpolation (unit slopes, in `dtype`) at four points and solved for the quartics'
    coefficients (each $b_i$ is a quartic with $b_i(0) = 0$), so the weights stay diffrax's to rounding (2.7e-15
    in float64).
    """
    thetas = np.array([0.25, 0.5, 0.75, 1.0])
    with jax.ensure_compile_time_eval():
        unit = diffrax.Tsit5.interpolation_cls(
            t0=0.0, t1=1.0, y0=jnp.zeros(_STAGES, dtype), y1=None, k=jnp.eye(_STAGES, dtype=dtype)
        )
        values = np.stack([np.asarray(unit.evaluate(jnp.asarray(theta, dtype)), np.float64) for theta in thetas])
    powers = thetas[:, None] ** np.arange(1, 5)[None, :]  # (4 points, 4 powers)
    return np.linalg.solve(powers, values).T


def _dense_weights(theta: Array) -> Array:
    r"""Diffrax's Tsit5 interpolation weights $b_i(\theta)$, $i = 1..7$, by Horner's rule.

    Element-wise on seven numbers. Diffrax's interpolation forms them with a matrix product, which would be the
    only dot in a solve's loop, and XLA runs a loop that holds a dot as many kernels, never as one
    (`difflab.core._xla_cpu`).
    """
    coefficients = jnp.asarray(_dense_weight_coefficients(jnp.dtype(theta.dtype).name), theta.dtype)
    weights = coefficients[:, 3]
    for p in (2, 1, 0):
        weights = weights * theta + coefficients[:, p]
    return weights * theta


class _SlopeInterpolation(diffrax.AbstractLocalInterpolation):
    r"""Tsit5's dense output $y_0 + h\sum_i b_i(\theta) f_i$ on $[t_0, t_1]$, $\theta = (t - t_0)/h$."""

    t0: Array  # type: ignore[misc]  # diffrax declares the interval ends as abstract class variables
    t1: Array  # type: ignore[misc]
    y0: PyTree[Array]
    slopes: tuple[PyTree[Array], ...]

    def evaluate(self, t0, t1=None, left: bool = True) -> PyTree[Array]:
        del left  # the interpolant is continuous
        if t1 is not None:
            return jax.tree.map(jnp.subtract, self.evaluate(t1), self.evaluate(t0))
        h = self.t1 - self.t0
        zero = h == 0  # a zero-length step (as diffrax's own interpolation, evaluate at its start)
        theta = jnp.where(zero, 0.0, (t0 - self.t0) / jnp.where(zero, 1.0, h))
        weights = _dense_weights(jnp.asarray(theta))
        return _weighted_sum(self.y0, h, tuple(weights[i] for i in range(_STAGES)), self.slopes)


class UnrolledTsit5(diffrax.AbstractAdaptiveSolver):
    r"""Tsitouras' 5(4) pair (`diffrax.Tsit5`'s method) with element-wise stage sums; for `diffrax.ODETerm`.

    Order 5 with an embedded order-4 error estimate, 7 stages of which the last is the first of the next step
    (first same as last), dense output of order 4. Same tableau, error estimate and interpolation weights as
    `diffrax.Tsit5`, so under the same step-size controller it takes the same steps and returns the same values
    to rounding. See the module docstring for why it is faster.

    Example:
        >>> term = diffrax.ODETerm(lambda t, y, args: -y)
        >>> sol = diffrax.diffeqsolve(term, UnrolledTsit5(), 0.0, 1.0, 0.1, jnp.array(1.0),
        ...                           stepsize_controller=diffrax.PIDController(rtol=1e-8, atol=1e-10))
    """

    term_structure: ClassVar = diffrax.ODETerm
    interpolation_cls: ClassVar = _SlopeInterpolation

    def order(self, terms) -> int:
        return 5

    def error_order(self, terms) -> int:
        return 5  # as diffrax.Tsit5: the order-4 embedded estimate's local error is O(h^5)

    def init(self, terms, t0, t1, y0, args) -> PyTree[Array]:
        return terms.vf(t0, y0, args)

    def step(self, terms, t0, t1, y0, args, solver_state, made_jump):
        h = t1 - t0
        # After a discontinuity the saved slope belongs to the old right-hand side. The test is on the whole
        # batch (`unvmap_any`) so that under vmap members that did not jump do not pay an extra evaluation.
        f0 = lax.cond(
            eqxi.unvmap_any(made_jump),
            lambda: jax.tree.map(lambda new, old: jnp.where(made_jump, new, old), terms.vf(t0, y0, args), solver_state),
            lambda: solver_state,
        )
        slopes = [f0]
        for c, row in zip(_C[1:], _A):
            y_stage = _weighted_sum(y0, h, row, slopes)
            y_stage = materialise(y_stage, y0, h)  # for h = 0 the stage input is y0
            slopes.append(terms.vf(t0 + c * h, y_stage, args))
        # The last row of A is the 5th-order solution, so the last stage's input is y1 and its slope is f(t1, y1).
        y1 = y_stage
        y_error = _weighted_sum(None, h, _B_ERROR, slopes)
        dense_info = dict(y0=y0, slopes=tuple(slopes))
        return y1, y_error, dense_info, slopes[-1], diffrax.RESULTS.successful

    def func(self, terms, t0, y0, args) -> PyTree[Array]:
        return terms.vf(t0, y0, args)
