"""A plain NumPy implementation of the FAST receiving ratio η (the same model as difflab.reflector).

Used by ``fast_benchmark.py`` as the peer: same panels, same barycentric samples, same spherical caps, same hit
test, written with NumPy arrays and no JAX.
"""

from __future__ import annotations

import numpy as np


def cap_centres(v: np.ndarray, radius: float) -> np.ndarray:
    a, b = v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]
    axb = np.cross(a, b)
    n2 = np.einsum("ij,ij->i", axb, axb)
    normal = axb / np.sqrt(n2)[:, None]
    centroid = v.mean(axis=1)
    normal *= np.where(np.einsum("ij,ij->i", normal, centroid) > 0, -1.0, 1.0)[:, None]
    offset = np.cross(np.einsum("ij,ij->i", a, a)[:, None] * b - np.einsum("ij,ij->i", b, b)[:, None] * a, axb)
    offset /= (2.0 * n2)[:, None]
    rc2 = np.einsum("ij,ij->i", offset, offset)
    return v[:, 0] + offset + np.sqrt(radius**2 - rc2)[:, None] * normal


def receiving_ratio(v: np.ndarray, s: np.ndarray, focus: np.ndarray, radius: float, weights: np.ndarray) -> float:
    """η for panel vertices ``v`` (k, 3, 3), direction s, feed centre ``focus`` and barycentric ``weights``."""
    d = -s
    centre = cap_centres(v, radius)
    pts = np.einsum("mj,kjc->kmc", weights, v)
    rel = pts - centre[:, None, :]
    beta = rel @ d
    gamma = np.einsum("kmc,kmc->km", rel, rel) - radius**2
    sign = np.where(beta >= 0, 1.0, -1.0)
    t = -gamma / (beta + sign * np.sqrt(np.maximum(beta**2 - gamma, 0.0)))
    hit = pts + t[..., None] * d
    n = (centre[:, None, :] - hit) / radius
    r = d - 2.0 * (n @ d)[..., None] * n
    rs = r @ s
    forward = rs > 0
    tau = ((focus - hit) @ s) / np.where(forward, rs, 1.0)
    q = hit + tau[..., None] * r
    got = (np.linalg.norm(q - focus, axis=-1) <= 0.5) & forward
    area = 0.5 * np.abs(np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]) @ s)
    return float(np.sum(area * got.mean(axis=1)) / np.sum(area))
