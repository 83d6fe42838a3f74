"""Actuator dynamics: each actuator a first-order servo with a speed limit (smooth saturation).

    de_i/dt = v_max · tanh((u_i(t) - e_i) / (τ v_max)),

with e_i the extension (m), u_i(t) the commanded extension (the protocol), τ the time constant (s) and v_max the
maximum speed (m/s). For small errors this is the first-order lag de/dt = (u - e)/τ; for large errors the speed
saturates smoothly at ±v_max.

Assumed values (no published FAST actuator data was available to us): τ = 2 s and v_max = 1 mm/s. The speed is
of the order the tracking needs: the working paraboloid slides across the dish at R ω ≈ 22 mm/s, and its extension
profile has slopes up to ≈ 0.02, so nodes must move at up to ≈ 0.4 mm/s, faster where they enter the aperture.
"""

from __future__ import annotations

from typing import ClassVar

import diffrax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Float

from ..core.internal import AbstractModel, StateInfo, raise_if_unphysical


class ActuatorServo(AbstractModel):
    """n actuators as rate-limited first-order servos (final class).

    Attributes:
        time_constant: τ, s (scalar or one per actuator).
        max_speed: v_max, m/s (scalar or one per actuator).
        e0: initial extensions, m.
    """

    time_constant: Float[Array, "*n"]
    max_speed: Float[Array, "*n"]
    e0: Float[Array, " n"]

    states: ClassVar[tuple[StateInfo, ...]] = (StateInfo("extension", "m", "actuator extension, positive inward"),)
    time_units: ClassVar[str] = "s"
    parameter_units: ClassVar[dict[str, str]] = {"time_constant": "s", "max_speed": "m/s", "e0": "m"}

    def __init__(self, e0: ArrayLike, time_constant: ArrayLike = 2.0, max_speed: ArrayLike = 1e-3):
        self.e0 = jnp.asarray(e0, dtype=float)
        self.time_constant = jnp.asarray(time_constant, dtype=float)
        self.max_speed = jnp.asarray(max_speed, dtype=float)
        raise_if_unphysical(self.physical_checks())

    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        """Finite parameters (see `AbstractModel`), τ > 0 s and v_max > 0 m/s (the speed divides the error)."""
        checks = super().physical_checks()
        checks["time_constant must be > 0 s"] = (~(self.time_constant <= 0), self.time_constant)
        checks["max_speed must be > 0 m/s"] = (~(self.max_speed <= 0), self.max_speed)
        return checks

    def vector_field(self, t, y, args):
        error = args(t) - y["extension"]
        v = self.max_speed
        return {"extension": v * jnp.tanh(error / (self.time_constant * v))}

    def initial_state(self):
        return {"extension": self.e0}

    def default_stepsize_controller(self):
        return diffrax.PIDController(rtol=1e-6, atol=1e-7)
