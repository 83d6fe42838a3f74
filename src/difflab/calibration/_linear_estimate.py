"""The optional hook of `calibrate`'s `"linear"` strategy: a model that can estimate parameters from data alone.

A model whose equations are linear in some parameters once the measured states are known (the conductances of a
cell whose potential is recorded) can solve for them by least squares, without a start and without side minima.
Such a model has a method `linear_estimate(paths, protocol, ts, data, mask)` ([`LinearlyEstimable`][]); every
other model simply lacks it. The hook belongs to calibration, so it is a protocol here rather than a method of
every model (the Hodgkin–Huxley cell implements it, in `difflab.neuron`).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from jaxtyping import Array

__all__ = ["EstimateUnavailable", "LinearlyEstimable", "linear_estimate_of"]


class EstimateUnavailable(ValueError):
    """Raised by a model's `linear_estimate` when the data do not allow its estimate; the message says why."""


@runtime_checkable
class LinearlyEstimable(Protocol):
    """A model with `linear_estimate`: estimates of the parameters at `paths` from measured `data` alone."""

    def linear_estimate(
        self, paths: tuple[str, ...], protocol: Any, ts: Array, data: dict[str, Array], mask: dict[str, Array]
    ) -> dict[str, float] | None:
        """`{path: value}`, or `None` when the estimate does not apply to these parameters.

        `data` and `mask` map state names to one recording `(time, ...)`. Raise `EstimateUnavailable` with the
        reason when these data do not allow the estimate (too coarse, too short).
        """


def linear_estimate_of(model: Any, paths, protocol, ts, data, mask) -> dict[str, float] | None:
    """The model's estimate when it offers one (`LinearlyEstimable`), else `None`."""
    if not isinstance(model, LinearlyEstimable):
        return None
    return model.linear_estimate(paths, protocol, ts, data, mask)
