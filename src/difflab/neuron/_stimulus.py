"""Point current clamps: protocols (nA) injected at named locations of a multi-compartment cell."""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

from ..core import AbstractProtocol


class IClamp(AbstractProtocol):
    r"""Current clamps at points of a cell, like NEURON's `IClamp`: `{location: protocol}` with currents in nA.

    A current $I$ (nA, depolarising when positive) entering a compartment of membrane area $A$ (µm²) adds
    $10^5 I / A$ µA/cm² to its membrane equation. Any difflab protocol drives a clamp
    (`difflab.Step(0.5, 10, 110)`, `difflab.Sampled(...)`); pass the clamp to [`difflab.simulate`][] as the
    protocol of a [`Cell`][difflab.neuron.Cell]. Calling it at `t` gives the currents in location order,
    shape `(..., locations)`.

    Args:
        currents: `{"soma(0.5)": protocol, ...}`; a location is `"section(x)"` with `0 <= x <= 1`. At `x = 0` or
            `1` (a zero-area end node, as NEURON allows) the current flows on into the neighbouring compartments,
            each taking its share $g_j / \sum g$ of the node's axial conductances, and the node's potential
            carries the drop $I / \sum g$.

    Example: `IClamp({"soma(0.5)": difflab.Step(0.3, 5.0, 45.0)})`.
    """

    protocols: tuple[AbstractProtocol, ...]
    locations: tuple[str, ...] = eqx.field(static=True)

    def __init__(self, currents: dict[str, AbstractProtocol]):
        if not isinstance(currents, dict) or not currents:
            raise TypeError(f"currents must be a non-empty dict {{location: protocol}}; got {type(currents).__name__}")
        for where, protocol in currents.items():
            if not isinstance(where, str):
                raise TypeError(f"currents: locations must be strings like 'soma(0.5)'; got {where!r}")
            if not isinstance(protocol, AbstractProtocol):
                raise TypeError(f"currents[{where!r}] must be a difflab protocol; got {type(protocol).__name__}")
        self.locations = tuple(currents)
        self.protocols = tuple(currents.values())

    def __call__(self, t: ArrayLike) -> Array:
        values = [jnp.asarray(p(t)) for p in self.protocols]
        shape = jnp.broadcast_shapes(*(v.shape for v in values))
        return jnp.stack([jnp.broadcast_to(v, shape) for v in values], axis=-1)

    def jump_times(self) -> Array:
        return jnp.sort(jnp.concatenate([jnp.ravel(p.jump_times()) for p in self.protocols]))

    def time_scale(self) -> float:
        return min(p.time_scale() for p in self.protocols)
