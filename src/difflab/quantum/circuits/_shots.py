r"""Expectation values estimated from a finite number of shots, with their standard errors.

A Pauli sum $H = c_0 + \sum_t c_t P_t$ is measured in groups of *qubit-wise commuting* strings (on every wire the
strings of a group hold the same letter or I), so one basis change per group serves all its strings: X is read
after H, Y after S† then H ($HS^\dagger\,Y\,SH = Z$). Each of the `shots` bit strings $b$ of group $g$ gives
$f_g(b) = \sum_{t\in g} c_t \prod_{w \in P_t} (-1)^{b_w}$; the estimate is $\hat E = c_0 + \sum_g \bar f_g$ and
its standard error $\sqrt{\sum_g s_g^2 / N}$ with $s_g^2$ the sample variance of $f_g$ over the $N$ shots
(each group is measured with its own N shots). The exact standard error, $\sqrt{\sum_g \mathrm{Var}_p(f_g)/N}$
from the group's outcome probabilities $p$, is returned beside it. A `Hermitian` or `Projector` observable is one
group, read in its eigenbasis: an outcome is worth the eigenvalue it belongs to.
Reference: Verteletskyi, Yen & Izmaylov, J. Chem. Phys. 152, 124114 (2020) (qubit-wise commuting groups).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ...core.internal import check_key
from ._channels import ReadoutError
from ._circuit import Circuit
from ._gates import AbstractGate, Unitary
from ._matrix_observables import AbstractMatrixObservable
from ._measure import _n_wires, probabilities
from ._pauli import PauliSum
from ._standard_gates import H, Sdg

#: The gates after which a Z measurement reads the letter: X after H, Y after S† then H.
_BASIS_CHANGE = {"I": lambda w: [], "Z": lambda w: [], "X": lambda w: [H(w)], "Y": lambda w: [Sdg(w), H(w)]}


@dataclasses.dataclass(frozen=True)
class ShotEstimate:
    """An expectation value from shots.

    Attributes:
        value: the estimate (units of the observable).
        standard_error: its standard error from the sample variances of the shots.
        exact_standard_error: the standard error the estimator has, from the exact outcome probabilities.
        groups: the term indices measured together (one basis change each); `()` for a matrix observable.
        shots: shots per group.
    """

    value: float
    standard_error: float
    exact_standard_error: float
    groups: tuple[tuple[int, ...], ...]
    shots: int


def qubitwise_groups(observable: PauliSum) -> list[list[int]]:
    """Indices of the non-identity strings in qubit-wise commuting groups (first fit, in the order given)."""
    groups: list[list[int]] = []
    bases: list[list[str]] = []
    for t, string in enumerate(observable.strings):
        if set(string) == {"I"}:
            continue
        for group, basis in zip(groups, bases, strict=True):
            if all(a == "I" or b == "I" or a == b for a, b in zip(string, basis, strict=True)):
                group.append(t)
                basis[:] = [b if b != "I" else a for a, b in zip(string, basis, strict=True)]
                break
        else:
            groups.append([t])
            bases.append(list(string))
    return groups


def _rotated(state: Array, n: int, gates: Sequence[AbstractGate]) -> Array:
    circuit = Circuit(n, list(gates))
    return circuit.statevector(state) if state.ndim == 1 else circuit.density_matrix(state)


def _outcomes(state, n, gates, readout, values, shots, key) -> tuple[float, float, float]:
    """(sample mean, sample variance, exact variance) of `values` (one per bit string) after the basis change."""
    p = np.clip(np.asarray(probabilities(_rotated(state, n, gates), readout=readout), dtype=float), 0, None)
    p = p / p.sum()
    mean = float(p @ values)
    draws = values[np.asarray(jax.random.choice(key, 2**n, shape=(shots,), p=jnp.asarray(p)))]
    return float(draws.mean()), float(draws.var(ddof=1)), float(p @ (values - mean) ** 2)


def estimate_expectation(
    observable: PauliSum | AbstractMatrixObservable,
    state: ArrayLike,
    shots: int,
    *,
    key: Array,
    readout: Sequence[ReadoutError] = (),
) -> ShotEstimate:
    """The expectation value of `observable` in `state` estimated from `shots` shots per measurement group.

    Args:
        observable: a `PauliSum` (measured in qubit-wise commuting groups), `Hermitian` or `Projector`.
        state: a state vector (2ⁿ,) or density matrix (2ⁿ, 2ⁿ).
        shots: shots per group (≥ 2, for a sample variance).
        key: a `jax.random` key; each group draws with its own split of it.
        readout: `ReadoutError`s applied to the measured bits, as in `probabilities`.
    """
    if isinstance(shots, bool) or not isinstance(shots, int | np.integer) or shots < 2:
        raise ValueError(f"shots must be an integer >= 2 (a standard error needs two shots); got {shots!r}")
    check_key(key)
    n = _n_wires(state)
    state = jnp.asarray(state)
    bits = (np.arange(2**n)[:, None] >> np.arange(n - 1, -1, -1)[None, :]) & 1
    if isinstance(observable, AbstractMatrixObservable):
        eigenvalues, vectors = np.linalg.eigh(np.asarray(observable.matrix()))
        wires = list(observable.wires)
        local = bits[:, wires] @ (2 ** np.arange(len(wires) - 1, -1, -1))
        gate = Unitary(vectors.conj().T, observable.wires)
        mean, var, exact = _outcomes(state, n, [gate], readout, eigenvalues[local], int(shots), key)
        se = np.sqrt(var / shots)
        return ShotEstimate(mean, float(se), float(np.sqrt(exact / shots)), (), int(shots))
    if not isinstance(observable, PauliSum):
        raise TypeError(f"observable must be a PauliSum, Hermitian or Projector; got {type(observable).__name__}")
    if observable.n_wires != n:
        raise ValueError(f"observable acts on {observable.n_wires} wires but state has {n}")
    c = np.asarray(observable.coefficients, dtype=float)
    signs = 1 - 2 * bits  # (2ⁿ, n): (−1)^{b_w}
    groups = qubitwise_groups(observable)
    value = float(sum(c[t] for t, s in enumerate(observable.strings) if set(s) == {"I"}))
    var_sum = exact_sum = 0.0
    for group, k in zip(groups, jax.random.split(key, max(len(groups), 1)), strict=False):
        basis = ["I"] * n
        values = np.zeros(2**n)
        for t in group:
            letters = [w for w, ch in enumerate(observable.strings[t]) if ch != "I"]
            values += c[t] * np.prod(signs[:, letters], axis=1)
            for w in letters:
                basis[w] = observable.strings[t][w]
        gates = [
            g for w, ch in enumerate(basis) for g in ([H(w)] if ch == "X" else [Sdg(w), H(w)] if ch == "Y" else [])
        ]
        mean, var, exact = _outcomes(state, n, gates, readout, values, int(shots), k)
        value, var_sum, exact_sum = value + mean, var_sum + var, exact_sum + exact
    return ShotEstimate(value, float(np.sqrt(var_sum / shots)), float(np.sqrt(exact_sum / shots)),
                        tuple(tuple(g) for g in groups), int(shots))  # fmt: skip
