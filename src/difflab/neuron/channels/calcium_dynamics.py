r"""Intracellular calcium: the submembrane shell of Hay et al. (2011), `CaDynamics_E2`.

$$\frac{d\,\mathrm{cai}}{dt} = -\frac{10^4\, i_\mathrm{Ca}\, \gamma}{2 F d}
- \frac{\mathrm{cai} - \mathrm{minCai}}{\tau}$$

with `i_Ca` the summed calcium current density of the compartment in mA/cm² (NEURON's unit, outward positive),
`F` the Faraday constant (C/mol), `d` the shell depth (µm), `γ` the fraction of free (unbuffered) calcium and `τ`
the decay time (ms). difflab's currents are in µA/cm², so `i_Ca(mA/cm²) = I_Ca / 1000`.

Reference: Hay, Hill, Schürmann, Markram & Segev, PLoS Comput Biol 7:e1002107 (2011); ModelDB 139653
(`CaDynamics_E2.mod`).
"""

from __future__ import annotations

import numpy as np
from jaxtyping import Array, ArrayLike

from ...core.internal import check_nonnegative, is_concrete
from .._channels import channel_param
from ._ions import FARADAY, AbstractConcentration


class CaDynamics_E2(AbstractConcentration):
    """Calcium pool with first-order decay to `minCai`, written to the state `cai` (mM).

    Attributes:
        gamma: fraction of calcium influx that stays free, in [0, 1]; .mod default 0.05.
        decay: decay time constant (ms, > 0); default 80.
        depth: depth of the submembrane shell (µm, > 0); default 0.1.
        minCai: resting (minimum) concentration (mM, >= 0); default 1e-4.
        c_out: extracellular calcium `cao` (mM); NEURON's default `cao0_ca_ion` 2.
        c_init: initial `cai` (mM); NEURON's default `cai0_ca_ion` 5e-5 (the .mod has no INITIAL block).
    """

    ion = "ca"
    state = "cai"
    valence = 2
    gamma: Array
    decay: Array
    depth: Array
    minCai: Array
    c_out: Array
    c_init: Array

    def __init__(
        self,
        gamma: ArrayLike = 0.05,
        decay: ArrayLike = 80.0,
        depth: ArrayLike = 0.1,
        minCai: ArrayLike = 1e-4,
        c_out: ArrayLike = 2.0,
        c_init: ArrayLike = 5e-5,
    ):
        self.gamma = channel_param(gamma, "gamma", "1")
        if is_concrete(self.gamma) and np.any((np.asarray(self.gamma) < 0) | (np.asarray(self.gamma) > 1)):
            raise ValueError(f"gamma must lie in [0, 1] (the free fraction of calcium); got {self.gamma}")
        self.decay = channel_param(decay, "decay", "ms", positive=True)
        self.depth = channel_param(depth, "depth", "um", positive=True)
        self.minCai = channel_param(minCai, "minCai", "mM")
        check_nonnegative(self.minCai, "minCai", "mM")
        self.c_out = channel_param(c_out, "c_out", "mM", positive=True)
        self.c_init = channel_param(c_init, "c_init", "mM", positive=True)

    def linear_terms(self, current):
        # 10⁴ converts µm to cm and mA/cm² (I / 1000) to C/(s cm²) per ms: 10⁴ / 10³ = 10
        influx = -10 * current * self.gamma / (2 * FARADAY * self.depth)
        rate = 1 / self.decay
        return influx + self.minCai * rate, rate

    def physical_checks(self, prefix: str) -> dict[str, tuple[Array, Array]]:
        p = prefix
        return {
            f"{p}.gamma must lie in [0, 1]": ((self.gamma >= 0) & (self.gamma <= 1), self.gamma),
            f"{p}.decay must be > 0 ms": (~(self.decay <= 0), self.decay),
            f"{p}.depth must be > 0 um": (~(self.depth <= 0), self.depth),
            f"{p}.minCai must be >= 0 mM": (~(self.minCai < 0), self.minCai),
            f"{p}.c_out must be > 0 mM": (~(self.c_out <= 0), self.c_out),
            f"{p}.c_init must be > 0 mM": (~(self.c_init <= 0), self.c_init),
        }
