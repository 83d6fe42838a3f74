r"""Morris trajectories on a p-level grid, the r most spread out of many candidates chosen as Campolongo proposes.

A trajectory starts at a random grid point $x^*$ of the unit cube and moves one parameter at a time, in a random
order and direction, by $\Delta = p / (2(p - 1))$: d + 1 points, d elementary effects (M. D. Morris, "Factorial
sampling plans for preliminary computational experiments", Technometrics 33 (1991) 161-174). Of `candidates`
trajectories the `r` with the largest spread are kept, the spread of a set being
$\sqrt{\sum_{m<l} d_{ml}^2}$ with $d_{ml}$ the sum of the Euclidean distances between the points of trajectories
m and l (F. Campolongo, J. Cariboni, A. Saltelli, "An effective screening design for sensitivity analysis of large
models", Environ. Model. Softw. 22 (2007) 1509-1518). The exhaustive search over all subsets is combinatorial;
the set is grown greedily from the farthest pair, adding the trajectory that raises the spread most (the
"local" search of Ruano, Ribes, Sousa, Jimenez, Environ. Model. Softw. 37 (2012) 103-109, in its simplest form).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.spatial.distance import cdist

from ..ensembles.internal import AbstractUnitCubeDesign
from ._inputs import check_bounds, check_count


class Morris(AbstractUnitCubeDesign):
    """`r (d + 1)` points: `r` Morris trajectories in `bounds`, trajectory after trajectory.

    Args:
        r: trajectories kept (>= 2: sigma needs two elementary effects per parameter).
        bounds: `{name: (low, high)}`.
        levels: grid levels p per parameter (even, >= 4 recommended; >= 2).
        candidates: trajectories drawn before choosing the `r` most spread (default `10 r`; `r` keeps them all).
        seed: the random draws.
    """

    def __init__(
        self,
        r: int,
        bounds: Mapping[str, tuple[float, float]],
        *,
        levels: int = 4,
        candidates: int | None = None,
        seed: int = 0,
    ):
        self.r = check_count("r", r, 2, "trajectories; sigma needs two elementary effects per parameter")
        self.levels = check_count("levels", levels, 2, "grid levels p per parameter")
        if self.levels % 2:
            raise ValueError(f"levels must be even, so that every level has a partner Delta away; got {levels}")
        self.candidates = check_count("candidates", self.r * 10 if candidates is None else candidates, self.r,
                                      f"trajectories to choose the r = {self.r} most spread from")  # fmt: skip
        self.bounds = check_bounds(bounds)
        self.seed = int(seed)
        self._unit = self._draw()

    @property
    def delta(self) -> float:
        """The step in the unit cube, p / (2 (p - 1))."""
        return self.levels / (2.0 * (self.levels - 1))

    def unit(self) -> np.ndarray:
        """Points in the unit cube, shape `(r (d + 1), d)`."""
        return self._unit.reshape(-1, len(self.bounds))

    def _draw(self) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        d, p = len(self.bounds), self.levels
        starts = rng.integers(0, p // 2, size=(self.candidates, d)) / (p - 1)  # x* + Delta stays inside [0, 1]
        trajectories = np.empty((self.candidates, d + 1, d))
        for m in range(self.candidates):
            up = rng.random(d) < 0.5
            point = starts[m] + np.where(up, 0.0, self.delta)
            trajectories[m, 0] = point
            for k, i in enumerate(rng.permutation(d), 1):
                point = point.copy()
                point[i] += self.delta if up[i] else -self.delta
                trajectories[m, k] = point
        return trajectories[_most_spread(trajectories, self.r)]


def _most_spread(trajectories: np.ndarray, r: int) -> np.ndarray:
    """Indices of `r` trajectories grown greedily to a large Campolongo spread."""
    m = len(trajectories)
    if r == m:
        return np.arange(m)
    k = trajectories.shape[1]
    flat = trajectories.reshape(m * k, -1)
    # d_ml, one trajectory's row at a time (the full point-to-point matrix would be (m k)^2 numbers)
    squared = np.stack([cdist(t, flat).reshape(k, m, k).sum(axis=(0, 2)) for t in trajectories]) ** 2
    first, second = np.unravel_index(np.argmax(squared), squared.shape)
    chosen = [int(first), int(second)]
    while len(chosen) < r:
        gain = squared[:, chosen].sum(axis=1)
        gain[chosen] = -1.0
        chosen.append(int(np.argmax(gain)))
    return np.array(sorted(chosen))
