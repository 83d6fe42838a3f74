"""The validation kind `neuron.cell_network_spikes`: a network of multi-compartment cells against NEURON.

The dataset describes the whole network, so that the case file only names it and its clamps:
- the cells, one row per cell on the `cell` axis: `soma_L`, `soma_diam`, `soma_nseg`, `dend_L`, `dend_diam`,
  `dend_nseg` (µm; the dendrite attached at `soma(1)`) and the `hh` densities `soma_gnabar`, … `dend_gl`
  (S/cm², NEURON's units). Consecutive cells with equal rows form one population. Every section has Ra
  100 Ω·cm, cm 1 µF/cm² and reversals 50, −77 and −54.3 mV, as the ball-and-stick cell (the dataset's `cell`
  attribute says so);
- the synapses (`syn_*`, as for `neuron.network_spikes`, with `syn_location` on the postsynaptic cell and
  `NMDAExp2` for NMDA) and the gap junctions (`gap_cell_a`, `gap_location_a`, `gap_cell_b`, `gap_location_b`,
  `gap_g` µS);
- `V` on `(time, location)` with locations `"cell<i>.<section>(x)"`, and `spike_times` on `(cell, spike)` at each
  cell's `soma(0.5)`.

The case gives the clamps, `[stimuli."cell0.soma(0.5)"]` tables in nA, and optionally `simulation.dt0` (ms). The
network runs with its default solver, and its default step unless `dt0` is given, on the reference's time grid.
Metrics: `spike_count_error` (all cells), `spike_time_max_error` (worst paired spike, ms), `v_rms_error` and
`v_max_abs_error` (worst location, mV).
"""

from __future__ import annotations

import numpy as np

from ..core.internal import simulate
from ..validation import (
    CaseError,
    CaseOutcome,
    CaseSpec,
    Runner,
    protocol_from_table,
    register_runner,
)
from ._cell import Cell, Region
from ._cell_network import CellNetwork, split_cell_location
from ._channels import LeakChannel, PotassiumChannel, SodiumChannel
from ._gap_junctions import GapJunctions
from ._morphology import Morphology, Section
from ._stimulus import IClamp
from ._validation import check_stimulus_tables, located_trace_outcome, synapse_groups

_GEOMETRY = ("soma_L", "soma_diam", "soma_nseg", "dend_L", "dend_diam", "dend_nseg")
_DENSITIES = ("gnabar", "gkbar", "gl")


def cell_network_from(ref) -> CellNetwork:
    """The `CellNetwork` a reference dataset describes (see the module)."""
    rows = np.stack([ref[k].values.astype(float) for k in _GEOMETRY + tuple(
        f"{s}_{d}" for s in ("soma", "dend") for d in _DENSITIES)], axis=1)  # fmt: skip
    cells: list[Cell] = []
    counts: list[int] = []
    for i, row in enumerate(rows):
        if i and np.array_equal(row, rows[i - 1]):
            counts[-1] += 1
            continue
        cells.append(_cell(row))
        counts.append(1)
    groups = synapse_groups(ref)
    where = [[str(x) for x in ref["syn_location"].values[r]] for _, r in groups]
    gaps = None
    if "gap_g" in ref:
        gaps = GapJunctions(ref["gap_cell_a"].values, [str(x) for x in ref["gap_location_a"].values],
                            ref["gap_cell_b"].values, [str(x) for x in ref["gap_location_b"].values],
                            ref["gap_g"].values)  # fmt: skip
    return CellNetwork(cells, [g for g, _ in groups], where=where, counts=counts, gaps=gaps)


def _cell(row: np.ndarray) -> Cell:
    """A soma with one dendrite at `soma(1)`, `hh` in both, from one row of geometry and densities (S/cm²)."""
    soma_L, soma_diam, soma_nseg, dend_L, dend_diam, dend_nseg = row[:6]
    sections = [Section.cylinder("soma", soma_L, soma_diam, nseg=int(soma_nseg)),
                Section.cylinder("dend", dend_L, dend_diam, parent="soma", nseg=int(dend_nseg))]  # fmt: skip

    def hh(gna, gk, gl):  # S/cm² -> mS/cm²
        return {"na": SodiumChannel(1e3 * gna, 50.0), "k": PotassiumChannel(1e3 * gk, -77.0),
                "leak": LeakChannel(1e3 * gl, -54.3)}  # fmt: skip

    regions = {"soma": Region(hh(*row[6:9]), Ra=100.0), "dend": Region(hh(*row[9:12]), Ra=100.0)}
    return Cell(Morphology(sections), regions)


def run_cell_network(case: CaseSpec) -> CaseOutcome:
    ref = case.load_dataset()
    net = cell_network_from(ref)
    stimuli = {loc: protocol_from_table(t, f"stimuli.{loc}") for loc, t in case.get("stimuli", dict).items()}
    locations = [str(x) for x in ref["location"].values]
    ts = ref["time"].values
    observe, info = net.recorder(locations)
    dt0 = case.get("simulation.dt0", float, default=None)
    traj = simulate(net, IClamp(stimuli), ts, observe=observe, observe_info=info, dt0=dt0)
    V = {loc: np.asarray(traj[loc]) for loc in locations}
    sites = {f"cell {i}": (f"cell{i}.soma(0.5)", ref["spike_times"].values[i]) for i in range(net.n_cells)}
    metrics, figures = located_trace_outcome(case, ts, V, ref, sites, "cell")
    provenance = {**dict(traj.provenance), "synapses": str(ref.attrs.get("synapses", "")),
                  "gap_junctions": str(ref.attrs.get("gap_junction", ""))}  # fmt: skip
    provenance |= {f"reference_{k}": str(ref.attrs[k]) for k in ("simulator", "simulator_version", "integration")}
    return CaseOutcome(metrics, figures, provenance)


def check_cell_network(case: CaseSpec) -> None:
    """Eager check: every clamp names a cell and a place (`"cell0.soma(0.5)"`) and is a protocol table."""
    for key in case.get("stimuli", dict):
        try:
            split_cell_location(key)
        except ValueError:
            raise CaseError(
                f"{case.file}: field 'stimuli.{key}': expected a cell and a place, like 'cell0.soma(0.5)'"
            ) from None
    check_stimulus_tables(case)


CELL_NETWORK_SPIKES = Runner(
    run=run_cell_network,
    metrics=("spike_count_error", "spike_time_max_error", "v_rms_error", "v_max_abs_error"),
    required={"stimuli": dict},
    optional={"simulation.dt0": float},
    check=check_cell_network,
)


register_runner("neuron.cell_network_spikes", CELL_NETWORK_SPIKES)
