r"""Dispersive-readout measurement model: populations, assignment errors and shot noise.

A single-shot readout reports "excited" with probability

$$ p_\text{meas} = \epsilon_g\,(1 - P_e) + (1 - \epsilon_e)\,P_e = \epsilon_g + (1 - \epsilon_g - \epsilon_e)\,P_e, $$

where $P_e = (1 + \langle\sigma_z\rangle)/2$ is the excited-state population, $\epsilon_g$ = P(read e | g) and
$\epsilon_e$ = P(read g | e) are the assignment errors (dimensionless, from a separate readout calibration). Averaging
`shots` repetitions gives a binomial fraction with variance $p_\text{meas}(1 - p_\text{meas})/\text{shots}$.
Reference: Krantz et al., Appl. Phys. Rev. 6, 021318 (2019), §V.
"""

from __future__ import annotations

import numbers

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float

from ..core.internal import check_finite


class Readout(eqx.Module):
    """Assignment errors `eps_g` = P(read e | g), `eps_e` = P(read g | e) (dimensionless, in [0, 0.5))."""

    eps_g: Array
    eps_e: Array

    def __init__(self, eps_g: ArrayLike = 0.0, eps_e: ArrayLike = 0.0):
        for name, value in (("eps_g", eps_g), ("eps_e", eps_e)):
            if np.ndim(value) != 0 or not 0.0 <= float(np.asarray(value)) < 0.5:  # NaN fails too
                raise ValueError(f"{name} must lie in [0, 0.5); got {value}")
        self.eps_g = jnp.asarray(eps_g, dtype=float)
        self.eps_e = jnp.asarray(eps_e, dtype=float)

    def excited_fraction(self, p_excited: Float[ArrayLike, "..."]) -> Float[Array, "..."]:
        """Expected fraction of "excited" outcomes for the excited population `p_excited`."""
        return self.eps_g + (1.0 - self.eps_g - self.eps_e) * jnp.asarray(p_excited)

    def sample(self, p_excited: Float[ArrayLike, "..."], shots: int, rng: np.random.Generator) -> np.ndarray:
        """Measured fractions: binomial draws of `shots` single-shot readouts per sample (shot noise)."""
        if isinstance(shots, bool) or not isinstance(shots, numbers.Integral) or shots < 1:
            raise ValueError(f"shots must be a positive integer (readouts per sample); got {shots!r}")
        check_finite(p_excited, "p_excited")
        p = np.clip(np.asarray(self.excited_fraction(p_excited)), 0.0, 1.0)
        return rng.binomial(shots, p) / shots
