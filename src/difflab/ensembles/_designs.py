"""Designs of parameter studies: full grids, and random / Latin-hypercube / Sobol samples.

A grid gives one dimension per parameter in the result; a sample design gives one `sample`
dimension with the parameter values as coordinates. Sampled designs draw in the unit cube
(`scipy.stats.qmc`) and scale to `bounds` (optionally logarithmically).
"""

from __future__ import annotations

import abc
import dataclasses
import hashlib
import math
from collections.abc import Mapping

import numpy as np
from scipy.stats import qmc


class AbstractDesign(abc.ABC):
    """A finite set of parameter points."""

    @abc.abstractmethod
    def points(self) -> dict[str, np.ndarray]:
        """Parameter name -> values, one entry per point (all of length `len(self)`)."""

    @property
    @abc.abstractmethod
    def is_grid(self) -> bool:
        """True when the result gets one dimension per parameter."""

    def __len__(self) -> int:
        return len(next(iter(self.points().values())))

    def fingerprint(self) -> str:
        """sha256 of the points (to refuse mixing chunks of different designs)."""
        digest = hashlib.sha256(type(self).__name__.encode())
        for name, values in sorted(self.points().items()):
            digest.update(name.encode())
            digest.update(np.ascontiguousarray(values, dtype=float).tobytes())
        return digest.hexdigest()


class Grid(AbstractDesign):
    """The full product of per-parameter values: `Grid(gNa=np.linspace(60, 180, 41), gK=...)`.

    The first parameter varies slowest; the result has dims in the order given.
    """

    def __init__(self, **values):
        if not values:
            raise ValueError("Grid needs at least one parameter, e.g. Grid(gNa=[100.0, 120.0])")
        self.values = {}
        for name, v in values.items():
            arr = np.asarray(v, dtype=float)
            if arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all():
                raise ValueError(f"Grid values for {name!r} must be a non-empty finite 1-D array; got {v!r}")
            self.values[name] = arr

    @property
    def is_grid(self) -> bool:
        return True

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(v) for v in self.values.values())

    def points(self):
        mesh = np.meshgrid(*self.values.values(), indexing="ij")
        return {name: m.ravel() for name, m in zip(self.values, mesh)}


class AbstractUnitCubeDesign(AbstractDesign):
    """A design drawn in the unit cube (`unit()`, shape `(points, parameters)`) and mapped onto `bounds`.

    Each column goes linearly onto its `(lo, hi)`, or log-uniformly for the names in `log`.
    """

    bounds: Mapping[str, tuple[float, float]]
    log: tuple[str, ...] = ()

    @property
    def is_grid(self) -> bool:
        return False

    @property
    def names(self) -> list[str]:
        return list(self.bounds)

    @abc.abstractmethod
    def unit(self) -> np.ndarray:
        """Points in the unit cube, shape `(points, parameters)`."""

    def points(self):
        u = self.unit()
        out = {}
        for j, (name, (lo, hi)) in enumerate(self.bounds.items()):
            if name in self.log:
                out[name] = np.exp(np.log(lo) + u[:, j] * (np.log(hi) - np.log(lo)))
            else:
                out[name] = lo + u[:, j] * (hi - lo)
        return out


@dataclasses.dataclass
class _Sampled(AbstractUnitCubeDesign):
    n: int
    bounds: Mapping[str, tuple[float, float]]
    seed: int = 0
    log: tuple[str, ...] = ()

    def __post_init__(self):
        if self.n < 1:
            raise ValueError(f"n must be >= 1; got {self.n}")
        if not self.bounds:
            raise ValueError("bounds must name at least one parameter: {name: (lo, hi)}")
        for name, (lo, hi) in self.bounds.items():
            if not lo < hi:
                raise ValueError(f"bounds[{name!r}] needs lo < hi; got ({lo}, {hi})")
            if name in self.log and lo <= 0:
                raise ValueError(f"bounds[{name!r}] must be > 0 for a logarithmic scale; got ({lo}, {hi})")


class RandomDesign(_Sampled):
    """`n` independent uniform draws inside `bounds` (`log`: names drawn log-uniformly)."""

    def unit(self):
        return np.random.default_rng(self.seed).random((self.n, len(self.bounds)))


class LatinHypercube(_Sampled):
    """A Latin hypercube of `n` points (`scipy.stats.qmc.LatinHypercube`)."""

    def unit(self):
        return qmc.LatinHypercube(d=len(self.bounds), seed=self.seed).random(self.n)


class Sobol(_Sampled):
    """The first `n` points of a scrambled Sobol sequence (`n` must be a power of 2)."""

    def __post_init__(self):
        super().__post_init__()
        if self.n & (self.n - 1):
            raise ValueError(
                f"Sobol needs n a power of 2 (balance properties); got {self.n}, "
                f"e.g. use {2 ** math.ceil(math.log2(self.n))}"
            )

    def unit(self):
        return qmc.Sobol(d=len(self.bounds), scramble=True, seed=self.seed).random_base2(int(math.log2(self.n)))
