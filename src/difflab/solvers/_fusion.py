"""Writing an intermediate to memory once, so that XLA does not recompute it in every kernel that reads it."""

from __future__ import annotations

import equinox.internal as eqxi
import jax
import jax.numpy as jnp
from jax import lax


def materialise(value, value_at_zero_step, h):
    """`value`, written to memory once before its consumers read it.

    Left to itself XLA fuses a cheap element-wise producer into every consumer kernel, so each of them
    reads the producer's inputs again and recomputes it. A conditional's operand must be a buffer, which
    stops that fusion. The branch taken depends on the step `h` only for show: `value_at_zero_step`
    must equal `value` when `h = 0`, so the result is the same either way (and so are its derivatives).

    Measured where used: the stage inputs of [`UnrolledTsit5`][difflab.UnrolledTsit5] (a Lindblad step
    with 9 stored diagonals ran 1.6x slower without it) and the predicted mid-step potential of
    [`RushLarsenCN`][difflab.neuron.RushLarsenCN] (float32 ensemble step 11-20 % cheaper).
    """
    return lax.cond(eqxi.unvmap_any(h != 0), lambda: value, lambda: value_at_zero_step)


def materialise_at(value, t):
    """`value`, written to memory once before its consumers read it, for a value with no zero-step counterpart.

    As `materialise`, with the conditional's predicate `t == t` on a time `t`: true for every time, and not known
    to XLA in advance. The other branch (NaN, taken only at a NaN time) differs from `value`, so XLA keeps the
    conditional instead of merging its branches. Measured where used: the ket at a save time when several
    expectation values read it (`difflab.quantum`'s `solve_model`).
    """
    return lax.cond(
        eqxi.unvmap_any(t == t), lambda: value, lambda: jax.tree.map(lambda v: jnp.full_like(v, jnp.nan), value)
    )


@jax.custom_jvp
def materialise_tangent(value, value_at_zero_step, h):
    """`value` itself; under differentiation its tangent is written to memory once (see `materialise`).

    For an intermediate that is cheap to fuse in a plain solve but whose tangents XLA would otherwise recompute
    in every consumer: forward-mode sensitivities carry one tangent per parameter, so each duplicated kernel
    costs that many times more. The plain solve is unchanged. Measured where used: the Simpson-averaged
    conductances of the cable step (one cell, six forward-mode tangents: 0.36 -> 0.24 s for 4000 steps; the
    same barrier on the values themselves made a 100-member ensemble 10 % slower).
    """
    return value


@materialise_tangent.defjvp
def _materialise_tangent_jvp(primals, tangents):
    value, _, h = primals
    t_value, t_zero_step, _ = tangents
    return value, materialise(t_value, t_zero_step, h)
