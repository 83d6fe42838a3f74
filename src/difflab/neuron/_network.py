r"""Networks of Hodgkin–Huxley point cells coupled by synapses, as one model, and their solver.

Cell $i$ (membrane area $A$ µm²) obeys the point cell's equation plus its synaptic currents:

$$C \frac{dV_i}{dt} = I_i(t) - \sum_c G_c (V_i - E_c)
  - \frac{10^5}{A}\sum_{k:\,\text{post}_k = i} g_k(t)\,(V_i - E_k),$$

$I_i$ in µA/cm² (the protocol's value, one per cell or shared), $g_k$ in µS (see `AbstractSynapses`). A spike
is an upward crossing of ``threshold`` (mV), timed by linear interpolation inside the step; each cell keeps its
last ``buffer`` spike times in the state ``spikes`` (ms, ``-1e4`` where empty), newest first, which the
synapses read. Keep the buffer longer than the spikes a cell fires within the longest delay plus ten synaptic
time constants (8 covers 100 Hz with delays and τ of a few ms).

The solver [`NetworkRushLarsenCN`][difflab.neuron.NetworkRushLarsenCN] is the point cell's scheme with the
synaptic conductances' exact means over the step added to the channels' Simpson averages (a spike arriving
inside a step makes a conductance jump, which Simpson's rule would smear into a first-order error), then spike
detection; a delay must be at least one step, so that no spike acts inside the step that found it.
"""

from __future__ import annotations

from typing import ClassVar

import diffrax
import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ..core import AbstractModel, StateInfo
from ._cell import HodgkinHuxley
from ._solver import AbstractVoltageStepSolver, _relaxation_factor, _safe_div
from ._synapses import AbstractSynapses

_DENSITY = 1e5
_EMPTY = -1e4  # ms: a spike time so far in the past that no kernel reaches the present


class Network(AbstractModel):
    """``n_cells`` Hodgkin–Huxley point cells (parameters of shape ``(n_cells,)`` or shared scalars) and synapses.

    Args:
        cells: a [`HodgkinHuxley`][difflab.neuron.HodgkinHuxley] whose parameters are scalars or ``(n_cells,)``.
        synapses: one or more `ExpSynapses` / `AlphaSynapses` / `Exp2Synapses` (kinds may be mixed), indices in
            ``[0, n_cells)``.
        n_cells: number of cells.
        area: membrane area of every cell (µm²); 100 µm² makes 1 nA equal 1000 µA/cm².
        threshold: spike threshold (mV).
        buffer: spike times kept per cell.

    States: ``V``, the gates (``(n_cells,)`` each) and ``spikes`` (``(n_cells, buffer)``).
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
                 threshold: ArrayLike = 0.0, buffer: int = 8):  # fmt: skip
        if not isinstance(cells, HodgkinHuxley):
            raise TypeError(f"cells must be a HodgkinHuxley; got {type(cells).__name__}")
        synapses = (synapses,) if isinstance(synapses, AbstractSynapses) else tuple(synapses)
        if not all(isinstance(s, AbstractSynapses) for s in synapses):
            raise TypeError(
                "synapses must be AbstractSynapses (ExpSynapses, AlphaSynapses, Exp2Synapses) or a sequence of them"
            )
        if not (isinstance(n_cells, int) and n_cells >= 1):
            raise ValueError(f"n_cells must be an integer >= 1; got {n_cells!r}")
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
        self.cells, self.synapses, self.n_cells, self.buffer = cells, synapses, n_cells, int(buffer)
        self.area = jnp.asarray(area, dtype=float)
        self.threshold = jnp.asarray(threshold, dtype=float)

    # equinox lets a property implement the AbstractClassVar `states` (mypy reads it as a plain ClassVar)
    @property
    def states(self) -> tuple[StateInfo, ...]:  # type: ignore[override]
        spikes = StateInfo("spikes", "ms", "last spike times per cell, newest first")
        return (*self.cells.states, spikes)

    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        """Finite parameters (see `AbstractModel`) and each synapse population's constraints under its path.

        A constraint reads, for example, ``"synapses.0.delay must be > 0 ms"`` (see
        `AbstractSynapses.physical_checks`).
        """
        checks = super().physical_checks()
        for k, syn in enumerate(self.synapses):
            checks.update({f"synapses.{k}.{message}": check for message, check in syn.physical_checks().items()})
        return checks

    def initial_state(self) -> dict[str, Array]:
        y = {k: jnp.broadcast_to(v, (self.n_cells,)) for k, v in self.cells.initial_state().items()}
        y["spikes"] = jnp.full((self.n_cells, self.buffer), _EMPTY, y["V"].dtype)
        return y

    def synaptic_conductance(self, t, spikes, t1=None) -> tuple[Array, Array]:
        """``G`` (mS/cm²) and ``G·E`` (µA/cm²) of the synapses onto each cell at ``t``.

        When ``t1`` is given, both are the mean over ``[t, t1]``.
        """
        G = jnp.zeros(spikes.shape[:-1], spikes.dtype)
        GE = jnp.zeros_like(G)
        scale = _DENSITY / self.area
        for syn in self.synapses:
            g = (syn.conductance(t, spikes) if t1 is None else syn.mean_conductance(t, t1, spikes)) * scale
            post = np.asarray(syn.post)
            G, GE = G.at[..., post].add(g), GE.at[..., post].add(g * syn.E)
        return G, GE

    def vector_field(self, t, y, args):
        """The membrane equations at fixed spike history (spike detection is the solver's)."""
        G, GE = self.synaptic_conductance(t, y["spikes"])
        I = 0.0 if args is None else args(t)
        dy = self.cells.vector_field(t, {k: v for k, v in y.items() if k != "spikes"}, None)
        dy["V"] = dy["V"] + (I + GE - G * y["V"]) / self.cells.C
        dy["spikes"] = jnp.zeros_like(y["spikes"])
        return dy

    def default_solver(self):
        return NetworkRushLarsenCN()

    def default_stepsize_controller(self):
        return diffrax.ConstantStepSize()

    def default_dt0(self) -> float:
        """0.025 ms (NEURON's default step; a synaptic delay must be at least one step)."""
        return 0.025


def network_step(net: Network, protocol, t0, h, y0, V_prev, h_prev):
    """One step of the point cells' scheme with synaptic conductances, then spike detection."""
    cells = net.cells
    C, V0, spikes = cells.C, y0["V"], y0["spikes"]
    I = jnp.zeros_like(V0) if protocol is None else protocol(t0 + h / 2)
    gates0 = {k: v for k, v in y0.items() if k not in ("V", "spikes")}
    # synapses: the exact mean over the step (a spike arriving inside the step makes them jump), end values
    Gs = [net.synaptic_conductance(t0, spikes), net.synaptic_conductance(t0, spikes, t0 + h),
          net.synaptic_conductance(t0 + h, spikes)]  # fmt: skip
    G0, GE0 = cells.conductances(gates0)
    f0 = (I + GE0 + Gs[0][1] - (G0 + Gs[0][0]) * V0) / C
    curv = _safe_div(V_prev - V0 + f0 * h_prev, h_prev * h_prev, h_prev > 0)
    V_mid = V0 + (h / 2) * (f0 + curv * h)
    half, end = {}, {}
    for name, (a, b) in cells.gate_rates(V_mid).items():
        x_inf = a / (a + b)
        decay = _relaxation_factor((h / 2) * (a + b))
        half[name] = x_inf + (gates0[name] - x_inf) * decay
        end[name] = x_inf + (gates0[name] - x_inf) * (decay * decay)
    (Gh, GEh), (G1, GE1) = cells.conductances(half), cells.conductances(end)
    G = (G0 + 4 * Gh + G1) / 6 + Gs[1][0]
    GE = (GE0 + 4 * GEh + GE1) / 6 + Gs[1][1]
    c = C / h
    V1 = ((c - G / 2) * V0 + I + GE) / (c + G / 2)
    # spikes: upward crossings of the threshold, timed by linear interpolation
    crossed = (V0 < net.threshold) & (V1 >= net.threshold)
    t_cross = t0 + h * _safe_div(net.threshold - V0, V1 - V0, crossed)
    shifted = jnp.concatenate([t_cross[..., None], spikes[..., :-1]], axis=-1)
    y1 = {**end, "V": V1, "spikes": jnp.where(crossed[..., None], shifted, spikes)}
    err = {k: jnp.zeros_like(v) for k, v in y1.items()}
    err["V"] = V1 - (V0 + h * (f0 + curv * h))
    f1 = (I + GE1 + Gs[2][1] - (G1 + Gs[2][0]) * V1) / C
    return y1, err, (y0, y1, h * f0, h * f1)


class NetworkRushLarsenCN(AbstractVoltageStepSolver):
    """The point cells' Rush–Larsen / Crank–Nicolson step with synapses and spike detection; for `Network`."""

    def advance(self, model, protocol, t0, h, y0, V_prev, h_prev):
        return network_step(model, protocol, t0, h, y0, V_prev, h_prev)
