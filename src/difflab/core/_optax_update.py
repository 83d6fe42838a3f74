"""One optax update, at the dtype promotion optax is written for."""

from typing import Any

import jax


def optax_update(optimizer: Any, grads: Any, state: Any, params: Any = None, **extra: Any) -> tuple[Any, Any]:
    """`optimizer.update(grads, state, params, **extra)` under JAX's standard dtype promotion.

    optax's transformations mix Python floats with their int32 step count (Adam's bias correction is
    ``1 - b**count``), which ``jax_numpy_dtype_promotion="strict"`` refuses. Only optax's own arithmetic runs at
    standard promotion, whatever the caller's setting: the updates keep the parameters' dtype, and difflab's code
    around the call stays under the caller's rule. `extra` carries the line-search keywords (`value`, `grad`,
    `value_fn`) that `optax.lbfgs` needs and other optimizers ignore.
    """
    with jax.numpy_dtype_promotion("standard"):
        return optimizer.update(grads, state, params, **extra)
