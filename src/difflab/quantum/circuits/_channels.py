r"""Noise channels as Kraus maps on the density matrix.

A channel maps $\rho \to \sum_k K_k \rho K_k^\dagger$ with $\sum_k K_k^\dagger K_k = 1$.

Conventions follow PennyLane's `default.mixed` (and Nielsen & Chuang, ch. 8.3): amplitude damping
$K_0 = \mathrm{diag}(1, \sqrt{1-\gamma})$, $K_1 = \sqrt\gamma\,|0\rangle\langle 1|$; dephasing (phase damping)
$K_0 = \mathrm{diag}(1, \sqrt{1-\gamma})$, $K_1 = \mathrm{diag}(0, \sqrt\gamma)$, so coherences shrink by
$\sqrt{1-\gamma}$; depolarising $\sqrt{1-p}\,I$, $\sqrt{p/3}\,\{X, Y, Z\}$ (two-qubit: $\sqrt{1-p}\,I$ and the 15
other Pauli products with $\sqrt{p/15}$). Probabilities are dimensionless in [0, 1]; for a gate of duration $t$ on
a qubit with $T_1$, $\gamma = 1 - e^{-t/T_1}$.

Qiskit writes the depolarising channel on k qubits as $\rho \to (1-\lambda)\rho + \lambda\,\mathrm{Tr}(\rho)\,
I/2^k$ (`depolarizing_error(λ, k)`). Since the 4ᵏ Pauli products $P$ satisfy $\sum_P P\rho P = 2^k \mathrm{Tr}(\rho) I$,
difflab's $p$ is the same channel with $\lambda = \frac{4^k}{4^k - 1}\,p$: $\lambda = 4p/3$ on one qubit,
$16p/15$ on two.
"""

from __future__ import annotations

import abc

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from .._complex import as_complex
from ._apply import apply_matrix, as_wires, is_concrete
from ._gates import PAULIS

#: Tolerance of the completeness check max |Σ K†K − 1| on user Kraus sets.
KRAUS_ATOL = 1e-8


class AbstractQuantumChannel(eqx.Module):
    """A completely positive, trace-preserving map on `wires`, given by its Kraus operators."""

    wires: eqx.AbstractVar[tuple[int, ...]]

    @abc.abstractmethod
    def kraus(self) -> Array:
        """Kraus operators, shape (K, 2ᵏ, 2ᵏ)."""

    def superoperator(self) -> Array:
        r"""$S = \sum_k K_k \otimes \overline{K_k}$, the map on the (row, column) axes pairs of the wires.

        $\rho'_{ac} = \sum_{bd} S_{(ac),(bd)}\,\rho_{bd}$ for one wire (rows a, b; columns c, d), 4 × 4.
        """
        kraus = self.kraus()
        return jnp.sum(jnp.stack([jnp.kron(k, jnp.conj(k)) for k in kraus]), axis=0)

    def apply_density(self, rho: Array, n_wires: int) -> Array:
        r"""$\sum_k K_k \rho K_k^\dagger$ on a density tensor of shape (2,)*2n.

        On one wire, the superoperator (`superoperator`) contracted with the row and column axes of the wire: one
        pass over the 4ⁿ entries, against two per Kraus operator and their sum (a depolarising channel: 1 against
        9). On more wires, $K_k$ on the rows and $\overline{K_k}$ on the columns for each k.
        """
        if len(self.wires) == 1:
            return apply_matrix(rho, self.superoperator(), [self.wires[0], n_wires + self.wires[0]])
        rows = list(self.wires)
        cols = [n_wires + w for w in self.wires]
        return jnp.asarray(sum(apply_matrix(apply_matrix(rho, k, rows), jnp.conj(k), cols) for k in self.kraus()))


def _probability(value: ArrayLike, name: str) -> Array:
    if is_concrete(value):
        v = np.asarray(value, dtype=float)
        if v.shape != () or not 0.0 <= float(v) <= 1.0:
            raise ValueError(f"{name} must be a probability in [0, 1]; got {value!r}")
        return jnp.asarray(value, dtype=float)
    p = jnp.asarray(value, dtype=float)  # traced: flagged when the compiled program runs (NaN fails too)
    return eqx.error_if(p, ~jnp.all((p >= 0) & (p <= 1)), f"{name} must be a probability in [0, 1]")


def _one_wire(wire) -> tuple[int, ...]:
    wires = as_wires("wire", wire)
    if len(wires) != 1:
        raise ValueError(f"wire must be a single wire; got {wires!r}")
    return wires


class Kraus(AbstractQuantumChannel):
    """A channel from user Kraus `operators` (K, 2ᵏ, 2ᵏ) on `wires`; completeness Σ K†K = 1 is checked (1e-8)."""

    operators: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, operators: ArrayLike, wires):
        self.wires = as_wires("wires", wires)
        d = 2 ** len(self.wires)
        shape = np.shape(operators)
        if len(shape) != 3 or shape[1:] != (d, d):
            raise ValueError(f"operators must have shape (K, {d}, {d}) for {len(self.wires)} wire(s); got {shape}")
        if is_concrete(operators):
            k = np.asarray(operators, dtype=complex)
            err = np.abs(np.einsum("kji,kjl->il", k.conj(), k) - np.eye(d)).max()
            if not err <= KRAUS_ATOL:
                raise ValueError(f"operators must satisfy Σ K†K = 1 (trace preservation): max |Σ K†K − 1| = "
                                 f"{err:.3g} exceeds {KRAUS_ATOL:g}")  # fmt: skip
        self.operators = jnp.asarray(operators, dtype=complex)

    def kraus(self) -> Array:
        return self.operators


class _AbstractDamping(AbstractQuantumChannel):
    r"""Damping with probability `gamma` on one wire.

    $K_0 = \mathrm{diag}(1, \sqrt{1-\gamma})$, and $K_1$ holds $\sqrt\gamma$ at the entry `_jump` (row, column)
    and zeros elsewhere. The concrete channels declare the fields and `__init__` (Equinox's abstract/final
    pattern); this class shares the Kraus operators.
    """

    gamma: eqx.AbstractVar[Array]
    _jump: eqx.AbstractClassVar[tuple[int, int]]

    def kraus(self) -> Array:
        g = as_complex(self.gamma)
        zero = jnp.zeros_like(g)
        k1 = [[jnp.sqrt(g) if (i, j) == self._jump else zero for j in range(2)] for i in range(2)]
        return jnp.array([[[1.0 + zero, zero], [zero, jnp.sqrt(1 - g)]], k1])


class AmplitudeDamping(_AbstractDamping):
    """Energy relaxation |1> → |0> with probability `gamma` on one wire."""

    gamma: Array
    wires: tuple[int, ...] = eqx.field(static=True)
    _jump = (0, 1)

    def __init__(self, gamma: ArrayLike, wire: int):
        self.gamma, self.wires = _probability(gamma, "gamma"), _one_wire(wire)


class Dephasing(_AbstractDamping):
    """Pure dephasing (phase damping) with probability `gamma`: off-diagonal elements scale by √(1 − γ)."""

    gamma: Array
    wires: tuple[int, ...] = eqx.field(static=True)
    _jump = (1, 1)

    def __init__(self, gamma: ArrayLike, wire: int):
        self.gamma, self.wires = _probability(gamma, "gamma"), _one_wire(wire)


class Depolarizing(AbstractQuantumChannel):
    """Depolarising channel: X, Y or Z each with probability `p`/3 (ρ → (1 − 4p/3) ρ + (2p/3) I at p ≤ 3/4)."""

    p: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, p: ArrayLike, wire: int):
        self.p, self.wires = _probability(p, "p"), _one_wire(wire)

    def kraus(self) -> Array:
        paulis = jnp.asarray(np.stack([PAULIS[c] for c in "IXYZ"]))
        weights = jnp.stack([1 - self.p, self.p / 3, self.p / 3, self.p / 3])
        amplitudes = as_complex(jnp.sqrt(weights))
        return amplitudes[:, None, None] * paulis.astype(amplitudes.dtype)


class TwoQubitDepolarizing(AbstractQuantumChannel):
    r"""Two-qubit depolarising channel: each of the 15 Pauli products other than $I \otimes I$ with probability p/15.

    $\rho \to (1 - \tfrac{16}{15}p)\,\rho + \tfrac{16}{15}p\,\mathrm{Tr}(\rho)\,I/4$: Qiskit's
    `depolarizing_error(λ, 2)` with $\lambda = 16p/15$ (cirq's `depolarize(p, n_qubits=2)`).
    """

    p: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, p: ArrayLike, wires):
        self.p, self.wires = _probability(p, "p"), as_wires("wires", wires)
        if len(self.wires) != 2:
            raise ValueError(f"wires of TwoQubitDepolarizing must hold 2 wires; got {self.wires!r}")

    def kraus(self) -> Array:
        paulis = jnp.asarray(np.stack([np.kron(PAULIS[a], PAULIS[b]) for a in "IXYZ" for b in "IXYZ"]))
        weights = jnp.concatenate([(1 - self.p)[None], jnp.full(15, self.p / 15)])
        amplitudes = as_complex(jnp.sqrt(weights))
        return amplitudes[:, None, None] * paulis.astype(amplitudes.dtype)


class ReadoutError(AbstractQuantumChannel):
    r"""Misread bits on one wire: `p01` = P(read 1 | state 0), `p10` = P(read 0 | state 1).

    On probabilities it is the confusion matrix $M = \begin{pmatrix} 1-p_{01} & p_{10} \\ p_{01} & 1-p_{10}
    \end{pmatrix}$ (`confusion`), which `probabilities`, `sample` and `measure` take through their `readout`
    argument. As a channel in a circuit (just before measurement) it has the Kraus operators
    $\sqrt{1-p_{01}}|0\rangle\langle0|, \sqrt{p_{01}}|1\rangle\langle0|, \sqrt{p_{10}}|0\rangle\langle1|,
    \sqrt{1-p_{10}}|1\rangle\langle1|$, which give the same computational-basis probabilities.
    """

    p01: Array
    p10: Array
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, p01: ArrayLike, p10: ArrayLike | None = None, *, wire: int):
        self.p01 = _probability(p01, "p01")
        self.p10 = self.p01 if p10 is None else _probability(p10, "p10")
        self.wires = _one_wire(wire)

    def confusion(self) -> Array:
        """$M_{ij}$ = P(read i | state j)."""
        return jnp.stack([jnp.stack([1 - self.p01, self.p10]), jnp.stack([self.p01, 1 - self.p10])])

    def kraus(self) -> Array:
        m = as_complex(jnp.sqrt(self.confusion()))
        e = jnp.eye(2, dtype=m.dtype)
        # |i><j| weighted by sqrt(P(i | j)).
        return jnp.stack([m[i, j] * jnp.outer(e[i], e[j]) for j in range(2) for i in range(2)])
