"""`vmap_members`: a function over a leading member axis, batched only when there is more than one member."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp


def vmap_members(fn: Callable[..., Any], *trees: Any) -> Any:
    """`jax.vmap(fn)(*trees)`, but `fn` on the only member, given a leading axis back, when there is one member.

    A fit from one start of one recording is the common case. Batching it costs tracing and nothing else: every
    `while_loop` in a solve is traced again under `vmap` until its batched carry settles (a fixed point over the
    loop's body, nested loops included), and conditionals with a batched predicate become selects that evaluate
    both branches. For the ball-and-stick fit of docs/cells.md that batching was 8.6 s of its 24 s first call.
    The results are the same arrays with the same shapes.
    """
    sizes = {jnp.shape(x)[0] for x in jax.tree.leaves(trees)}
    if sizes != {1}:
        return jax.vmap(fn)(*trees)
    out = fn(*jax.tree.map(lambda x: x[0], trees))
    return jax.tree.map(lambda x: jnp.expand_dims(x, 0), out)
