"""Quadrature points on a triangle for the receiving-ratio integral."""

from __future__ import annotations

import numpy as np


def barycentric_grid(n: int) -> np.ndarray:
    """Barycentric coordinates of the centroids of the n² congruent sub-triangles of an n-fold subdivision.

    Every point carries the same weight 1/n² (midpoint rule on equal-area cells), so the mean of a function over
    the points approximates its mean over the triangle; for the discontinuous hit indicator the error falls like
    1/n. Returns an (n², 3) array whose rows sum to 1.
    """
    if int(n) != n or n < 1:
        raise ValueError(f"n (subdivisions per edge) must be a positive integer, got {n!r}")
    pts = []
    for i in range(n):
        for j in range(n - i):
            pts.append(((i + 1 / 3) / n, (j + 1 / 3) / n))
            if i + j <= n - 2:
                pts.append(((i + 2 / 3) / n, (j + 2 / 3) / n))
    ab = np.asarray(pts)
    return np.column_stack([1.0 - ab.sum(axis=1), ab])
