"""The Saltelli design: base matrices A and B and the d matrices A_B^(i), for first-order and total Sobol' indices.

Two independent samples A and B (n rows each, d columns) are the two halves of one scrambled Sobol' sequence in
2d dimensions; A_B^(i) is A with column i taken from B (Saltelli et al. 2010, section 3). The points run in blocks:
A, then B, then A_B^(1), ..., A_B^(d), n(d + 2) points in all.

Reference: A. Saltelli, P. Annoni, I. Azzini, F. Campolongo, M. Ratto, S. Tarantola, "Variance based sensitivity
analysis of model output. Design and estimator for the total sensitivity index", Comput. Phys. Commun. 181 (2010)
259-270.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from scipy.stats import qmc

from ..ensembles.internal import AbstractUnitCubeDesign
from ._inputs import check_bounds, check_count

#: Base rows below which the estimators' variance, and their bootstrap intervals, mean nothing.
MIN_BASE = 16


class Saltelli(AbstractUnitCubeDesign):
    """`n (d + 2)` points for [`sobol_indices`][difflab.sensitivity.sobol_indices]: blocks A, B, A_B^(1..d).

    Args:
        n: base rows (a power of 2 >= 16: the Sobol' sequence's balance holds for powers of 2).
        bounds: `{name: (low, high)}`, each parameter uniform on its interval.
        seed: the scrambling of the Sobol' sequence.
    """

    def __init__(self, n: int, bounds: Mapping[str, tuple[float, float]], *, seed: int = 0):
        check_count("n", n, MIN_BASE, "base rows of the Saltelli design; the estimators need a variance")
        if n & (n - 1):
            raise ValueError(
                f"n must be a power of 2 (Sobol' balance); got {n}, e.g. use {2 ** math.ceil(math.log2(n))}"
            )
        self.n = int(n)
        self.bounds = check_bounds(bounds)
        self.seed = int(seed)

    def unit(self) -> np.ndarray:
        """All points in the unit cube, shape `(n (d + 2), d)`: A, B, then A_B^(i) for each i."""
        d = len(self.bounds)
        base = qmc.Sobol(d=2 * d, scramble=True, seed=self.seed).random_base2(int(math.log2(self.n)))
        a, b = base[:, :d], base[:, d:]
        blocks = [a, b]
        for i in range(d):
            ab = a.copy()
            ab[:, i] = b[:, i]
            blocks.append(ab)
        return np.concatenate(blocks)

    def blocks(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`(f(A), f(B), f(A_B))` from the outputs at every point: shapes `(n,)`, `(n,)`, `(d, n)`."""
        d = len(self.bounds)
        if values.shape[0] != self.n * (d + 2):
            raise ValueError(f"outputs hold {values.shape[0]} points; this Saltelli design has {self.n * (d + 2)}")
        return values[: self.n], values[self.n : 2 * self.n], values[2 * self.n :].reshape(d, self.n)
