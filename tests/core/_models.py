"""Small exact test systems used by the core tests."""

import jax.numpy as jnp

import difflab


class Relaxation(difflab.AbstractModel):
    """tau dy/dt = -y + u(t): first-order relaxation towards the input u (exact solutions known)."""

    tau: jnp.ndarray
    y_init: jnp.ndarray
    states = (difflab.StateInfo("y", "mV", "relaxing variable"),)
    time_units = "ms"

    def __init__(self, tau=2.0, y_init=1.0):
        self.tau = jnp.asarray(tau, dtype=jnp.result_type(tau, float))
        self.y_init = jnp.asarray(y_init, dtype=jnp.result_type(y_init, float))

    def vector_field(self, t, y, args):
        u = 0.0 if args is None else args(t)
        return {"y": (u - y["y"]) / self.tau}

    def initial_state(self):
        return {"y": self.y_init}


def step_response(t, tau, y0, amplitude, start, stop):
    """Exact solution of tau y' = -y + A 1[start <= t < stop] with y(0) = y0."""
    free = y0 * jnp.exp(-t / tau)
    rise = amplitude * (1 - jnp.exp(-(jnp.clip(t, start, stop) - start) / tau))
    decay = jnp.exp(-(jnp.maximum(t, stop) - stop) / tau)
    return free + rise * decay
