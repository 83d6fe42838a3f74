r"""Networks of Hodgkin–Huxley point cells coupled by synapses, as one model, and their solver.

Cell $i$ (membrane area $A$ µm²) obeys the point cell's equation plus its synaptic currents:

$$C \frac{dV_i}{dt} = I_i(t) - \sum_c G_c (V_i - E_c)
  - \frac{10^5}{A}\sum_{k:\,\text{post}_k = i} g_k(t)\,(V_i - E_k),$$

$I_i$ in µA/cm² (the protocol's value, one per cell or shared), $g_k$ in µS (see `AbstractSynapses`). A spike
is an upward crossing of ``threshold`` (mV), timed by linear interpolation inside the step; each cell keeps its
last ``buffer`` spike times in the state ``spikes`` (ms, ``-1e4`` where empty), newest first, until they have
arrived at all its synapses. The synapses carry their conductances as one state, ``"synapses"`` (the kernel
sums of `AbstractSynapses`, conductance / weight; the populations one after another), decayed in closed form
every step, with the spikes that arrive inside the step added at their exact times. The buffer must hold the
spikes a cell fires within its longest outgoing delay (4 covers 4 spikes in that time); a spike that would leave
it before arriving everywhere stops the solve with an error naming ``buffer``.

The solver [`NetworkRushLarsenCN`][difflab.neuron.NetworkRushLarsenCN] is the point cell's scheme with the
synaptic conductances' exact means over the step added to the channels' Simpson averages (a spike arriving
inside a step makes a conductance jump, which Simpson's rule would smear into a first-order error) and the
Crank–Nicolson voltage update (`network_step` says why), then spike detection; a delay must be at least one
step, so that no spike acts inside the step that found it. Its steps
are constant (the default controller): then at most one spike arrives per synapse and step (see
`AbstractSynapses.advance`).

**One pass over all synapses.** The step treats the populations as one: one gather of the spikes that arrive
(`latest_arrival`), one operation for the decay factors of all populations that share their time constants,
each population's elementwise update, and one scatter onto the cells, with one state array. Its number of
kernels (XLA's compiled units) then grows little with the populations (41, 48 and 54 for one, two and three in
`benchmarks/network_xla_graph.py`), and how many can be ready at once not at all; on the CPU that matters
beyond the work itself (see `NetworkRushLarsenCN`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ..core import StateInfo
from ..core.internal import raise_if_unphysical
from ._hodgkin_huxley import HodgkinHuxley
from ._solver import AbstractVoltageStepSolver, crank_nicolson_coefficient, rush_larsen_cn_step
from ._synapses import AbstractSynapses
from ._synaptic_network import (
    AbstractSynapticNetwork,
    record_crossings,
    refuse_lost_spikes,
    refuse_short_delays,
)

_DENSITY = 1e5


class Network(AbstractSynapticNetwork):
    """``n_cells`` Hodgkin–Huxley point cells (parameters of shape ``(n_cells,)`` or shared scalars) and synapses.

    Args:
        cells: a [`HodgkinHuxley`][difflab.neuron.HodgkinHuxley] whose parameters are scalars or ``(n_cells,)``.
        synapses: one or more `ExpSynapses` / `AlphaSynapses` / `Exp2Synapses` / `NMDASynapses` (kinds may be
            mixed, each with or without `TsodyksMarkram` plasticity), indices in ``[0, n_cells)``.
        n_cells: number of cells.
        area: membrane area of every cell (µm²); 100 µm² makes 1 nA equal 1000 µA/cm².
        threshold: spike threshold (mV).
        buffer: spike times kept per cell until they have arrived (at least the spikes a cell fires within its
            longest outgoing delay).

    States: ``V``, the gates (``(n_cells,)`` each), ``spikes`` (``(n_cells, buffer)``) and ``synapses``
    (``(synapses, components)``: the kernel sums $B$, $D$ of `AbstractSynapses`' family, all populations one
    after another; one component, $B$, when all are `ExpSynapses`, and their first column among other kinds),
    and with plasticity ``plasticity`` (``(synapses, 3)``: $u$, $R$ and the last arrival in ms, every synapse
    of every population, the static ones left at $0, 1$ and no arrival).
    Parameters by name: the cells' (``"cells.channels.na.gbar"``, aliases ``gNa`` …) and
    ``"synapses.0.weight"``, ``"synapses.0.delay"`` … of each population.
    """

    cells: HodgkinHuxley
    synapses: tuple[AbstractSynapses, ...]
    area: Array
    threshold: Array
    n_cells: int = eqx.field(static=True)
    buffer: int = eqx.field(static=True)

    time_units: ClassVar[str] = "ms"
    aliases: ClassVar[dict[str, str]] = {f"{k}": f"cells.{v}" for k, v in HodgkinHuxley.aliases.items()}

    def __init__(self, cells: HodgkinHuxley, synapses, n_cells: int, *, area: ArrayLike = 100.0,
                 threshold: ArrayLike = 0.0, buffer: int = 4):  # fmt: skip
        if not isinstance(cells, HodgkinHuxley):
            raise TypeError(f"cells must be a HodgkinHuxley; got {type(cells).__name__}")
        synapses = (synapses,) if isinstance(synapses, AbstractSynapses) else tuple(synapses)
        if not all(isinstance(s, AbstractSynapses) for s in synapses):
            raise TypeError(
                "synapses must be AbstractSynapses (ExpSynapses, AlphaSynapses, Exp2Synapses, NMDASynapses) or a "
                "sequence of them"
            )
        if not (isinstance(n_cells, int) and n_cells >= 1):
            raise ValueError(f"n_cells must be an integer >= 1; got {n_cells!r}")
        if isinstance(buffer, bool) or not isinstance(buffer, int | np.integer) or buffer < 1:
            raise ValueError(f"buffer must be an integer >= 1 (spike times kept per cell); got {buffer!r}")
        for k, syn in enumerate(synapses):
            for side in ("pre", "post"):
                idx = np.asarray(getattr(syn, side), dtype=int)
                bad = idx[(idx < 0) | (idx >= n_cells)]
                if bad.size:
                    raise ValueError(
                        f"synapses[{k}].{side} names cell {int(bad[0])}, which is not in the network "
                        f"(cells 0..{n_cells - 1})"
                    )
        shape = cells.batch_shape()
        if shape not in ((), (n_cells,)):
            raise ValueError(f"cells' parameters must be scalars or ({n_cells},) (one per cell); got {shape}")
        # the synapses, area and threshold in the cells' precision: a float32 network stays float32
        dtype = jnp.result_type(cells.C)
        synapses = tuple(jax.tree.map(lambda x: jnp.asarray(x, dtype), syn) for syn in synapses)
        self.cells, self.synapses, self.n_cells, self.buffer = cells, synapses, n_cells, int(buffer)
        self.area = jnp.asarray(area, dtype=dtype)
        self.threshold = jnp.asarray(threshold, dtype=dtype)
        raise_if_unphysical(self.physical_checks())  # a zero area or threshold NaN, refused at construction

    # equinox lets a property implement the AbstractClassVar `states` (mypy reads it as a plain ClassVar)
    @property
    def states(self) -> tuple[StateInfo, ...]:  # type: ignore[override]
        spikes = StateInfo("spikes", "ms", "last spike times per cell, newest first")
        kernels = StateInfo("synapses", "1", "kernel sums of the synapses, populations in order (conductance / weight)")
        if not self.plastic():
            return (*self.cells.states, spikes, kernels)
        plasticity = StateInfo("plasticity", "1", "u, R and last arrival (ms) of each synapse, populations in order")
        return (*self.cells.states, spikes, kernels, plasticity)

    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        """Finite parameters, the cells' constraints, a positive area, and each synapse population's constraints.

        Finite parameters as in `AbstractModel`; the synapses' under their path. A constraint reads, for example,
        ``"gNa must be >= 0 mS/cm^2"``, ``"cells.C must be > 0 uF/cm^2"`` or ``"synapses.0.delay must be > 0 ms"``
        (see `HodgkinHuxley.physical_checks` and `AbstractSynapses.physical_checks`).
        """
        checks = super().physical_checks()
        for message, check in self.cells.physical_checks().items():
            name, rest = message.split(" ", 1)
            # the cells' aliases (gNa, ...) are the network's too; their other names live under "cells."
            checks.setdefault(message if name in self.aliases else f"cells.{name} {rest}", check)
        checks["area must be > 0 um^2"] = (~(self.area <= 0), self.area)
        for k, syn in enumerate(self.synapses):
            checks.update({f"synapses.{k}.{message}": check for message, check in syn.physical_checks().items()})
        return checks

    def initial_state(self) -> dict[str, Array]:
        y = {k: jnp.broadcast_to(v, (self.n_cells,)) for k, v in self.cells.initial_state().items()}
        return {**y, **self.synapse_initial_state(y["V"].dtype)}

    def blocks(self, V: Array) -> Array:
        """Each synapse's conductance factor at the postsynaptic potentials ``V`` (``(..., n_cells)``, mV), packed."""
        return self.pack([syn.block(V[..., np.asarray(syn.post)]) for syn in self.synapses])

    def cell_state(self, y: dict[str, Array]) -> dict[str, Array]:
        """The cells' own states: ``V`` and the gates."""
        return {k: v for k, v in y.items() if k not in ("spikes", "synapses", "plasticity")}

    def to_cells(self, quantities: Sequence[Array]) -> list[tuple[Array, Array]]:
        """Sum per-synapse conductances onto their cells: ``G`` (mS/cm²) and ``G·E`` (µA/cm²) per cell.

        ``quantities`` holds, for each quantity (say the conductance at a step's start, its mean and its end
        value), the values of all synapses (µS, ``(..., synapses)``, packed as by `pack`); one scatter carries
        them all.
        """
        scale = (_DENSITY / self.area)[..., None, None, None]
        g = jnp.stack(list(quantities), axis=-1)  # (..., synapses, m)
        E = self.pack([syn.E for syn in self.synapses])
        by = jnp.stack([jnp.ones_like(E), E], axis=-1)  # (..., synapses, 2): G and G·E
        # an outer product, not a concatenation: XLA emits a concatenation element by element with a branch per
        # operand, the product as one vectorised loop (the scatter's input cost half as much)
        columns = by[..., :, None] * g[..., None, :] * scale  # (..., synapses, 2, m)
        cells = jnp.zeros((*columns.shape[:-3], self.n_cells, 2, len(quantities)), columns.dtype)
        post = np.concatenate([np.asarray(syn.post, dtype=int) for syn in self.synapses])
        total = cells.at[..., post, :, :].add(columns)
        return [(total[..., 0, j], total[..., 1, j]) for j in range(len(quantities))]

    def synaptic_conductance(self, y: dict[str, Array]) -> tuple[Array, Array]:
        """The synapses' ``G`` (mS/cm²) and ``G·E`` (µA/cm²) per cell in the state ``y`` (blocks at its ``V``)."""
        states = self.unpack_states(y["synapses"])
        g = self.pack([syn.weight * syn.state_kernel(s) for syn, s in zip(self.synapses, states, strict=True)])
        if self.voltage_dependent():
            g = g * self.blocks(y["V"])
        return self.to_cells([g])[0]

    def vector_field(self, t, y, args):
        """The membrane equations between spike arrivals (spike detection and arrivals are the solver's)."""
        G, GE = self.synaptic_conductance(y)
        I = 0.0 if args is None else args(t)
        dy = self.cells.vector_field(t, self.cell_state(y), None)
        dy["V"] = dy["V"] + (I + GE - G * y["V"]) / self.cells.C
        dy["spikes"] = jnp.zeros_like(y["spikes"])
        states = self.unpack_states(y["synapses"])
        dy["synapses"] = self.pack_states(
            [syn.state_derivative(s) for syn, s in zip(self.synapses, states, strict=True)]
        )
        if "plasticity" in y:  # event-driven: it changes at arrivals only
            dy["plasticity"] = jnp.zeros_like(y["plasticity"])
        return dy

    def default_solver(self):
        return NetworkRushLarsenCN()

    def default_stepsize_controller(self):
        return diffrax.ConstantStepSize()

    def default_dt0(self) -> float:
        """0.025 ms (NEURON's default step; a synaptic delay must be at least one step)."""
        return 0.025


def network_step(net: Network, protocol, t0, h, y0, V_prev, h_prev, start=None):
    """One step of the point cells' scheme with synaptic conductances, then spike detection.

    ``start`` is the synapses' ``(G, GE)`` per cell at ``t0`` when known (the last step's end values), else
    computed from ``y0``. Returns the solver's `(y1, err, dense)`, which cells crossed the threshold in the step,
    and the synapses' ``(G, GE)`` at its end.
    """
    spikes = y0["spikes"]
    t1 = t0 + h  # exact: diffrax's h = t1 - t0 is (Sterbenz) for every step from t = 0 on
    # synapses: their states over the step, with the spikes arriving inside it at their exact times
    _, g_mean, g_end, synapses1, plastic1 = net.advance_synapses(y0["synapses"], t0, t1, spikes, y0.get("plasticity"))
    start = net.synaptic_conductance(y0) if start is None else start
    if net.voltage_dependent():
        # a voltage-dependent block (NMDA's) at the potential where the scheme evaluates the channels' rates:
        # the mean at the predicted mid-point potential, the end at the solved one (the step calls them so)
        def mean(V):
            return net.to_cells([g_mean * net.blocks(V)])[0]

        def end_at(V):
            return net.to_cells([g_end * net.blocks(V)])[0]

        extra: tuple = (start, mean, end_at)
    else:
        extra = (start, *net.to_cells([g_mean, g_end]))
    # the point cells' step, with the synapses' exact mean over the step in place of Simpson's rule. Crank–Nicolson
    # for V: with the exponential update of single cells the shipped Exp2Syn network's worst spike moved from
    # 0.032 to 0.064 ms against NEURON at 0.025 ms (0.022 → 0.032 ms at 0.0125 ms; the ExpSyn network's improved,
    # 0.023 → 0.015 ms)
    cells1, cells_err, (_, _, k0, k1) = rush_larsen_cn_step(
        net.cells, protocol, t0, h, net.cell_state(y0), V_prev, h_prev, extra, crank_nicolson_coefficient
    )
    V0, V1 = y0["V"], cells1["V"]
    end = extra[2](V1) if callable(extra[2]) else extra[2]  # the step's own call with V1: XLA computes it once
    # spikes: upward crossings of the threshold, timed by linear interpolation
    spikes1, crossed = record_crossings(spikes, V0, V1, net.threshold, t0, h)
    y1 = {**cells1, "spikes": spikes1, "synapses": synapses1}
    if plastic1 is not None:
        y1["plasticity"] = plastic1
    err = {k: cells_err[k] if k in cells_err else jnp.zeros_like(v) for k, v in y1.items()}
    return y1, err, (y0, y1, k0, k1), crossed, end


class NetworkRushLarsenCN(AbstractVoltageStepSolver):
    """The point cells' Rush–Larsen / Crank–Nicolson step with synapses and spike detection; for `Network`.

    Its state holds each cell's longest outgoing delay, so that a spike pushed out of a full buffer before it has
    arrived at all of the cell's synapses stops the solve (an `equinox.error_if` naming ``buffer``) instead of
    being lost, and, stacked as one ``(4, ..., n_cells)`` array, what the step takes from the last one: the
    potential and the step size (one value per cell, all equal) for the predictor, and the synapses' ``G`` and
    ``G·E`` per cell at the step's start (the last step's end values: one scatter onto the cells fewer per step).

    **Why one array, and one pass over the synapses.** XLA runs the loop's step on the CPU as a graph of
    kernels, each started when its inputs are ready, and whenever more than 8 wait behind the one it runs it
    hands half of them to another thread, in every step. For kernels of a few thousand numbers that hand-off
    costs more than their work: a step of the 100-cell, 1000-synapse network takes about 26 µs when no more
    than 8 ever wait and 35–45 µs when more do (2-core CPU; `benchmarks/network_xla_graph.py` reads and replays
    the graph). The kernels ready at a step's start are mostly copies of the carried arrays that the step reads
    after writing their successors, one per array: four history arrays would be four copies, one is one. And
    kernels that need only the step's time would come one set per population if the populations were stepped
    apart (`Network.advance_synapses` steps them in one pass). With both, every network measured (one to three
    populations, any kinds, float32 and float64, constant or traced weights, an input on a uniform grid) has at
    most 8 waiting.
    """

    def advance(self, model, protocol, t0, h, y0, V_prev, h_prev):
        return network_step(model, protocol, t0, h, y0, V_prev, h_prev)[:3]

    def init(self, terms, t0, t1, y0, args):
        net = args[0]
        V0 = y0["V"]
        history = _history(V0, jnp.zeros((), V0.dtype), *net.synaptic_conductance(y0))
        history = refuse_short_delays(net, history, t1 - t0, "Network")
        return jax.lax.stop_gradient(net.longest_delays()), history

    def step(self, terms, t0, t1, y0, args, solver_state, made_jump):
        model, protocol = args
        reach, (V_prev, h_prev, G, GE) = solver_state
        h = t1 - t0
        h_prev = jnp.where(made_jump, jnp.zeros_like(h_prev), h_prev)  # a jump leaves the smooth branch
        y1, err, (ya, yb, k0, k1), crossed, end = network_step(model, protocol, t0, h, y0, V_prev, h_prev, (G, GE))
        y1["spikes"] = refuse_lost_spikes(model, y1["spikes"], y0["spikes"], crossed, reach, t1, "Network")
        new_state = (reach, _history(y0["V"], h, *end))
        return y1, err, dict(y0=ya, y1=yb, k0=k0, k1=k1), new_state, diffrax.RESULTS.successful


def _history(V, h, G, GE) -> Array:
    """``(V, h, G, GE)`` of a step's start as one ``(4, ..., n_cells)`` array (``h`` broadcast, in V's dtype)."""
    return jnp.stack(jnp.broadcast_arrays(V, jnp.asarray(h, V.dtype), G, GE))
