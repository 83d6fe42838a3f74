"""Validation runner for multi-compartment cells: potentials at named locations and spike times against a reference.

Kind ``neuron.cell_trace``. A case names a cell builder (``cell = "ball_and_stick"``, see `CELLS`), point
clamps by location (``[stimuli."soma(0.5)"]`` tables in the protocol format of the other neuron cases,
amplitudes in nA) and a dataset holding ``V`` on ``(time, location)`` and ``spike_times`` on
``(spike_site, spike)``. The cell runs with its default solver and step on the reference's time grid.
Metrics: ``spike_count_error`` (summed over sites), ``spike_time_max_error`` (worst paired spike over all
sites, ms), ``v_rms_error`` and ``v_max_abs_error`` (worst location, mV).
"""

from __future__ import annotations

import numpy as np

from ..core.internal import simulate
from ..datasets import path as dataset_path
from ..validation import (
    CaseError,
    CaseOutcome,
    CaseSpec,
    Runner,
    count_error,
    event_time_max_error,
    max_abs_error,
    metric,
    overlay_figure,
    protocol_from_table,
    register_runner,
    rms_error,
)
from ._cable import Cell, Region
from ._channels import LeakChannel, PotassiumChannel, SodiumChannel
from ._features import spike_times
from ._stimulus import IClamp
from ._swc import read_swc


def _ball_and_stick():

    return Cell.ball_and_stick()


def _da1_lpn():
    """The hemibrain DA1 lPN skeleton (``datasets/neuron/da1_lpn_722817260.swc``), hh everywhere, nseg 1."""
    morph = read_swc(dataset_path("neuron/da1_lpn_722817260.swc"))
    hh = {"na": SodiumChannel(120.0, 50.0), "k": PotassiumChannel(36.0, -77.0), "leak": LeakChannel(0.3, -54.3)}
    return Cell(morph, {"dend": Region(hh, Ra=100.0)})


#: Cell builders a case may name.
CELLS = {"ball_and_stick": _ball_and_stick, "da1_lpn": _da1_lpn}


def run_cell_trace(case: CaseSpec) -> CaseOutcome:

    ref = case.load_dataset()
    cell = CELLS[case.get("cell", str)]()
    stimuli = {loc: protocol_from_table(t, f"stimuli.{loc}") for loc, t in case.get("stimuli", dict).items()}
    locations = [str(x) for x in ref["location"].values]
    ts = ref["time"].values
    observe, info = cell.recorder(locations)
    traj = simulate(cell, IClamp(stimuli), ts, observe=observe, observe_info=info)
    V = {loc: np.asarray(traj[loc]) for loc in locations}
    V_ref = {loc: ref["V"].values[:, k] for k, loc in enumerate(locations)}
    n_model = n_ref = 0
    worst = 0.0
    details = []
    for site in [str(s) for s in ref["spike_site"].values]:
        got = _finite(spike_times(ts, V[site]))  # spike sites are recorded locations
        want = _finite(ref["spike_times"].sel(spike_site=site).values)
        n_model, n_ref = n_model + got.size, n_ref + want.size
        worst = max(worst, event_time_max_error(got, want))
        details.append(f"{site}: model {got.size}, reference {want.size}")
    rms = {loc: rms_error(V[loc], V_ref[loc]) for loc in locations}
    peak = {loc: max_abs_error(V[loc], V_ref[loc]) for loc in locations}
    worst_rms, worst_peak = max(rms, key=rms.__getitem__), max(peak, key=peak.__getitem__)
    metrics = [
        metric(case, "spike_count_error", count_error(n_model, n_ref), units="spikes", detail="; ".join(details)),
        metric(case, "spike_time_max_error", worst, units="ms", detail="worst paired spike over all sites"),
        metric(case, "v_rms_error", rms[worst_rms], units="mV", detail=f"worst at {worst_rms}"),
        metric(case, "v_max_abs_error", peak[worst_peak], units="mV", detail=f"worst at {worst_peak}"),
    ]
    figures = [
        (f"Membrane potential at {loc}: difflab over NEURON (top) and the difference (bottom).",
         overlay_figure(ts, V[loc], V_ref[loc], xlabel="time (ms)", ylabel=f"V at {loc} (mV)"))
        for loc in locations
    ]  # fmt: skip
    provenance = {
        **dict(traj.provenance),
        "cell": case.get("cell", str),
        "stimuli": "; ".join(f"{loc}: {t}" for loc, t in case.get("stimuli", dict).items()),
    }
    provenance |= {f"reference_{k}": str(ref.attrs[k]) for k in ("simulator", "simulator_version", "integration")}
    return CaseOutcome(metrics, figures, provenance)


def check_cell(case: CaseSpec) -> None:
    """Eager check: the case names a known cell and its stimuli are protocol tables."""
    name = case.get("cell", str)
    if name not in CELLS:
        raise CaseError(f"{case.file}: field 'cell': unknown cell {name!r}; known: {', '.join(CELLS)}")
    for loc, table in case.get("stimuli", dict).items():
        try:
            protocol_from_table(table, f"stimuli.{loc}")
        except ValueError as err:
            raise CaseError(f"{case.file}: {err}") from err


def _finite(x) -> np.ndarray:
    x = np.ravel(np.asarray(x, dtype=float))
    return x[np.isfinite(x)]


CELL_TRACE = Runner(
    run=run_cell_trace,
    metrics=("spike_count_error", "spike_time_max_error", "v_rms_error", "v_max_abs_error"),
    required={"cell": str, "stimuli": dict},
    check=check_cell,
)


register_runner("neuron.cell_trace", CELL_TRACE)
