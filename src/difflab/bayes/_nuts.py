"""Chains of the No-U-Turn sampler with Stan's window adaptation (blackjax), vmapped over chains.

Each chain adapts its own step size and diagonal mass matrix during the warm-up (Stan's three-phase windowed
adaptation: Hoffman & Gelman, "The No-U-Turn Sampler", JMLR 15, 2014; Stan Reference Manual, "HMC algorithm
parameters"), then draws with the adapted kernel; warm-up states are discarded. The draws come in blocks
(`draw_block`), so that a long run can report its progress and write checkpoints between them. Draw `i` of a chain
uses the key `fold_in(chain's draw key, i)`: the draws do not depend on how they were cut into blocks, on where a
run was interrupted and resumed, or on the number of draws asked for (a longer run extends a shorter one).
"""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp

from ..core.internal import optional_module

#: The leapfrog step without warm-up (`warmup=0`), in the sampler's whitened coordinates, where a posterior close to
#: a standard normal takes steps of about 1 / d^(1/4) at NUTS's 0.8 acceptance (Beskos et al., Bernoulli 19, 2013).
UNADAPTED_STEP = 0.5


def _at_callers_promotion(density):
    """`density` run at the caller's dtype promotion.

    blackjax's own arithmetic mixes Python numbers with bools and int32 counters, which strict dtype promotion
    refuses: the sampler runs at standard promotion, and the model's log density at the caller's setting.
    """
    promotion = jax.config.jax_numpy_dtype_promotion  # a flag read as JAX documents

    def caller_density(position):
        with jax.numpy_dtype_promotion(promotion):
            return density(position)

    return caller_density


@eqx.filter_jit
def warm_up(density, keys: jax.Array, starts: jax.Array, warmup: int):
    """Every chain's sampler state after `warmup` adaptation steps, and its adapted parameters.

    `density` is the log density of the sampler's coordinates; `keys` one key per chain; `starts` the starts
    `(chain, d)`. Returns `(states, parameters)`: blackjax's NUTS states and `{"step_size", "inverse_mass_matrix"}`,
    each with a leading chain axis.
    """
    blackjax = optional_module("blackjax", "posterior", "posterior()")
    caller_density = _at_callers_promotion(density)

    def chain(key, start):
        if warmup > 0:
            adaptation = blackjax.window_adaptation(blackjax.nuts, caller_density)
            (state, parameters), _ = adaptation.run(key, start, num_steps=warmup)
            parameters = {k: parameters[k] for k in ("step_size", "inverse_mass_matrix")}
        else:  # no adaptation: the unit mass matrix and step of whitened coordinates
            parameters = {
                "step_size": jnp.asarray(UNADAPTED_STEP, start.dtype),
                "inverse_mass_matrix": jnp.ones(start.size, start.dtype),
            }
            state = blackjax.nuts(caller_density, **parameters).init(start)
        return state, parameters

    with jax.numpy_dtype_promotion("standard"):
        return jax.vmap(chain)(keys, starts)


@eqx.filter_jit
def draw_block(density, states: Any, parameters: dict, keys: jax.Array, first: jax.Array, count: jax.Array,
               length: int):  # fmt: skip
    """Draws `first, …, first + count − 1` of every chain (`count <= length`), from `states`.

    `length` is the block's compiled length (static): a shorter last block runs `length` scan steps of which the
    last `length − count` leave the state as it is, so that one compilation serves every block. Returns the new
    states and, per chain and draw slot, the positions, divergences and leapfrog steps (`(chain, length, ...)`;
    the slots from `count` on are not draws).
    """
    blackjax = optional_module("blackjax", "posterior", "posterior()")
    caller_density = _at_callers_promotion(density)

    def chain(key, state, params):
        kernel = blackjax.nuts(caller_density, **params).step

        def one(state, i):
            def draw(state):
                new, info = kernel(jax.random.fold_in(key, first + i), state)
                return new, (
                    new.position,
                    jnp.asarray(info.is_divergent, bool),
                    jnp.asarray(info.num_integration_steps, jnp.int32),
                )

            def keep(state):
                return state, (state.position, jnp.asarray(False), jnp.asarray(0, jnp.int32))

            # `i < count` is the same for every chain: under vmap it stays a branch, not a select of both
            return jax.lax.cond(i < count, draw, keep, state)

        return jax.lax.scan(one, state, jnp.arange(length))

    with jax.numpy_dtype_promotion("standard"):
        return jax.vmap(chain)(keys, states, parameters)
