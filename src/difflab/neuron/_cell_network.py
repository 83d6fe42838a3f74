r"""Networks of multi-compartment cells: synapses at dendritic locations and gap junctions, as one model.

A [`CellNetwork`][difflab.neuron.CellNetwork] holds populations of [`Cell`][difflab.neuron.Cell]s (mixed
types allowed; the cells of a population share a morphology and may differ in their parameters). Cells are
numbered population by population. A synapse $k$ from cell ``pre[k]`` acts on compartment $c_k$ of cell
``post[k]``, at the location ``where`` names, adding to that compartment's membrane equation

$$-\frac{10^5}{A_{c_k}}\,g_k(t)\,(V_{c_k} - E_k)\quad \text{µA/cm²},$$

$g_k$ in µS as in [`AbstractSynapses`][difflab.neuron.AbstractSynapses] (NMDA's block at $V_{c_k}$), $A$ the
compartment's membrane area (µm²). Gap junctions ([`GapJunctions`][difflab.neuron.GapJunctions]) join
compartments of different cells. Spikes are upward crossings of ``threshold`` at each cell's detection site
(``detect``, the middle of its root section by default), as NEURON's ``NetCon`` on ``soma(0.5)._ref_v``.

**States** run over all compartments of all cells, cell by cell (population order): ``V`` and every gate and
concentration of any population (``(compartments,)``; a gate a population lacks stays at 0 there), then
``spikes`` (``(n_cells, buffer)``), ``synapses`` and, with plasticity, ``plasticity``, as in
[`Network`][difflab.neuron.Network].

**The step** ([`CellNetworkRushLarsenCN`][difflab.neuron.CellNetworkRushLarsenCN]) advances the synapses
exactly over the step (`AbstractSynapticNetwork.advance_synapses`), then every population's cable step (the
Hines solve batched over its cells) with the synaptic conductances' exact means in place of Simpson's rule,
then spike detection.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ..core import AbstractProtocol, StateInfo
from ..core.internal import is_concrete, raise_if_unphysical
from ._cell import Cell
from ._cell_network_solver import CellNetworkRushLarsenCN, shared_parameters
from ._gap_junctions import GapJunctions
from ._stimulus import IClamp
from ._synapses import AbstractSynapses
from ._synaptic_network import AbstractSynapticNetwork

_DENSITY = 1e5  # µS/µm² in mS/cm²


class CellNetwork(AbstractSynapticNetwork):
    """Populations of multi-compartment cells coupled by synapses at locations and by gap junctions.

    Args:
        cells: one `Cell` per population, or a sequence of them; a population's parameters are scalars (its
            ``counts`` cells share them) or have a leading axis of its cell count (one value per cell).
        synapses: populations of `ExpSynapses` / `AlphaSynapses` / `Exp2Synapses` / `NMDASynapses` (each with or
            without `TsodyksMarkram` plasticity); ``pre`` and ``post`` are network cell indices.
        where: for each synapse population, the location on the postsynaptic cells (``"dend(0.7)"``, inside a
            section) or one location (a string, or a compartment index) per synapse.
        counts: cells per population (default: each population's leading parameter axis, or 1).
        gaps: `GapJunctions` or ``None``.
        detect: spike detection site of every cell (a location inside a section; default the middle of the root
            section), one for all or one per population.
        threshold: spike threshold (mV).
        buffer: spike times kept per cell until they have arrived everywhere (see `Network`).

    Parameters by name: ``"cells.0.soma.gbar_na"`` (population 0's `Cell` names), ``"synapses.0.weight"``,
    ``"gaps.g"``. The protocol is an [`IClamp`][difflab.neuron.IClamp] whose locations name the cell,
    ``"cell0.soma(0.5)"``, a plain protocol of one current per cell (nA, into the middle of each root section), or
    ``None``; recordings name the cell too (`recorder`).

    Example: ``CellNetwork(Cell.ball_and_stick(), ExpSynapses([0], [1], 0.01, 1.0), where=["dend(0.7)"],
    counts=2)``.
    """

    cells: tuple[Cell, ...]
    synapses: tuple[AbstractSynapses, ...]
    gaps: GapJunctions | None
    threshold: Array
    counts: tuple[int, ...] = eqx.field(static=True)
    targets: tuple[int, ...] = eqx.field(static=True)  # the compartment of every synapse, populations in order
    sites: tuple[int, ...] = eqx.field(static=True)  # every cell's detection compartment
    gap_sites: tuple[tuple[int, int], ...] = eqx.field(static=True)  # the two compartments of every junction
    n_cells: int = eqx.field(static=True)
    buffer: int = eqx.field(static=True)

    time_units: ClassVar[str] = "ms"

    def __init__(self, cells, synapses=(), *, where=(), counts=None, gaps: GapJunctions | None = None,
                 detect=None, threshold: ArrayLike = 0.0, buffer: int = 4):  # fmt: skip
        cells = (cells,) if isinstance(cells, Cell) else tuple(cells)
        if not cells or not all(isinstance(c, Cell) for c in cells):
            raise TypeError("cells must be a Cell or a non-empty sequence of Cells (one per population)")
        self.counts = _counts(cells, counts)
        dtype = jnp.result_type(cells[0].v_init)
        self.cells = tuple(cells)
        self.n_cells = sum(self.counts)
        synapses = (synapses,) if isinstance(synapses, AbstractSynapses) else tuple(synapses)
        if not all(isinstance(s, AbstractSynapses) for s in synapses):
            raise TypeError("synapses must be AbstractSynapses (ExpSynapses, Exp2Synapses, ...) or a sequence of them")
        if isinstance(buffer, bool) or not isinstance(buffer, int | np.integer) or buffer < 1:
            raise ValueError(f"buffer must be an integer >= 1 (spike times kept per cell); got {buffer!r}")
        self.buffer = int(buffer)
        self.synapses = tuple(jax.tree.map(lambda x: jnp.asarray(x, dtype), syn) for syn in synapses)
        where = (where,) if isinstance(where, str) else tuple(where)
        if len(where) != len(synapses):
            raise ValueError(f"where must give a location for each of the {len(synapses)} synapse populations; got "
                             f"{len(where)}")  # fmt: skip
        targets = []
        for k, (syn, at) in enumerate(zip(synapses, where, strict=True)):
            for side in ("pre", "post"):
                self._check_cells(getattr(syn, side), f"synapses[{k}].{side}")
            at = [at] * len(syn.post) if isinstance(at, str | int | np.integer) else list(at)
            if len(at) != len(syn.post):
                raise ValueError(f"where[{k}] must be one location or {len(syn.post)} (one per synapse); got {len(at)}")
            targets += [self.compartment(i, a, f"where[{k}]") for i, a in zip(syn.post, at, strict=True)]
        self.targets = tuple(targets)
        self.sites = self._detection_sites(detect)
        self.gaps = None if gaps is None else jax.tree.map(lambda x: jnp.asarray(x, dtype), gaps)
        self.gap_sites = self._gap_sites(gaps)
        self.threshold = jnp.asarray(threshold, dtype=dtype)
        raise_if_unphysical(self.physical_checks())

    # ---------------------------------------------------------------- layout
    def offsets(self) -> np.ndarray:
        """The first compartment of every population in the flat compartment axis (and the total, last)."""
        sizes = [n * c.morphology.n_segments for n, c in zip(self.counts, self.cells, strict=True)]
        return np.concatenate([[0], np.cumsum(sizes)]).astype(int)

    def population_of(self, cell: int) -> tuple[int, int]:
        """``(population, index within it)`` of network cell ``cell``."""
        first = np.concatenate([[0], np.cumsum(self.counts)])
        p = int(np.searchsorted(first, cell, side="right") - 1)
        return p, int(cell - first[p])

    def compartment(self, cell: int, where, name: str = "location") -> int:
        """The flat compartment index of location ``where`` (``"dend(0.7)"`` or a compartment index) on ``cell``."""
        p, j = self.population_of(cell)
        morph = self.cells[p].morphology
        if isinstance(where, int | np.integer) and not isinstance(where, bool):
            if not 0 <= where < morph.n_segments:
                raise ValueError(f"{name}: compartment {where} is outside cell {cell} (0..{morph.n_segments - 1})")
            seg = int(where)
        else:
            try:
                seg = morph.segment(where)
            except (KeyError, ValueError, TypeError) as err:
                raise ValueError(f"{name}: {where!r} is not a place with membrane on cell {cell}: {err}") from None
        return int(self.offsets()[p] + j * morph.n_segments + seg)

    def areas(self) -> np.ndarray:
        """Membrane area (µm²) of every compartment, flat."""
        return np.concatenate([self._per_cell(c.morphology.area[: c.morphology.n_segments], p)
                               for p, c in enumerate(self.cells)])  # fmt: skip

    def _per_cell(self, values, p: int):
        """Population ``p``'s per-compartment ``values`` repeated for each of its cells, flat."""
        values = jnp.asarray(values) if isinstance(values, jax.Array) else np.asarray(values)
        if isinstance(values, jax.Array):
            return jnp.broadcast_to(values, (self.counts[p], values.shape[-1])).ravel()
        return np.tile(values, self.counts[p])

    def _check_cells(self, indices, name: str) -> None:
        idx = np.asarray(indices, dtype=int)
        bad = idx[(idx < 0) | (idx >= self.n_cells)]
        if bad.size:
            raise ValueError(
                f"{name} names cell {int(bad[0])}, which is not in the network (cells 0..{self.n_cells - 1})"
            )

    def _detection_sites(self, detect) -> tuple[int, ...]:
        per_population = [detect] * len(self.cells) if detect is None or isinstance(detect, str) else list(detect)
        if len(per_population) != len(self.cells):
            raise ValueError(f"detect must be one location or one per population ({len(self.cells)}); got {detect!r}")
        sites, cell = [], 0
        for p, (c, n) in enumerate(zip(self.cells, self.counts, strict=True)):
            at = per_population[p] or f"{c.morphology.names[0]}(0.5)"
            for _ in range(n):
                sites.append(self.compartment(cell, at, "detect"))
                cell += 1
        return tuple(sites)

    def _gap_sites(self, gaps: GapJunctions | None) -> tuple[tuple[int, int], ...]:
        if gaps is None:
            return ()
        if not isinstance(gaps, GapJunctions):
            raise TypeError(f"gaps must be a GapJunctions or None; got {type(gaps).__name__}")
        self._check_cells(gaps.cell_a, "gaps.cell_a")
        self._check_cells(gaps.cell_b, "gaps.cell_b")
        sites = []
        for j, (a, wa, b, wb) in enumerate(zip(gaps.cell_a, gaps.where_a, gaps.cell_b, gaps.where_b, strict=True)):
            ca, cb = self.compartment(a, wa, f"gaps.where_a[{j}]"), self.compartment(b, wb, f"gaps.where_b[{j}]")
            if ca == cb:
                raise ValueError(f"gap junction {j} joins compartment {wa!r} of cell {a} to itself")
            sites.append((ca, cb))
        return tuple(sites)

    # ---------------------------------------------------------------- names and checks
    @property
    def aliases(self) -> dict[str, str]:  # type: ignore[override]
        return {f"cells.{p}.{k}": f"cells.{p}.{v}" for p, c in enumerate(self.cells) for k, v in c.aliases.items()}

    def state_names(self) -> tuple[str, ...]:
        """``V``, then every population's gates and concentrations (first appearance), without repeats."""
        names: list[str] = []
        for c in self.cells:
            names += [s.name for s in c.states if s.name not in names]
        return tuple(names)

    @property
    def states(self) -> tuple[StateInfo, ...]:  # type: ignore[override]
        info = {s.name: s for c in reversed(self.cells) for s in c.states}
        flat = tuple(StateInfo(n, info[n].units, f"{info[n].long_name}, all cells' compartments in order")
                     for n in self.state_names())  # fmt: skip
        spikes = StateInfo("spikes", "ms", "last spike times per cell, newest first")
        kernels = StateInfo("synapses", "1", "kernel sums of the synapses, populations in order (conductance / weight)")
        plastic = (
            (StateInfo("plasticity", "1", "u, R and last arrival (ms) of each synapse"),) if self.plastic() else ()
        )
        return (*flat, spikes, kernels, *plastic)

    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        """The populations' constraints under ``cells.<p>.``, the synapses' under ``synapses.<k>.``, ``gaps.g``."""
        checks = super().physical_checks()
        for p, c in enumerate(self.cells):
            checks.update({f"cells.{p}.{message}": check for message, check in c.physical_checks().items()})
        for k, syn in enumerate(self.synapses):
            checks.update({f"synapses.{k}.{message}": check for message, check in syn.physical_checks().items()})
        if self.gaps is not None:
            checks.update({f"gaps.{message}": check for message, check in self.gaps.physical_checks().items()})
        return checks

    # ---------------------------------------------------------------- state
    def population_state(self, p: int, y: dict[str, Array]) -> dict[str, Array]:
        """Population ``p``'s own states from the flat ones, each ``(cells, compartments)``."""
        lo, hi = self.offsets()[p : p + 2]
        shape = (self.counts[p], self.cells[p].morphology.n_segments)
        return {s.name: y[s.name][..., lo:hi].reshape(*y[s.name].shape[:-1], *shape) for s in self.cells[p].states}

    def flatten(self, parts: Sequence[dict[str, Array]], fill: dict[str, Array]) -> dict[str, Array]:
        """The populations' states (``(cells, compartments)`` each) as flat ones; ``fill`` where one lacks a name."""
        offsets = self.offsets()
        out = {}
        for name in self.state_names():
            pieces = []
            for p, part in enumerate(parts):
                if name in part:
                    pieces.append(part[name].reshape(*part[name].shape[:-2], -1))
                else:
                    pieces.append(fill[name][..., offsets[p] : offsets[p + 1]])
            out[name] = jnp.concatenate(pieces, axis=-1) if len(pieces) > 1 else pieces[0]
        return out

    def initial_state(self) -> dict[str, Array]:
        """Every cell at its own `Cell.initial_state`; no spikes, closed synapses."""
        parts = []
        for c, n in zip(self.cells, self.counts, strict=True):
            with shared_parameters():
                y = c.initial_state()
            parts.append({k: jnp.broadcast_to(v, (n, v.shape[-1])) for k, v in y.items()})
        dtype = parts[0]["V"].dtype
        total = int(self.offsets()[-1])
        zeros = {name: jnp.zeros((total,), dtype) for name in self.state_names()}
        return {**self.flatten(parts, zeros), **self.synapse_initial_state(dtype)}

    def cell_states(self, y: dict[str, Array]) -> dict[str, Array]:
        """The compartments' states (``V``, gates, concentrations) of the flat state ``y``."""
        return {k: y[k] for k in self.state_names()}

    # ---------------------------------------------------------------- currents from outside the cells
    def stimulus(self, protocol: Any, t: ArrayLike, like: Array) -> Array:
        """Injected currents at ``t`` as densities (µA/cm²) per compartment, flat.

        An `IClamp` names its locations with the cell, ``"cell0.soma(0.5)"``. Any other difflab protocol gives every
        cell's current (nA; a scalar, or one value per cell, ``(n_cells,)``) into the middle of its root section, as
        a plain protocol does for a `Cell`: one protocol for a hundred clamped cells, where an `IClamp` would
        evaluate a hundred.
        """
        if protocol is None:
            return jnp.zeros_like(like)
        if isinstance(protocol, IClamp):
            where = np.array([self.site(loc, "protocol") for loc in protocol.locations])
            current = jnp.asarray(protocol(t), like.dtype)
        elif isinstance(protocol, AbstractProtocol):
            where = np.asarray(self.roots())
            current = jnp.asarray(protocol(t), like.dtype)
            if current.shape[-1:] not in ((), (1,), (self.n_cells,)):
                raise ValueError(f"protocol: a plain protocol gives one current per cell ({self.n_cells},) or one for "
                                 f"all; got shape {current.shape}")  # fmt: skip
            current = jnp.broadcast_to(current, (*current.shape[:-1], self.n_cells)) if current.ndim else \
                jnp.broadcast_to(current, (self.n_cells,))  # fmt: skip
        else:
            raise TypeError(
                "protocol of a CellNetwork must be an IClamp with locations like 'cell0.soma(0.5)', a difflab protocol "
                f"(nA into each cell's root section) or None; got {type(protocol).__name__}"
            )
        scale = jnp.asarray(_DENSITY / self.areas()[where], like.dtype)
        return jnp.zeros_like(like).at[..., where].add(current * scale)

    def roots(self) -> tuple[int, ...]:
        """Every cell's compartment in the middle of its root section (flat)."""
        out = []
        for p, c in enumerate(self.cells):
            first = int(np.sum(self.counts[:p]))
            out += [self.compartment(first + j, f"{c.morphology.names[0]}(0.5)") for j in range(self.counts[p])]
        return tuple(out)

    def site(self, location: str, name: str = "location") -> int:
        """The flat compartment of ``"cell<i>.<section>(x)"``."""
        cell, where = split_cell_location(location, name)
        self._check_cells([cell], name)
        return self.compartment(cell, where, name)

    def recorder(self, locations) -> tuple[Any, tuple[StateInfo, ...]]:
        """`(observe, observe_info)` for [`difflab.simulate`][]: the potential at ``"cell<i>.<place>"``, by name."""
        locations = tuple(locations)
        where = [self.site(loc, "locations") for loc in locations]

        def observe(t, y, protocol):
            return {loc: y["V"][..., i] for loc, i in zip(locations, where, strict=True)}

        return observe, tuple(StateInfo(loc, "mV", f"membrane potential at {loc}") for loc in locations)

    def synapse_scale(self, dtype) -> tuple[Array, Array]:
        """Per synapse: ``10^5 / A`` of its compartment (µS → mS/cm²) and its reversal ``E`` (mV), packed."""
        scale = jnp.asarray(_DENSITY / self.areas()[np.asarray(self.targets, dtype=int)], dtype)
        return scale, self.pack([syn.E for syn in self.synapses]).astype(dtype)

    def blocks(self, V: Array) -> Array:
        """Each synapse's conductance factor (NMDA's block) at the flat potentials ``V`` (mV), packed."""
        at = V[..., np.asarray(self.targets, dtype=int)]
        rows = self._rows()
        return self.pack([syn.block(at[..., r]) for syn, r in zip(self.synapses, rows, strict=True)])

    def to_compartments(self, g: Array | None, V: Array, like: Array) -> tuple[Array, Array]:
        """Per-synapse conductances ``g`` (µS, unblocked) as ``G`` (mS/cm²) and ``G·E`` (µA/cm²) per compartment.

        The voltage-dependent blocks are taken at ``V`` (flat, mV).
        """
        if g is None or not self.synapses:
            return jnp.zeros_like(like), jnp.zeros_like(like)
        scale, E = self.synapse_scale(like.dtype)
        if self.voltage_dependent():
            g = g * self.blocks(V)
        G = g * scale
        where = np.asarray(self.targets, dtype=int)
        total = (
            jnp.zeros((*G.shape[:-1], like.shape[-1], 2), like.dtype)
            .at[..., where, :]
            .add(jnp.stack([G, G * E], axis=-1))
        )
        return total[..., 0], total[..., 1]

    def gap_conductance(self, V_partner: Array, like: Array) -> tuple[Array, Array]:
        """Gap junctions' ``G`` (mS/cm²) and ``G·V_partner`` (µA/cm²) per compartment, partners at ``V_partner``."""
        if self.gaps is None:
            return jnp.zeros_like(like), jnp.zeros_like(like)
        sites = np.asarray(self.gap_sites, dtype=int)  # (junctions, 2)
        own, other = np.concatenate([sites[:, 0], sites[:, 1]]), np.concatenate([sites[:, 1], sites[:, 0]])
        g = jnp.concatenate([self.gaps.g, self.gaps.g], axis=-1).astype(like.dtype)
        G = g * jnp.asarray(_DENSITY / self.areas()[own], like.dtype)
        total = (
            jnp.zeros((*G.shape[:-1], like.shape[-1], 2), like.dtype)
            .at[..., own, :]
            .add(jnp.stack([G, G * V_partner[..., other]], axis=-1))
        )
        return total[..., 0], total[..., 1]

    def outside(self, protocol, t: ArrayLike, y: dict[str, Array]) -> tuple[Array, Array]:
        """Synaptic, gap-junction and injected ``(G, GE)`` per compartment in the state ``y`` at ``t``."""
        V = y["V"]
        states = self.unpack_states(y["synapses"]) if self.synapses else []
        kernels = [syn.weight * syn.state_kernel(s) for syn, s in zip(self.synapses, states, strict=True)]
        Gs, GEs = self.to_compartments(self.pack(kernels) if kernels else None, V, V)
        Gg, GEg = self.gap_conductance(V, V)
        return Gs + Gg, GEs + GEg + self.stimulus(protocol, t, V)

    def vector_field(self, t, y, args):
        """The membrane equations between spike arrivals (spike detection and arrivals are the solver's)."""
        G, GE = self.outside(args, t, y)
        parts, offsets = [], self.offsets()
        for p, c in enumerate(self.cells):
            with shared_parameters():
                dy = c.vector_field(t, self.population_state(p, y), None)
            cm = c.per_section("cm")[..., c.morphology.seg_section]
            lo, hi = offsets[p : p + 2]
            shape = dy["V"].shape
            extra = (GE[..., lo:hi] - G[..., lo:hi] * y["V"][..., lo:hi]).reshape(shape)
            dy["V"] = dy["V"] + extra / jnp.broadcast_to(cm, shape)  # shared cm: one row for all cells
            parts.append(dy)
        dy = self.flatten(parts, {k: jnp.zeros_like(y[k]) for k in self.state_names()})
        dy["spikes"] = jnp.zeros_like(y["spikes"])
        if not self.synapses:
            return {**dy, "synapses": jnp.zeros_like(y["synapses"])}
        states = self.unpack_states(y["synapses"])
        dy["synapses"] = self.pack_states([syn.state_derivative(s) for syn, s in zip(self.synapses, states,
                                                                                     strict=True)])  # fmt: skip
        if "plasticity" in y:
            dy["plasticity"] = jnp.zeros_like(y["plasticity"])
        return dy

    # ---------------------------------------------------------------- solver hooks
    def default_solver(self):
        """[`CellNetworkRushLarsenCN`][difflab.neuron.CellNetworkRushLarsenCN]."""
        return CellNetworkRushLarsenCN()

    def default_stepsize_controller(self):
        return self.cells[0].default_stepsize_controller()

    def default_dt0(self) -> float | Array:
        """The stiffest population's `Cell.default_dt0`, halved until every gap junction's splitting is stable.

        A junction of ``g`` µS on a compartment of area ``A`` (µm²) and ``c_m`` (µF/cm²) needs
        ``1e5 g h / (A c_m) <= 1`` (see `GapJunctions`).
        """
        with jax.ensure_compile_time_eval():  # a Python float for concrete parameters, traced for fitted ones
            dt = jnp.min(jnp.stack([jnp.asarray(c.default_dt0()) for c in self.cells]))
            rate = self.gap_rate()
            if rate is not None:
                z = rate * dt
                halvings = jnp.where(z > 1, jnp.ceil(jnp.log2(jnp.where(z > 1, z, 1.0))), 0.0)
                dt = dt * 2.0**-halvings
        return float(dt) if is_concrete(dt) else dt

    def gap_rate(self) -> Array | None:
        """The largest ``1e5 g / (A c_m)`` (1/ms) over the junctions' sides; ``None`` without junctions."""
        if self.gaps is None:
            return None
        sites = np.asarray(self.gap_sites, dtype=int)
        cm = jnp.concatenate([self._per_cell(c.per_section("cm")[..., c.morphology.seg_section], p)
                              for p, c in enumerate(self.cells)])  # fmt: skip
        area = self.areas()
        rates = [self.gaps.g * _DENSITY / (area[sites[:, s]] * cm[sites[:, s]]) for s in (0, 1)]
        return jnp.max(jnp.stack(rates))


def split_cell_location(location, name: str = "location") -> tuple[int, str]:
    """``(cell, place)`` of a network location ``"cell<i>.<section>(x)"``; `ValueError` naming ``name`` otherwise."""
    cell, sep, where = str(location).partition(".")
    if not (sep and cell.startswith("cell") and cell[4:].isdigit()):
        raise ValueError(f"{name}: {location!r} must name a cell and a place, like 'cell0.soma(0.5)'")
    return int(cell[4:]), where


def _counts(cells: tuple[Cell, ...], counts) -> tuple[int, ...]:
    """Cells per population: given, or each population's leading parameter axis (1 for scalar parameters)."""
    shapes = [c.batch_shape() for c in cells]
    for p, shape in enumerate(shapes):
        if len(shape) > 1:
            raise ValueError(f"cells[{p}]'s parameters must be scalars or one value per cell (1-D); got {shape}")
    if counts is None:
        counts = [shape[0] if shape else 1 for shape in shapes]
    counts = [counts] if isinstance(counts, int | np.integer) else list(counts)
    if len(counts) != len(cells) or any(isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1
                                        for n in counts):  # fmt: skip
        raise ValueError(f"counts must be one integer >= 1 per population ({len(cells)}); got {counts!r}")
    for p, (shape, n) in enumerate(zip(shapes, counts, strict=True)):
        if shape not in ((), (n,)):
            raise ValueError(f"cells[{p}]'s parameters must be scalars or ({n},) for its {n} cells; got {shape}")
    return tuple(int(n) for n in counts)
