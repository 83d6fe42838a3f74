r"""`RabiQubit`: a driven, damped qubit with physical parameters by name, for calibration.

$$ H = \frac{\Delta}{2}\sigma_z + \frac{\Omega}{2}\sigma_x, \quad L_1 = \sqrt{1/T_1}\,\sigma_-, \quad
   L_2 = \sqrt{\gamma_\varphi/2}\,\sigma_z, \quad \gamma_\varphi = \frac{1}{T_2} - \frac{1}{2T_1}, $$

so populations relax at $1/T_1$ and coherences at $1/T_2$ (the convention of the reference data). Time in µs,
$\Omega$ and $\Delta$ in rad/µs, $T_1$, $T_2$ in µs. The physical bound $T_2 \le 2T_1$ is built in by storing
$r = T_2 / (2T_1) \in (0, 1]$ (`t2_ratio`) instead of $T_2$; fit it with `Bounded(0, 1)` and $T_1$ with `Positive()`.
Starts in $|g\rangle$ unless `rho0` is given.
"""

from __future__ import annotations

import functools
from typing import ClassVar

import jax
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

from ..core.internal import AbstractModel, StateInfo, raise_if_unphysical
from ._lindblad import LindbladModel
from ._observables import expect_dm
from ._operator import Operator, dia
from ._readout import Readout
from ._standard_operators import sigmam, sigmax, sigmaz


@functools.cache
def _paulis() -> tuple[Operator, Operator, Operator]:
    """σx, σz and σ- as diagonal-sparse operators, built on first use.

    Not at import: creating an array there would start JAX's backend, after which the process can no longer
    choose its devices (`jax_num_cpu_devices`). Built concretely, so a first call inside `jax.jit` caches no tracer.
    """
    with jax.ensure_compile_time_eval():
        return dia(sigmax()), dia(sigmaz()), dia(sigmam())


class RabiQubit(AbstractModel):
    """Driven damped qubit (see module docstring); parameters `omega`, `delta` (rad/µs), `t1` (µs), `t2_ratio`."""

    omega: Array
    delta: Array
    t1: Array
    t2_ratio: Array
    rho0: Array
    states = (StateInfo("rho", "1", "density matrix as [real part, imaginary part]"),)
    time_units = "us"
    aliases: ClassVar[dict[str, str]] = {"Omega": "omega", "Delta": "delta", "T1": "t1"}
    parameter_units: ClassVar[dict[str, str]] = {
        "omega": "rad/us", "delta": "rad/us", "t1": "us", "t2_ratio": "1", "Omega": "rad/us", "Delta": "rad/us",
        "T1": "us",
    }  # fmt: skip

    def __init__(self, omega: ArrayLike, delta: ArrayLike, t1: ArrayLike, t2: ArrayLike, rho0: ArrayLike | None = None):
        self.omega = jnp.asarray(omega, dtype=float)
        self.delta = jnp.asarray(delta, dtype=float)
        self.t1 = jnp.asarray(t1, dtype=float)
        self.t2_ratio = jnp.asarray(t2, dtype=float) / (2.0 * self.t1)
        ground = jnp.zeros((2, 2, 2)).at[0, 1, 1].set(1.0)
        self.rho0 = ground if rho0 is None else LindbladModel(jnp.zeros((2, 2)), rho0=rho0).y0["rho"]
        raise_if_unphysical(self.physical_checks())

    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        r"""Finite parameters, $T_1 > 0$ and $0 < T_2 \le 2T_1$ (dephasing rate $\ge 0$)."""
        # T1 and T2 first: T1 = 0 or T2 = NaN would otherwise be reported as a non-finite t2_ratio = T2 / (2 T1)
        checks = {"T1 must be > 0 us": (self.t1 > 0, self.t1), "T2 must be > 0 us": (self.t2_ratio > 0, self.t2)}
        checks |= super().physical_checks()
        checks["T2 must be <= 2 T1 (pure dephasing rate >= 0)"] = (self.t2_ratio <= 1 + 1e-12, self.t2)
        return checks

    @property
    def t2(self) -> Array:
        """Coherence time $T_2 = 2 r T_1$ (µs)."""
        return 2.0 * self.t2_ratio * self.t1

    def lindblad(self) -> LindbladModel:
        """The equivalent `LindbladModel` (diagonal-sparse operators scaled by the parameters)."""
        gamma_phi = 1.0 / self.t2 - 0.5 / self.t1
        sx, sz, sm = _paulis()
        H = self.delta * (0.5 * sz) + self.omega * (0.5 * sx)
        jumps = [jnp.sqrt(1.0 / self.t1) * sm, jnp.sqrt(gamma_phi / 2.0) * sz]
        return LindbladModel(H, (), jumps, time_units="us")

    def vector_field(self, t, y, args):
        return self.lindblad().vector_field(t, y, None)

    def initial_state(self) -> dict[str, Array]:
        return {"rho": self.rho0}


def readout_observer(readout: Readout):
    """`observe(t, y, args)` giving the measured excited fraction `p_meas` (for `difflab.simulate` / calibrate)."""

    def observe(t, y, args):
        p_excited = 0.5 * (1.0 + expect_dm(_paulis()[1], y["rho"])[0])
        return {"p_meas": readout.excited_fraction(p_excited)}

    return observe
