r"""Parametrised circuits (ansätze) for the variational algorithms; angles in radians.

- `hardware_efficient`: layers of RY, RZ on every wire followed by a CNOT ladder 0→1→…→n−1
  (Kandala et al., Nature 549, 242 (2017)); `params` of shape (layers, n, 2).
- `qaoa`: $|\gamma,\beta\rangle = \prod_{l} e^{-i\beta_l B} e^{-i\gamma_l C} H^{\otimes n}|0\rangle$ with the cut size
  $C$ and $B = \sum_j X_j$ (Farhi, Goldstone & Gutmann, arXiv:1411.4028); one edge's cost factor is
  $e^{-i\gamma w_{ij}(1 - Z_iZ_j)/2} \propto$ `ZZ(-γ w_ij)` (weight $w_{ij}$, default 1), the mixer is `RX(2β)`
  on each wire.
- `h2_ansatz`: Hartree–Fock $|1100\rangle$ and one `DoubleExcitation(θ)`, which spans the exact H₂ ground state in
  STO-3G (Arrazola et al., Quantum 6, 742 (2022)).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ._circuit import Circuit
from ._gates import AbstractGate
from ._givens import DoubleExcitation
from ._hamiltonians import _check_edges, check_weights
from ._standard_gates import CNOT, RX, RY, RZ, ZZ, H, X


def hardware_efficient(params: Array) -> Circuit:
    """RY/RZ layers + CNOT ladders; `params` shape (layers, n_wires, 2) gives the RY and RZ angles."""
    if np.ndim(params) != 3 or np.shape(params)[2] != 2 or np.shape(params)[1] < 2:
        raise ValueError(f"params must have shape (layers, n_wires >= 2, 2); got {np.shape(params)}")
    layers, n, _ = np.shape(params)
    ops: list[AbstractGate] = []
    for layer in range(layers):
        for w in range(n):
            ops += [RY(params[layer, w, 0], w), RZ(params[layer, w, 1], w)]
        ops += [CNOT(w, w + 1) for w in range(n - 1)]
    return Circuit(n, ops)


def qaoa(
    edges: Sequence[tuple[int, int]],
    n_wires: int,
    gammas: ArrayLike,
    betas: ArrayLike,
    *,
    weights: Sequence[float] | None = None,
) -> Circuit:
    """QAOA circuit for MaxCut of `edges` (with `weights`) and `len(gammas)` = `len(betas)` = p layers."""
    edges = _check_edges(edges, n_wires)
    w = check_weights(weights, len(edges))
    if np.ndim(gammas) != 1 or np.shape(gammas) != np.shape(betas):
        raise ValueError(f"gammas and betas must be 1-D of equal length p; got shapes {np.shape(gammas)} and "
                         f"{np.shape(betas)}")  # fmt: skip
    gammas, betas = jnp.asarray(gammas), jnp.asarray(betas)
    ops: list[AbstractGate] = [H(w) for w in range(n_wires)]
    for layer in range(gammas.shape[0]):
        ops += [ZZ(-gammas[layer] * float(wk), i, j) for wk, (i, j) in zip(w, edges, strict=True)]
        ops += [RX(2 * betas[layer], w) for w in range(n_wires)]
    return Circuit(n_wires, ops)


def h2_ansatz(theta: ArrayLike) -> Circuit:
    r"""$e^{\theta G}|1100\rangle$ with the double-excitation Givens rotation G on wires 0–3."""
    return Circuit(4, [X(0), X(1), DoubleExcitation(theta, (0, 1, 2, 3))])
