"""Chains of the No-U-Turn sampler with Stan's window adaptation (blackjax), vmapped over chains.

Each chain adapts its own step size and diagonal mass matrix during `warmup` (Stan's three-phase windowed
adaptation: Hoffman & Gelman, "The No-U-Turn Sampler", JMLR 15, 2014; Stan Reference Manual, "HMC algorithm
parameters"), then draws `draws` states with the adapted kernel. Warm-up states are discarded.
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


@eqx.filter_jit
def run_chains(density, keys: jax.Array, starts: Any, warmup: int, draws: int):
    """Every chain's draws, divergences, leapfrog steps and adapted step size.

    The draws are the positions' pytree with leading `(chain, draw)` axes, the divergences and leapfrog steps
    `(chain, draw)` arrays. `density` is the log density of the sampler's coordinates; `keys` one key per chain;
    `starts` the starts (any pytree) with a leading chain axis.
    """
    blackjax = optional_module("blackjax", "posterior", "posterior()")
    # blackjax's own arithmetic mixes Python numbers with bools and int32 counters, which strict dtype promotion
    # refuses: the sampler runs at standard promotion, and the model's log density at the caller's setting
    promotion = jax.config.jax_numpy_dtype_promotion  # type: ignore[attr-defined]  # a flag read as JAX documents

    def caller_density(position):
        with jax.numpy_dtype_promotion(promotion):
            return density(position)

    def chain(key, start):
        adapt_key, draw_key = jax.random.split(key)
        if warmup > 0:
            adaptation = blackjax.window_adaptation(blackjax.nuts, caller_density)
            (state, parameters), _ = adaptation.run(adapt_key, start, num_steps=warmup)
        else:  # no adaptation: the unit mass matrix and step of whitened coordinates
            dtype = jnp.result_type(*jax.tree.leaves(start))
            size = sum(jnp.size(leaf) for leaf in jax.tree.leaves(start))
            parameters = {"step_size": jnp.asarray(UNADAPTED_STEP, dtype), "inverse_mass_matrix": jnp.ones(size, dtype)}
            state = blackjax.nuts(caller_density, **parameters).init(start)
        kernel = blackjax.nuts(caller_density, **parameters).step

        def one(state, step_key):
            state, info = kernel(step_key, state)
            return state, (state.position, info.is_divergent, info.num_integration_steps)

        _, (positions, divergent, steps) = jax.lax.scan(one, state, jax.random.split(draw_key, draws))
        return positions, divergent, steps, parameters["step_size"]

    with jax.numpy_dtype_promotion("standard"):
        return jax.vmap(chain)(keys, starts)
