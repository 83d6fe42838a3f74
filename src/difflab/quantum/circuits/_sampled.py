r"""Sampled simulation of mid-circuit measurements: one state vector per shot, the outcomes drawn with a JAX key.

Each shot follows one branch. At `Measure(wire, bit)` the outcome k is drawn with its Born probability
$p_k = \lVert P_k\psi\rVert^2$, the state becomes $K_k\psi/\sqrt{p_k}$ ($K_k = |k\rangle\langle k|$ on the wire, or
$|0\rangle\langle k|$ with reset) and k is written to the bit; a `Conditional` applies its gates where the shot's
bits match. Shots are independent (one split of the key each, `jax.vmap` over them), so the register values are
i.i.d. draws from the exact branch weights of `_branching`, at 2ⁿ memory per shot instead of 2ᵐ·4ⁿ.

Gradients: the drawn outcomes are discrete, so nothing here is differentiable in them; the state of a shot given
its outcomes is differentiable, but averages over shots are not unbiased gradient estimates. For exact
gradients use the density-matrix branches (`Circuit.branches`, `Circuit.density_matrix`), or, when no measured
qubit is used again after its measurement (except as a condition) and nothing is reset, the deferred-measurement
circuit (`Circuit.deferred`), whose state vector is exact.
Noise channels are refused here (they would need quantum trajectories): use `Circuit.branches`.
"""

from __future__ import annotations

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

from ...core.internal import check_key
from ._matrix_observables import AbstractMatrixObservable
from ._measure import check_shots
from ._midcircuit import Bit, Conditional, Measure
from ._pauli import PauliSum, expectation


@dataclasses.dataclass(frozen=True)
class SampledEstimate:
    """A mean over shots and its standard error (sample standard deviation / √shots)."""

    value: float
    standard_error: float
    shots: int


@dataclasses.dataclass(frozen=True)
class ShotRecord:
    """The shots of a circuit with mid-circuit measurements.

    Attributes:
        bits: the classical bits, in register order.
        values: each shot's bit values, shape (shots, m) of 0/1 (int).
        states: each shot's final state vector, shape (shots, 2ⁿ).
    """

    bits: tuple[Bit, ...]
    values: Array
    states: Array

    @property
    def shots(self) -> int:
        return int(self.values.shape[0])

    def frequencies(self) -> tuple[np.ndarray, np.ndarray]:
        r"""The frequency $f_c$ of each register value (2ᵐ,) and its standard error $\sqrt{f_c(1 - f_c)/N}$."""
        m = len(self.bits)
        index = np.asarray(self.values) @ (2 ** np.arange(m - 1, -1, -1))
        f = np.bincount(index, minlength=2**m) / self.shots
        return f, np.sqrt(f * (1 - f) / self.shots)

    def expectation(self, observable: PauliSum | AbstractMatrixObservable) -> SampledEstimate:
        r"""$\langle O\rangle$ as the mean over shots of $\langle\psi_s|O|\psi_s\rangle$, with its standard error.

        Each term is the exact expectation in the shot's final state, so the estimate is unbiased for
        $\mathrm{Tr}(O\rho)$, $\rho = \sum_c \rho_c$, and its spread is that of the branches only (no readout shots).
        """
        per_shot = np.asarray(jax.vmap(lambda psi: expectation(observable, psi))(self.states), dtype=float)
        se = per_shot.std(ddof=1) / np.sqrt(self.shots) if self.shots > 1 else np.nan
        return SampledEstimate(float(per_shot.mean()), float(se), self.shots)


def _measure(op: Measure, psi: Array, n: int, key: Array) -> tuple[Array, Array]:
    """(outcome, post-measurement state) of one shot: k drawn with probability p_k, then K_k ψ / √p_k."""
    w = op.wires[0]
    tensor = psi.reshape((2,) * n)
    halves = [jax.lax.index_in_dim(tensor, k, w, keepdims=False) for k in (0, 1)]
    p1 = jnp.sum(jnp.abs(halves[1]) ** 2)
    outcome = (jax.random.uniform(key) < p1).astype(int)
    p = jnp.where(outcome == 1, p1, 1 - p1)
    norm = jnp.sqrt(jnp.where(p > 0, p, 1.0))  # p = 0 is never drawn; the guard keeps the other branch finite
    kept = jnp.where(outcome == 1, halves[1], halves[0]) / norm.astype(psi.dtype)
    target = 0 if op.reset else outcome
    parts = [jnp.where(target == k, kept, jnp.zeros_like(kept)) for k in (0, 1)]
    return outcome, jnp.stack(parts, axis=w).reshape(2**n)


def _one_shot(ops: tuple, psi: Array, n: int, bits: tuple[Bit, ...], key: Array) -> tuple[Array, Array]:
    values = jnp.zeros(len(bits), dtype=int)
    for i, op in enumerate(ops):
        if isinstance(op, Measure):
            outcome, psi = _measure(op, psi, n, jax.random.fold_in(key, i))
            values = values.at[bits.index(op.bit)].set(outcome)
        elif isinstance(op, Conditional):
            index = np.array([bits.index(b) for b in op.bits])
            holds = jnp.all(values[index] == jnp.asarray(op.values))
            applied = psi.reshape((2,) * n)
            for gate in op.ops:
                applied = gate.apply(applied)
            psi = jnp.where(holds, applied.reshape(2**n), psi)
        else:
            psi = op.apply(psi.reshape((2,) * n)).reshape(2**n)
    return values, psi


@eqx.filter_jit
def run_shots(ops: tuple, psi: Array, n: int, bits: tuple[Bit, ...], keys: Array) -> tuple[Array, Array]:
    """Every shot's (bit values, final state), one key each, vectorised over the shots."""
    return jax.vmap(lambda k: _one_shot(ops, psi, n, bits, k))(keys)


def sample_shots(ops: tuple, psi: Array, n: int, bits: tuple[Bit, ...], shots: int, key: Array) -> ShotRecord:
    """`shots` shots from `psi`, drawn with `key` (split into one key per shot)."""
    count = check_shots(shots)
    check_key(key)
    keys = jax.random.split(key, count)
    values, states = run_shots(ops, psi, n, bits, keys)
    return ShotRecord(bits, values, states)
