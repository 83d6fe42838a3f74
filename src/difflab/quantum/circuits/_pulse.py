r"""A gate realised by a pulse: the computational block of a driven transmon's propagator, inside a circuit.

`PulseGate` holds the controls of a Gaussian + DRAG pulse (`difflab.quantum.drag_pulses`) on a transmon truncated to
`levels` levels (`difflab.quantum.transmon`, rotating frame, RWA) and, when the circuit runs, solves the Schrödinger
equation for the pulse (`difflab.quantum.subspace_propagator`, adaptive Tsit5) to get
$V_{jk} = \langle j|U(T)|k\rangle$, $j, k \in \{0, 1\}$. $V$ is applied like any one-qubit gate, so the circuit's
output and its gradient with respect to the pulse amplitude (rad/ns), DRAG coefficient (ns) and detuning (rad/ns)
flow through the solve. Leakage to $|2\rangle$ makes $V$ a contraction: the state's norm (trace of ρ) drops by the
leaked population, which then is missing from every probability.
Reference: Motzoi et al., PRL 103, 110501 (2009).
"""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

from .._transmon import drag_pulses, subspace_propagator, transmon
from ._apply import as_wires
from ._gates import AbstractGate


class PulseGate(AbstractGate):
    """One-qubit gate from a Gaussian + DRAG pulse on a `levels`-level transmon.

    Args:
        amplitude: peak Ω_x (rad/ns).
        wire: the qubit it acts on.
        beta: DRAG coefficient (ns).
        detuning: drive detuning δ (rad/ns).
        anharmonicity: α (rad/ns), default −2π × 0.2 GHz.
        duration: pulse length T (ns).
        sigma: Gaussian width (ns), default T/4.
        levels: transmon levels kept (≥ 2).
        rtol, atol: tolerances of the propagator solve.
    """

    amplitude: Array
    unitary: ClassVar[bool] = False  # leakage out of {|0>, |1>} makes V a contraction
    beta: Array
    detuning: Array
    anharmonicity: Array
    wires: tuple[int, ...] = eqx.field(static=True)
    duration: float = eqx.field(static=True)
    sigma: float = eqx.field(static=True)
    levels: int = eqx.field(static=True)
    rtol: float = eqx.field(static=True)
    atol: float = eqx.field(static=True)

    def __init__(
        self,
        amplitude: ArrayLike,
        wire: int,
        *,
        beta: ArrayLike = 0.0,
        detuning: ArrayLike = 0.0,
        anharmonicity: ArrayLike = -2 * jnp.pi * 0.2,
        duration: float = 20.0,
        sigma: float | None = None,
        levels: int = 3,
        rtol: float = 1e-10,
        atol: float = 1e-12,
    ):
        self.wires = as_wires("wire", wire)
        if len(self.wires) != 1:
            raise ValueError(f"wire must be a single wire; got {self.wires!r}")
        if not duration > 0:
            raise ValueError(f"duration must be a positive time in ns; got {duration!r}")
        self.amplitude = jnp.asarray(amplitude, dtype=float)
        self.beta = jnp.asarray(beta, dtype=float)
        self.detuning = jnp.asarray(detuning, dtype=float)
        self.anharmonicity = jnp.asarray(anharmonicity, dtype=float)
        self.duration = float(duration)
        self.sigma = self.duration / 4 if sigma is None else float(sigma)
        self.levels, self.rtol, self.atol = int(levels), float(rtol), float(atol)

    @classmethod
    def from_optimized(cls, result: dict, wire: int, **kwargs) -> PulseGate:
        """The gate of an `optimize_drag` result (its `amplitude`, `beta`, `detuning`).

        Pass the same `anharmonicity`, `duration`, `sigma` and `levels` that the optimisation used.
        """
        return cls(result["amplitude"], wire, beta=result["beta"], detuning=result["detuning"], **kwargs)

    def matrix(self) -> Array:
        # Imported here: difflab.quantum imports this package while it initialises.

        pulses = drag_pulses(self.amplitude, self.beta, self.duration, self.sigma)
        model = transmon(self.anharmonicity, pulses, detuning=self.detuning, levels=self.levels)
        return subspace_propagator(model, self.duration, rtol=self.rtol, atol=self.atol)
