r"""Exact simulation of mid-circuit measurements: one density matrix per value of the classical register.

The state of a circuit with m classical bits is the set of unnormalised density matrices $\rho_c$, one for each
register value $c \in \{0,1\}^m$, with $\mathrm{Tr}\,\rho_c$ the probability of reading c and
$\rho_c / \mathrm{Tr}\,\rho_c$ the quantum state given c. It starts as $\rho_{0\ldots0} = \rho_0$ (bits start at
0, as in Qiskit) and:

- a gate or channel $\mathcal E$ acts on every branch, $\rho_c \to \mathcal E(\rho_c)$;
- `Measure(wire, bit=j)` with operators $K_k$ ($|k\rangle\langle k|$ on the wire, or $|0\rangle\langle k|$ with
  reset) sends $\rho_c \to \sum_{c_j'} K_k \rho_{c[j \leftarrow c_j']} K_k^\dagger$ for the branch c with $c_j = k$:
  the bit's previous value is forgotten (summed over) and the outcome written. Summed over c this is the
  measurement channel $\rho \to \sum_k K_k\rho K_k^\dagger$;
- `Conditional(ops, bits, values)` applies its gates to the branches whose bits hold `values` only.

Every step is linear in the branches and made of products with constant projectors, so the branch states and
weights, the summed density matrix $\sum_c \rho_c$ and any expectation value are exact and differentiable
functions of the circuit's angles (`jax.grad` gives exact gradients, including through the probabilities of the
outcomes). Memory is $2^m \cdot 4^n$ complex numbers: the register stays small (a few bits). Reference: Nielsen &
Chuang §2.2.3 and §8.2 (measurement as a quantum operation with a classical record).
"""

from __future__ import annotations

from collections.abc import Sequence

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

from ._apply import apply_matrix
from ._density import evolve_density
from ._midcircuit import Bit, Conditional, Measure, condition_mask, is_midcircuit


class Branches(eqx.Module):
    r"""The exact result of a circuit with mid-circuit measurements: one unnormalised $\rho_c$ per register value.

    Attributes:
        bits: the classical bits, in register order (the first is the most significant bit of a branch index).
        states: the unnormalised branch density matrices $\rho_c$, shape (2ᵐ, 2ⁿ, 2ⁿ).
    """

    bits: tuple[Bit, ...] = eqx.field(static=True)
    states: Array

    @property
    def weights(self) -> Array:
        r"""The probability of each register value, $p_c = \mathrm{Tr}\,\rho_c$, shape (2ᵐ,)."""
        return jnp.real(jnp.trace(self.states, axis1=1, axis2=2))

    @property
    def values(self) -> np.ndarray:
        """The bit values of each branch, shape (2ᵐ, m) of 0/1, in the order of `bits`."""
        m = len(self.bits)
        return (np.arange(2**m)[:, None] >> np.arange(m - 1, -1, -1)[None, :]) & 1

    def density_matrix(self) -> Array:
        r"""The final density matrix with the classical record forgotten, $\rho = \sum_c \rho_c$ (2ⁿ, 2ⁿ)."""
        return jnp.sum(self.states, axis=0)

    def index(self, outcome: dict | Sequence[int]) -> int:
        """The branch index of `outcome`: a {bit: value} dict naming every bit, or the m values in register order."""
        values = [outcome.get(b) for b in self.bits] if isinstance(outcome, dict) else list(outcome)
        if len(values) != len(self.bits) or any(v not in (0, 1) for v in values):
            raise ValueError(f"outcome must give 0 or 1 for each of the bits {self.bits}; got {outcome!r}")
        index = 0
        for v in values:  # the first bit most significant
            index = 2 * index + int(v)  # type: ignore[arg-type]
        return index

    def state(self, outcome: dict | Sequence[int]) -> Array:
        r"""The normalised state given `outcome`, $\rho_c / \mathrm{Tr}\,\rho_c$ (NaN where $p_c = 0$)."""
        c = self.index(outcome)
        return self.states[c] / self.weights[c].astype(self.states.dtype)


def evolve_branches(ops: Sequence, rho: Array, n: int, bits: tuple[Bit, ...], scan: bool = True) -> Array:
    """The branch states (2ᵐ, 4ⁿ), flat, after `ops` from the flat density matrix `rho` (4ⁿ,) in branch 0."""
    states = jnp.zeros((2 ** len(bits), 4**n), dtype=rho.dtype).at[0].set(rho)
    run: list = []
    for op in [*ops, None]:  # None flushes the last run of gates and channels
        if op is not None and not is_midcircuit(op):
            run.append(op)
            continue
        if run:
            states = _evolve_all(tuple(run), states, n, scan)
            run = []
        if isinstance(op, Measure):
            states = _measure(op, states, n, bits.index(op.bit), len(bits))
        elif isinstance(op, Conditional):
            states = _conditional(op, states, n, bits)
    return states


def _evolve_all(ops: tuple, states: Array, n: int, scan: bool) -> Array:
    """The gates and channels `ops` on every branch (the same map, vectorised over the branch axis)."""
    return jax.vmap(lambda rho: evolve_density(ops, rho, n, scan))(states)


def _measure(op: Measure, states: Array, n: int, j: int, m: int) -> Array:
    r"""Bit j forgotten (branches summed over it), then $K_k\sigma K_k^\dagger$ stacked as its new value k."""
    tensor = states.reshape((2,) * m + (4**n,))
    forgotten = jnp.sum(tensor, axis=j).reshape((-1,) + (2,) * (2 * n))  # (2ᵐ⁻¹, 2, …, 2)
    w = op.wires[0]
    outcomes = []
    for k in (0, 1):
        kraus = op.kraus(k)
        rows = apply_matrix(forgotten, kraus, [1 + w])
        outcomes.append(apply_matrix(rows, kraus.conj(), [1 + n + w]).reshape((2,) * (m - 1) + (4**n,)))
    return jnp.stack(outcomes, axis=j).reshape(2**m, 4**n)


def _conditional(op: Conditional, states: Array, n: int, bits: tuple[Bit, ...]) -> Array:
    """The conditioned gates on the branches whose bits match (the others are left as they are)."""
    chosen = condition_mask(op, bits)[:, None]  # constant (2ᵐ, 1): a select, no gather or scatter to differentiate
    return jnp.where(chosen, _evolve_all(op.ops, states, n, scan=False), states)


@eqx.filter_jit
def run_branches(ops: tuple, rho: Array, n: int, bits: tuple[Bit, ...], scan: bool) -> Branches:
    """`evolve_branches` compiled once per circuit structure, returned as `Branches`."""
    states = evolve_branches(ops, rho, n, bits, scan)
    return Branches(bits, states.reshape(2 ** len(bits), 2**n, 2**n))
