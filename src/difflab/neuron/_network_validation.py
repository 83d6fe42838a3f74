"""Validation runner for networks of HH point cells: every cell's spike times and potential against a reference.

Kind `neuron.network_spikes`. The dataset holds the connectivity (`syn_pre`, `syn_post`, `syn_weight` µS,
`syn_delay` ms, `syn_e` mV, and `syn_tau` ms for exponential synapses, or `syn_mechanism` with `syn_tau1`/`syn_tau2`
for a mix of NEURON's `ExpSyn` and `Exp2Syn`), `V` on `(time, location)` with one location per cell, and
`spike_times` on `(spike_site, spike)`. The case gives the current clamps per cell, `[stimuli.N]` tables in the
protocol format of the other neuron cases with amplitudes in µA/cm² (a protocol with an `amplitude` field). The
network (squid-axon cells, the default solver and step) runs on the reference's time grid. Metrics:
`spike_count_error` (summed over cells), `spike_time_max_error` (worst paired spike, ms), `v_rms_error` and
`v_max_abs_error` (worst cell, mV).
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from ..core.internal import Sum, simulate
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
from ._cell_validation import _finite
from ._features import spike_times
from ._network import Network
from ._presets import HodgkinHuxley
from ._synapses import AbstractSynapses, Exp2Synapses, ExpSynapses


def synapses_from(ref) -> list:
    """The synapse groups a reference dataset describes (one group per mechanism)."""
    mech = ref["syn_mechanism"].values if "syn_mechanism" in ref else np.full(ref.sizes["synapse"], "ExpSyn")
    col = lambda name, rows: ref[f"syn_{name}"].values[rows]  # noqa: E731
    groups: list[AbstractSynapses] = []
    for kind in sorted(set(map(str, mech))):
        rows = np.flatnonzero(mech == kind)
        common = (col("pre", rows), col("post", rows), col("weight", rows), col("delay", rows))
        if kind == "ExpSyn":
            tau = col("tau", rows) if "syn_tau" in ref else col("tau2", rows)
            groups.append(ExpSynapses(*common, tau, col("e", rows)))
        elif kind == "Exp2Syn":
            groups.append(Exp2Synapses(*common, col("tau1", rows), col("tau2", rows), col("e", rows)))
        else:
            raise CaseError(f"dataset: unknown synapse mechanism {kind!r} in syn_mechanism; known: ExpSyn, Exp2Syn")
    return groups


def _stimulus(case: CaseSpec, n_cells: int):
    """The clamps of every cell as one protocol with a per-cell amplitude vector."""
    parts = []
    for cell, table in case.get("stimuli", dict).items():
        if not cell.isdigit() or int(cell) >= n_cells:
            raise CaseError(f"{case.file}: field 'stimuli.{cell}': expected a cell index 0..{n_cells - 1}")
        p = protocol_from_table(table, f"stimuli.{cell}")
        if not hasattr(p, "amplitude"):
            raise CaseError(f"{case.file}: field 'stimuli.{cell}': a network clamp needs a protocol with an amplitude")
        parts.append(eqx.tree_at(lambda q: q.amplitude, p, p.amplitude * jnp.eye(n_cells)[int(cell)]))
    return parts[0] if len(parts) == 1 else Sum(*parts)


def run_network_spikes(case: CaseSpec) -> CaseOutcome:

    ref = case.load_dataset()
    n = ref.sizes["location"]
    net = Network(HodgkinHuxley.squid_axon(), synapses_from(ref), n)
    ts = ref["time"].values
    traj = simulate(net, _stimulus(case, n), ts)
    V = np.asarray(traj.ys["V"])
    n_model = n_ref = 0
    worst, details = 0.0, []
    for i in range(n):
        got = _finite(spike_times(ts, V[:, i]))
        want = _finite(ref["spike_times"].values[i])
        n_model, n_ref = n_model + got.size, n_ref + want.size
        worst = max(worst, event_time_max_error(got, want))
        details.append(f"cell {i}: model {got.size}, reference {want.size}")
    V_ref = ref["V"].values
    rms = [rms_error(V[:, i], V_ref[:, i]) for i in range(n)]
    peak = [max_abs_error(V[:, i], V_ref[:, i]) for i in range(n)]
    metrics = [
        metric(case, "spike_count_error", count_error(n_model, n_ref), units="spikes", detail="; ".join(details)),
        metric(case, "spike_time_max_error", worst, units="ms", detail="worst paired spike over all cells"),
        metric(case, "v_rms_error", max(rms), units="mV", detail=f"worst at cell {int(np.argmax(rms))}"),
        metric(case, "v_max_abs_error", max(peak), units="mV", detail=f"worst at cell {int(np.argmax(peak))}"),
    ]
    figures = [
        (f"Membrane potential of cell {i}: difflab over NEURON (top) and the difference (bottom).",
         overlay_figure(ts, V[:, i], V_ref[:, i], xlabel="time (ms)", ylabel=f"V of cell {i} (mV)"))
        for i in range(n)
    ]  # fmt: skip
    provenance = {**dict(traj.provenance), "synapses": str(ref.attrs.get("synapses", ""))}
    provenance |= {f"reference_{k}": str(ref.attrs[k]) for k in ("simulator", "simulator_version", "integration")}
    return CaseOutcome(metrics, figures, provenance)


def check_network(case: CaseSpec) -> None:
    """Eager check: the stimuli are protocol tables keyed by cell index."""
    for cell, table in case.get("stimuli", dict).items():
        if not cell.isdigit():
            raise CaseError(f"{case.file}: field 'stimuli.{cell}': expected a cell index (0, 1, ...)")
        try:
            protocol_from_table(table, f"stimuli.{cell}")
        except ValueError as err:
            raise CaseError(f"{case.file}: {err}") from err


NETWORK_SPIKES = Runner(
    run=run_network_spikes,
    metrics=("spike_count_error", "spike_time_max_error", "v_rms_error", "v_max_abs_error"),
    required={"stimuli": dict},
    check=check_network,
)


register_runner("neuron.network_spikes", NETWORK_SPIKES)
