r"""What every network of spiking cells shares: its synapse populations, stepped as one, and its spike buffer.

A network holds ``n_cells`` cells, each keeping its last ``buffer`` spike times (ms, newest first; ``-1e4`` where
empty) in the state ``spikes``, and one or more populations of [`AbstractSynapses`][difflab.neuron.AbstractSynapses]
from cell ``pre[k]`` to cell ``post[k]``. The populations' kernel sums are one state, ``"synapses"`` (the
populations one after another), with short-term plasticity, when any population has it, in the state
``"plasticity"``. Both [`Network`][difflab.neuron.Network] (point cells) and
[`CellNetwork`][difflab.neuron.CellNetwork] (multi-compartment cells) are such networks; they differ in where a
synapse's current enters (a cell, or a compartment of a cell) and in the cells' own step.

A step advances all populations in one pass (`advance_synapses`): one gather of the spikes that arrive inside it,
one operation for the decay factors of all populations that share their time constants, each population's
elementwise update. Spikes are upward crossings of ``threshold`` timed by linear interpolation inside the step
(`record_crossings`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

from ..core import AbstractModel
from ..core.internal import is_concrete
from ._plasticity import TsodyksMarkram
from ._solver import _safe_div
from ._synapses import AbstractSynapses, decay_factors, latest_arrival

#: ms: a spike time so far in the past that no kernel reaches the present (an empty place in the buffer)
EMPTY_SPIKE = -1e4


class AbstractSynapticNetwork(AbstractModel):
    """Cells that fire spikes into populations of synapses: the populations' packing, stepping and checks.

    Concrete networks hold ``synapses`` (a tuple of populations), ``n_cells``, ``buffer`` (spike times kept per
    cell) and ``threshold`` (mV).
    """

    synapses: eqx.AbstractVar[tuple[AbstractSynapses, ...]]
    threshold: eqx.AbstractVar[Array]
    n_cells: eqx.AbstractVar[int]
    buffer: eqx.AbstractVar[int]

    def synapse_initial_state(self, dtype) -> dict[str, Array]:
        """The states ``spikes`` (empty), ``synapses`` (no spike so far) and, with plasticity, ``plasticity``."""
        y = {"spikes": jnp.full((self.n_cells, self.buffer), EMPTY_SPIKE, dtype)}
        if not self.synapses:  # cells coupled by gap junctions alone
            return {**y, "synapses": jnp.zeros((0, 1), dtype)}
        y["synapses"] = self.pack_states([syn.initial_state().astype(dtype) for syn in self.synapses])
        if self.plastic():
            y["plasticity"] = jnp.concatenate(
                [TsodyksMarkram.initial_state(len(syn.pre), dtype) for syn in self.synapses]
            )
        return y

    def plastic(self) -> bool:
        """Whether some population has short-term plasticity (then the state ``plasticity`` exists)."""
        return any(syn.plasticity is not None for syn in self.synapses)

    def voltage_dependent(self) -> bool:
        """Whether some population's conductance depends on the postsynaptic potential (NMDA's block)."""
        return any(syn.voltage_dependent for syn in self.synapses)

    def longest_delays(self) -> Array:
        """Each cell's longest outgoing delay (ms; 0 for a cell with no synapse), ``(..., n_cells)``."""
        reach = jnp.zeros((self.n_cells,), self.threshold.dtype)
        for syn in self.synapses:
            delay = jnp.asarray(syn.delay)
            cells = jnp.zeros((*delay.shape[:-1], self.n_cells), delay.dtype)
            reach = jnp.maximum(reach, cells.at[..., np.asarray(syn.pre)].max(delay))
        return reach

    def pack(self, values: Sequence[Array]) -> Array:
        """One per-synapse array (``(..., synapses)`` each, one per population) as one, the populations in order."""
        return _concatenate([jnp.asarray(v) for v in values], trailing=1)

    def components(self) -> int:
        """Numbers carried per synapse: 1 when every kernel is a pure exponential, else 2."""
        return max(syn.components for syn in self.synapses)

    def _rows(self) -> list[slice]:
        """Each population's rows in the packed synapse arrays."""
        bounds = np.cumsum([0] + [len(syn.pre) for syn in self.synapses])
        return [slice(int(lo), int(hi)) for lo, hi in itertools.pairwise(bounds)]

    def pack_states(self, states: Sequence[Array]) -> Array:
        """The populations' states (``(..., synapses, components)``) as the network's one ``synapses`` state.

        A population with fewer components than the widest (an `ExpSynapses` among two-state kinds) fills the
        first column and leaves zeros in the other.
        """
        width = self.components()
        padded = [jnp.pad(s, [(0, 0)] * (s.ndim - 1) + [(0, width - s.shape[-1])]) for s in states]
        return _concatenate(padded, trailing=2)

    def unpack_states(self, state: Array) -> list[Array]:
        """The network's ``synapses`` state as one state per population (the inverse of `pack_states`)."""
        return [state[..., rows, : syn.components] for syn, rows in zip(self.synapses, self._rows(), strict=True)]

    def advance_synapses(self, state: Array, t0: Array, t1: Array, spikes: Array, plastic: Array | None = None):
        """All synapses over ``[t0, t1)``: conductances at ``t0``, their mean, at ``t1`` (µS, packed); the states.

        The states are the kernel sums and the plasticity state ``plastic`` (`TsodyksMarkram.arrive` at each
        arrival's exact time; ``None`` without plasticity).

        As `AbstractSynapses.advance` for every population, with the arrivals of all found by one search. A
        population whose synapses share their time constants (known values, one for all) has its step's decay
        factors as single numbers, and those of all such populations come from one operation; each population
        then steps elementwise with its own number of components.
        """
        h = t1 - t0
        tau = self.pack([syn.time_scale() for syn in self.synapses])
        pre = np.concatenate([np.asarray(syn.pre, dtype=int) for syn in self.synapses])
        x, arrived = latest_arrival(spikes, pre, self.pack([syn.delay for syn in self.synapses]), tau, t0, t1)
        taus = [_shared(syn.time_scale()) for syn in self.synapses]
        cs = [_shared(syn.form()[2]) for syn in self.synapses]
        factors = [decay_factors(c, h / t) for c, t in zip(cs, taus, strict=True)]
        one = [k for k, (c, t) in enumerate(zip(cs, taus, strict=True)) if jnp.ndim(c) == jnp.ndim(t) == 0]
        if len(one) > 1:  # one operation for all populations' numbers
            joint = decay_factors(jnp.stack([cs[k] for k in one]), h / jnp.stack([taus[k] for k in one]))
            for i, k in enumerate(one):
                factors[k] = (joint[0][i], joint[1][i], joint[2][i])
        amplitudes, plastic1 = self._arrive(plastic, t1 - x * tau, arrived)
        parts = [
            syn.step_state(s, f, x[..., rows], arrived[..., rows], amplitude)
            for syn, s, f, rows, amplitude in zip(
                self.synapses, self.unpack_states(state), factors, self._rows(), amplitudes, strict=True
            )
        ]
        g0, mean, g1 = (self.pack([p[j] for p in parts]) for j in range(3))
        return g0, mean, g1, self.pack_states([p[3] for p in parts]), plastic1

    def _arrive(self, plastic: Array | None, t: Array, arrived: Array) -> tuple[list[Array | None], Array | None]:
        """Each population's arrival amplitudes (``None``: no plasticity) and the new plasticity state."""
        amplitudes: list[Array | None] = [None] * len(self.synapses)
        if plastic is None:
            return amplitudes, None
        amplitudes, rows_out = [], []
        for syn, rows in zip(self.synapses, self._rows(), strict=True):
            if syn.plasticity is None:
                amplitudes.append(None)
                rows_out.append(plastic[..., rows, :])
                continue
            amplitude, new = syn.plasticity.arrive(plastic[..., rows, :], t[..., rows], arrived[..., rows])
            amplitudes.append(amplitude)
            rows_out.append(new)
        return amplitudes, _concatenate(rows_out, trailing=2)


def _concatenate(arrays: list[Array], trailing: int) -> Array:
    """``arrays`` joined along the synapse axis, the ``trailing``-th from the end, leading (batch) axes broadcast."""
    if len(arrays) == 1:
        return arrays[0]
    batch = jnp.broadcast_shapes(*(a.shape[:-trailing] for a in arrays))
    return jnp.concatenate([jnp.broadcast_to(a, (*batch, *a.shape[-trailing:])) for a in arrays], axis=-trailing)


def _shared(values: Array) -> Array:
    """A population's per-synapse values as one number when they are known and all equal, else as they are."""
    if not is_concrete(values) or jnp.ndim(values) != 1:
        return values
    first = np.asarray(values)[0]
    return jnp.asarray(values)[0] if np.all(np.asarray(values) == first) else values


def record_crossings(spikes: Array, V0: Array, V1: Array, threshold: Array, t0: Array, h: Array,
                     slopes: tuple[Array, Array] | None = None) -> tuple[Array, Array]:  # fmt: skip
    r"""The spike buffer after a step from ``V0`` to ``V1`` (mV, ``(..., n_cells)``) and which cells crossed.

    A crossing is ``V0 < threshold <= V1``; its time enters the buffer ``spikes`` (``(..., n_cells, buffer)``) at
    the front, pushing out the oldest. The time is the root of the step's cubic Hermite potential when ``slopes``
    ($h\,dV/dt$ at both ends, the dense output's) are given, else the linear interpolation's; see
    `hermite_crossing`.
    """
    crossed = (V0 < threshold) & (V1 >= threshold)
    s = _safe_div(threshold - V0, V1 - V0, crossed)
    if slopes is not None:
        s = hermite_crossing(s, V0, V1, *slopes, threshold, crossed)
    t_cross = t0 + h * s
    shifted = jnp.concatenate([t_cross[..., None], spikes[..., :-1]], axis=-1)
    return jnp.where(crossed[..., None], shifted, spikes), crossed


def hermite_crossing(s: Array, V0: Array, V1: Array, k0: Array, k1: Array, threshold: Array, crossed: Array) -> Array:
    r"""The crossing's place $s \in [0, 1]$ in the step on the cubic Hermite potential, by two Newton steps from ``s``.

    $p(s) = (2s^3 - 3s^2 + 1)V_0 + (s^3 - 2s^2 + s)k_0 + (3s^2 - 2s^3)V_1 + (s^3 - s^2)k_1$, with $k = h\,dV/dt$
    at the ends. The linear interpolation's error in time is of order $h^2 V''/V'$ at the crossing, and a chain of
    synapses adds it up cycle after cycle; the cubic's is of order $h^4$.
    """
    for _ in range(2):
        s2 = s * s
        s3 = s2 * s
        p = (2 * s3 - 3 * s2 + 1) * V0 + (s3 - 2 * s2 + s) * k0 + (3 * s2 - 2 * s3) * V1 + (s3 - s2) * k1
        dp = (6 * s2 - 6 * s) * (V0 - V1) + (3 * s2 - 4 * s + 1) * k0 + (3 * s2 - 2 * s) * k1
        s = jnp.clip(s - _safe_div(p - threshold, dp, crossed & (dp > 0)), 0.0, 1.0)
    return s


def refuse_short_delays(net: AbstractSynapticNetwork, value: Array, dt: Array, name: str) -> Array:
    """``value``, failing the solve (`equinox.error_if`) when a synaptic delay is shorter than the step ``dt``."""
    if not net.synapses:
        return value
    # a delay shorter than the step would deliver its spike a step late, silently: refused
    shortest = jnp.min(jnp.stack([jnp.min(jnp.asarray(syn.delay)) for syn in net.synapses]))
    return eqx.error_if(
        value, shortest < dt * (1 - 1e-9),
        f"{name}: a synaptic delay is shorter than the solver's step dt0, so its spikes would arrive a step "
        "late; pass dt0 at most the shortest delay (ms)",
    )  # fmt: skip


def refuse_lost_spikes(net: AbstractSynapticNetwork, spikes1: Array, spikes0: Array, crossed: Array, reach: Array,
                       t1: Array, name: str) -> Array:  # fmt: skip
    """``spikes1``, failing the solve when a spike leaves a full buffer before it has arrived at every synapse.

    ``reach`` is each cell's longest outgoing delay (ms, `AbstractSynapticNetwork.longest_delays`).
    """
    lost = crossed & (spikes0[..., -1] + reach >= t1)  # the dropped spike has not arrived everywhere
    return eqx.error_if(
        spikes1, jnp.any(lost),
        f"{name}: a cell fired more spikes within its longest outgoing delay than buffer={net.buffer} keeps, "
        f"so one would be lost before arriving; pass a larger buffer to {name}",
    )  # fmt: skip
