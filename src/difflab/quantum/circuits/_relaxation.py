r"""Relaxation towards $|0\rangle$: the `Reset` of a qubit and Qiskit's thermal relaxation over a time t.

- `Reset`: $\rho \to |0\rangle\langle0|\,\mathrm{Tr}_w\rho$ on the wire, Kraus operators $|0\rangle\langle0|$,
  $|0\rangle\langle1|$ (OpenQASM's `reset`).
- `ThermalRelaxation(t1, t2, time)`: Qiskit's `thermal_relaxation_error(T1, T2, time)` with no excited-state
  population. On one qubit's density matrix, with $p_1 = e^{-t/T_1}$ and $p_2 = e^{-t/T_2}$,
  $$\begin{pmatrix}\rho_{00} & \rho_{01}\\ \rho_{10} & \rho_{11}\end{pmatrix} \to
  \begin{pmatrix}\rho_{00} + (1-p_1)\rho_{11} & p_2\,\rho_{01}\\ p_2\,\rho_{10} & p_1\,\rho_{11}\end{pmatrix},$$
  which is completely positive only for $T_2 \le 2T_1$. It is amplitude damping with $\gamma = 1 - p_1$ followed
  by phase damping that takes the remaining coherence $e^{-t/2T_1}$ down to $e^{-t/T_2}$; the Kraus operators are
  $\mathrm{diag}(1, p_2)$, $\mathrm{diag}(0, \sqrt{p_1 - p_2^2})$ and $\sqrt{1 - p_1}\,|0\rangle\langle1|$.
  Times in any one unit (ns in difflab's quantum convention). Reference: Qiskit Aer,
  `qiskit_aer.noise.thermal_relaxation_error`; Nielsen & Chuang §8.3.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from .._complex import as_complex
from ._apply import is_concrete
from ._channels import AbstractQuantumChannel, _one_wire

_RESET = np.array([[[1, 0], [0, 0]], [[0, 1], [0, 0]]], dtype=complex)


class Reset(AbstractQuantumChannel):
    r"""Reset of `wire` to $|0\rangle$, whatever its state (entanglement with other wires is lost)."""

    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, wire: int):
        self.wires = _one_wire(wire)

    def kraus(self) -> Array:
        return jnp.asarray(_RESET)


def _times(t1: ArrayLike, t2: ArrayLike, time: ArrayLike) -> tuple[Array, Array, Array]:
    """The three times as float arrays, refused by name unless T1, T2 > 0, time >= 0 and T2 <= 2 T1."""
    values = {"t1": t1, "t2": t2, "time": time}
    if all(is_concrete(v) for v in values.values()):
        for name, v in values.items():
            x = float(np.asarray(v)) if np.shape(v) == () else np.nan
            if not np.isfinite(x) or x < 0 or (name != "time" and x == 0):
                bound = ">= 0" if name == "time" else "> 0"
                raise ValueError(f"{name} must be a finite scalar time {bound}; got {v!r}")
        t1_, t2_ = float(np.asarray(t1)), float(np.asarray(t2))
        if t2_ > 2 * t1_:
            raise ValueError(f"t2 must be <= 2 t1 = {2 * t1_:g} (a T2 beyond 2 T1 is not a physical channel); "
                             f"got t2 = {t2_:g}")  # fmt: skip
        return jnp.asarray(t1, float), jnp.asarray(t2, float), jnp.asarray(time, float)
    a, b, t = (jnp.asarray(v, dtype=float) for v in values.values())
    ok = (a > 0) & (b > 0) & (t >= 0) & (b <= 2 * a)  # traced: flagged when the program runs (NaN fails too)
    return eqx.error_if(a, ~ok, "t1, t2 must be > 0 with t2 <= 2 t1, and time >= 0"), b, t


class ThermalRelaxation(AbstractQuantumChannel):
    """Energy relaxation (T1) and dephasing (T2) of `wire` over `time`, as Qiskit's thermal relaxation error.

    Args:
        t1: energy relaxation time T1 > 0.
        t2: coherence time, 0 < T2 <= 2 T1.
        time: duration t >= 0, in the unit of t1 and t2.
        wire: the qubit it acts on.
    """

    t1: Array
    t2: Array
    time: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, t1: ArrayLike, t2: ArrayLike, time: ArrayLike, wire: int):
        self.t1, self.t2, self.time = _times(t1, t2, time)
        self.wires = _one_wire(wire)

    def kraus(self) -> Array:
        p1, p2 = jnp.exp(-self.time / self.t1), jnp.exp(-self.time / self.t2)
        # p1 − p2² >= 0 for T2 <= 2 T1; the clip keeps round-off at T2 = 2 T1 out of the square root.
        c, dephase, decay = (as_complex(v) for v in (p2, jnp.sqrt(jnp.clip(p1 - p2**2, 0)), jnp.sqrt(1 - p1)))
        zero, one = jnp.zeros_like(c), jnp.ones_like(c)
        return jnp.array([[[one, zero], [zero, c]], [[zero, zero], [zero, dephase]], [[zero, decay], [zero, zero]]])
