"""Optimiser choice for `calibrate`: names, optax transformations, optimistix least-squares solvers."""

from __future__ import annotations

import functools

import optax
import optimistix as optx

from ._losses import AbstractLoss
from ._objective import LeastSquaresAdapter, OptaxAdapter

#: Step size of `optimizer="adam"` in the unconstrained space (≈ 5 % relative change per step
#: for `Log`/`Positive` parameters of order one and above).
ADAM_LEARNING_RATE = 0.05
#: Termination tolerances of the least-squares solvers (relative and absolute, Cauchy criterion).
LSQ_RTOL = LSQ_ATOL = 1e-6

_NAMES = ("lm", "levenberg_marquardt", "gauss_newton", "adam")


@functools.cache
def _adam(learning_rate: float) -> optax.GradientTransformation:
    # Cached so that repeated fits get the *same* object and reuse the compiled step.
    return optax.adam(learning_rate)


def as_adapter(optimizer, loss: AbstractLoss):
    """An optimiser adapter for `optimizer` (see `calibrate`); checks it suits the loss."""
    if optimizer is None:
        optimizer = "lm" if loss.least_squares else "adam"
    if isinstance(optimizer, str):
        if optimizer not in _NAMES:
            raise ValueError(f"unknown optimizer {optimizer!r}; use one of {_NAMES}, an optax or optimistix object")
        if optimizer == "adam":
            return OptaxAdapter(_adam(ADAM_LEARNING_RATE), name=f"adam(learning_rate={ADAM_LEARNING_RATE})")
        cls = optx.GaussNewton if optimizer == "gauss_newton" else optx.LevenbergMarquardt
        optimizer = cls(rtol=LSQ_RTOL, atol=LSQ_ATOL)
    if isinstance(optimizer, optx.AbstractLeastSquaresSolver):
        if not loss.least_squares:
            raise ValueError(
                f"{type(optimizer).__name__} needs a least-squares loss (e.g. 'mse'); "
                f"{type(loss).__name__} is a general scalar loss: use an optax optimizer such as 'adam'"
            )
        return LeastSquaresAdapter(optimizer)
    if isinstance(optimizer, optax.GradientTransformation):
        return OptaxAdapter(optimizer, name="optax")
    raise TypeError(
        f"optimizer must be a name {_NAMES}, an optax GradientTransformation or an optimistix "
        f"least-squares solver; got {type(optimizer).__name__}"
    )
