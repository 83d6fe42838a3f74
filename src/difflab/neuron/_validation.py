"""Validation runners of the neuron domain (the kinds `neuron.*`), in one file as for the other domains.

- `neuron.trace` simulates a preset under the case's protocol on the reference's time grid and compares spike
  count, spike times (upward 0 mV crossings), V and the gates.
- `neuron.fi_curve` runs every current of the reference's `current` coordinate from rest (one batched solve) and
  compares the firing rate in the counting window at each current.
- `neuron.cell_trace`: multi-compartment cells. A case names a cell builder (`cell = "ball_and_stick"`, see
  `CELLS`), point clamps by location (`[stimuli."soma(0.5)"]` tables in the protocol format of the other neuron
  cases, amplitudes in nA) and a dataset holding `V` on `(time, location)` and `spike_times` on
  `(spike_site, spike)`. The cell runs with its default solver and step on the reference's time grid. Metrics:
  `spike_count_error` (summed over sites), `spike_time_max_error` (worst paired spike over all sites, ms),
  `v_rms_error` and `v_max_abs_error` (worst location, mV).
- `neuron.network_spikes`: networks of HH point cells. The dataset holds the connectivity (`syn_pre`, `syn_post`,
  `syn_weight` µS, `syn_delay` ms, `syn_e` mV, and `syn_tau` ms for exponential synapses, or `syn_mechanism` with
  `syn_tau1`/`syn_tau2` for a mix of NEURON's `ExpSyn` and `Exp2Syn`), `V` on `(time, location)` with one
  location per cell, and `spike_times` on `(spike_site, spike)`. The case gives the current clamps per cell,
  `[stimuli.N]` tables in the protocol format of the other neuron cases with amplitudes in µA/cm² (a protocol with
  an `amplitude` field). The network (squid-axon cells, the default solver and step) runs on the reference's time
  grid. Metrics as for `neuron.cell_trace`, per cell.
"""

from __future__ import annotations

import functools
from typing import Any

import diffrax
import equinox as eqx
import jax.numpy as jnp
import numpy as np

from ..core.internal import Sum, simulate
from ..datasets import PresetError, load_model, preset_file
from ..datasets import path as dataset_path
from ..plot import new_figure
from ..validation import (
    MODEL_STYLE,
    REFERENCE_STYLE,
    CaseError,
    CaseOutcome,
    CaseSpec,
    Runner,
    count_error,
    describe_protocol,
    event_time_max_error,
    finite_values,
    max_abs_error,
    metric,
    overlay_figure,
    protocol_from_table,
    register_runner,
    rms_error,
    worst_event,
)
from ._cell import Cell, Region
from ._channels import LeakChannel, PotassiumChannel, SodiumChannel
from ._features import spike_times
from ._fi import fi_curve
from ._network import Network
from ._nmda import NMDASynapses
from ._presets import HodgkinHuxley
from ._stimulus import IClamp
from ._swc import read_swc
from ._synapses import AbstractSynapses, Exp2Synapses, ExpSynapses

_SIMULATION = {"simulation.solver": str, "simulation.dt0": float, "simulation.rtol": float, "simulation.atol": float}


_SOLVERS = ("default", "Tsit5", "Dopri5", "Dopri8", "Kvaerno5")


_REFERENCE_ATTRS = ("simulator", "simulator_version", "integration")


def run_trace(case: CaseSpec) -> CaseOutcome:

    ref = case.load_dataset()
    model, options = _model_and_options(case)
    protocol = protocol_from_table(case.get("protocol", dict))
    threshold = case.get("threshold", float, default=0.0)
    ts = ref["time"].values
    traj = simulate(model, protocol, ts, **options)
    V, V_ref = np.asarray(traj["V"]), _one_trace(ref["V"])
    spikes = finite_values(np.asarray(spike_times(ts, V, threshold, max_spikes=max(ts.size // 2, 1))))
    spikes_ref = (
        finite_values(ref["spike_times"].values) if "spike_times" in ref else finite_values(spike_times(ts, V_ref))
    )
    gates = [g for g in ("m", "h", "n") if g in ref and g in traj.ys]
    gate_err = max((max_abs_error(traj[g], _one_trace(ref[g])) for g in gates), default=np.nan)
    metrics = [
        metric(case, "spike_count_error", count_error(spikes.size, spikes_ref.size), units="spikes",
               detail=f"model {spikes.size}, reference {spikes_ref.size}"),
        metric(case, "spike_time_max_error", event_time_max_error(spikes, spikes_ref), units="ms",
               detail=worst_event(spikes, spikes_ref)),
        metric(case, "v_rms_error", rms_error(V, V_ref), units="mV", detail=f"over {ts.size} samples"),
        metric(case, "v_max_abs_error", max_abs_error(V, V_ref), units="mV", detail="largest on spike upstrokes"),
        metric(case, "gates_max_abs_error", gate_err, units="1", detail=f"over gates {', '.join(gates)}"),
    ]  # fmt: skip
    figures = [
        ("Membrane potential V: difflab over the reference (top) and the difference (bottom).",
         functools.partial(overlay_figure, ts, V, V_ref, xlabel="time (ms)", ylabel="V (mV)")),
        ("Spike-time error per spike (model − reference); the band is the tolerance.",
         functools.partial(_spike_error_figure, spikes, spikes_ref, case.tolerances.get("spike_time_max_error"))),
    ]  # fmt: skip
    if spikes_ref.size:
        zoom = (ts >= spikes_ref[-1] - 3.0) & (ts <= spikes_ref[-1] + 4.0)
        caption = f"Zoom on the last reference spike ({spikes_ref[-1]:.2f} ms), where timing errors are largest."
        zoomed = functools.partial(overlay_figure, ts[zoom], V[zoom], V_ref[zoom], xlabel="time (ms)", ylabel="V (mV)")
        figures.append((caption, zoomed))
    provenance = {**dict(traj.provenance), "preset": _preset_name(case), "protocol": describe_protocol(protocol)}
    return CaseOutcome(metrics, figures, provenance | _reference_provenance(ref))


def run_fi_curve(case: CaseSpec) -> CaseOutcome:

    ref = case.load_dataset()
    model, options = _model_and_options(case)
    window = case.get("window", list)
    if len(window) != 2 or not all(isinstance(w, int | float) for w in window) or window[0] >= window[1]:
        raise CaseError(f"{case.file}: field 'window' must be [start, stop] in ms with start < stop; got {window}")
    t_end = case.get("t_end", float, default=float(window[1]))
    currents, rate_ref = ref["current"].values, ref["rate"].values
    threshold = case.get("threshold", float, default=0.0)
    rate = np.asarray(fi_curve(model, currents, t_end=t_end, window=tuple(window), threshold=threshold, **options))
    units = ref["current"].attrs.get("units", "uA/cm^2")
    metrics = [
        metric(case, "firing_rate_error", abs(r - r_ref), units="Hz", where=f"I = {i:g} {units}",
               detail=f"model {r:g} Hz, reference {r_ref:g} Hz")
        for i, r, r_ref in zip(currents, rate, rate_ref, strict=True)
    ]  # fmt: skip
    caption = f"F-I curve: firing rate in [{window[0]:g}, {window[1]:g}) ms, difflab over the reference, and error."
    figure = functools.partial(
        overlay_figure, currents, rate, rate_ref, xlabel=f"current ({units})", ylabel="rate (Hz)", marker="o"
    )
    provenance = {**_solver_provenance(model, options), "preset": _preset_name(case)}
    provenance["protocol"] = f"constant current from t = 0 ms, t_end = {t_end:g} ms, window = {window} ms"
    return CaseOutcome(metrics, [(caption, figure)], provenance | _reference_provenance(ref))


def check_preset(case: CaseSpec) -> None:
    """Eager check: the case's model preset exists."""
    name = _preset_name(case)
    try:
        preset_file(name)
    except PresetError as err:
        raise CaseError(f"{case.file}: field 'model': {err}") from err
    solver = case.get("simulation.solver", str, default="default")
    if solver not in _SOLVERS:
        raise CaseError(f"{case.file}: field 'simulation.solver': {solver!r} is not one of {', '.join(_SOLVERS)}")


def _preset_name(case: CaseSpec) -> str:
    if case.model is None:
        raise CaseError(f"{case.file}: missing field 'model' (a preset in models/, e.g. 'hodgkin_huxley/squid_axon')")
    return case.model


def _model_and_options(case: CaseSpec):
    model = load_model(_preset_name(case))
    solver = case.get("simulation.solver", str, default="default")
    options = {}
    if solver != "default":
        options["solver"] = getattr(diffrax, solver)()
        rtol, atol = case.get("simulation.rtol", float, 1e-8), case.get("simulation.atol", float, 1e-8)
        options["stepsize_controller"] = diffrax.PIDController(rtol=rtol, atol=atol)
    if case.get("simulation.dt0", float, default=None) is not None:
        options["dt0"] = case.get("simulation.dt0", float)
    return model, options


def _solver_provenance(model, options) -> dict[str, str]:
    solver = options.get("solver", model.default_solver())
    controller = options.get("stepsize_controller", model.default_stepsize_controller())
    return {
        "solver": type(solver).__name__,
        "stepsize_controller": type(controller).__name__,
        "rtol": str(getattr(controller, "rtol", "none")),
        "atol": str(getattr(controller, "atol", "none")),
        "dt0": str(options.get("dt0", model.default_dt0())),
        "dtype": str(model.C.dtype),
    }


def _reference_provenance(ref) -> dict[str, str]:
    return {f"reference_{k}": str(ref.attrs[k]) for k in _REFERENCE_ATTRS if k in ref.attrs}


def _one_trace(var) -> np.ndarray:
    """The reference trace as 1-D (the HH files carry a length-1 `amplitude` axis)."""
    return np.asarray(var.values, dtype=float).reshape(-1, var.sizes["time"])[0]


def _spike_error_figure(spikes, spikes_ref, tolerance) -> Any:
    n = min(spikes.size, spikes_ref.size)
    fig = new_figure((9, 3.2))
    ax = fig.subplots()
    index = np.arange(1, n + 1)
    ax.axhline(0.0, **{**REFERENCE_STYLE, "label": "reference"})
    ax.plot(index, spikes[:n] - spikes_ref[:n], "o-", **{**MODEL_STYLE, "label": "difflab − reference"})
    if tolerance is not None:
        ax.axhspan(-tolerance, tolerance, color="tab:green", alpha=0.12, label=f"tolerance ±{tolerance:g} ms")
    ax.set_xlabel("spike number")
    ax.set_ylabel("spike-time error (ms)")
    ax.set_xticks(index)
    ax.legend(loc="best", frameon=False)
    ax.grid(alpha=0.3)
    return fig


TRACE = Runner(
    run=run_trace,
    metrics=("spike_count_error", "spike_time_max_error", "v_rms_error", "v_max_abs_error", "gates_max_abs_error"),
    required={"protocol": dict},
    optional={"threshold": float, **_SIMULATION},
    check=check_preset,
)


FI_CURVE = Runner(
    run=run_fi_curve,
    metrics=("firing_rate_error",),
    required={"window": list},
    optional={"t_end": float, "threshold": float, **_SIMULATION},
    check=check_preset,
)


register_runner("neuron.trace", TRACE)


register_runner("neuron.fi_curve", FI_CURVE)


def _ball_and_stick():

    return Cell.ball_and_stick()


def _da1_lpn():
    """The hemibrain DA1 lPN skeleton (``datasets/neuron/da1_lpn_722817260.swc``), hh everywhere, nseg 1."""
    morph = read_swc(dataset_path("neuron/da1_lpn_722817260.swc"))
    hh = {"na": SodiumChannel(120.0, 50.0), "k": PotassiumChannel(36.0, -77.0), "leak": LeakChannel(0.3, -54.3)}
    return Cell(morph, {"dend": Region(hh, Ra=100.0)})


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
    # spike sites are recorded locations
    sites = {
        site: (site, ref["spike_times"].sel(spike_site=site).values) for site in map(str, ref["spike_site"].values)
    }
    metrics, figures = located_trace_outcome(case, ts, V, ref, sites, "site")
    provenance = {
        **dict(traj.provenance),
        "cell": case.get("cell", str),
        "stimuli": "; ".join(f"{loc}: {t}" for loc, t in case.get("stimuli", dict).items()),
    }
    provenance |= {f"reference_{k}": str(ref.attrs[k]) for k in ("simulator", "simulator_version", "integration")}
    return CaseOutcome(metrics, figures, provenance)


def located_trace_outcome(case: CaseSpec, ts, V: dict, ref, sites: dict, noun: str):
    """Metrics and figures of potentials at named locations against a reference's `V` on `(time, location)`.

    ``V`` maps every reference location to the model's potential there; ``sites`` maps a label to ``(location,
    reference spike times)``, the spikes being upward 0 mV crossings at that location. Metrics: `spike_count_error`
    (summed), `spike_time_max_error` (worst paired spike, ms), `v_rms_error` and `v_max_abs_error` (worst location).
    """
    locations = [str(x) for x in ref["location"].values]
    V_ref = {loc: ref["V"].values[:, k] for k, loc in enumerate(locations)}
    n_model = n_ref = 0
    worst, details = 0.0, []
    for label, (where, reference) in sites.items():
        got, want = finite_values(spike_times(ts, V[where])), finite_values(reference)
        n_model, n_ref = n_model + got.size, n_ref + want.size
        worst = max(worst, event_time_max_error(got, want))
        details.append(f"{label}: model {got.size}, reference {want.size}")
    rms = {loc: rms_error(V[loc], V_ref[loc]) for loc in locations}
    peak = {loc: max_abs_error(V[loc], V_ref[loc]) for loc in locations}
    worst_rms, worst_peak = max(rms, key=rms.__getitem__), max(peak, key=peak.__getitem__)
    metrics = [
        metric(case, "spike_count_error", count_error(n_model, n_ref), units="spikes", detail="; ".join(details)),
        metric(case, "spike_time_max_error", worst, units="ms", detail=f"worst paired spike over all {noun}s"),
        metric(case, "v_rms_error", rms[worst_rms], units="mV", detail=f"worst at {worst_rms}"),
        metric(case, "v_max_abs_error", peak[worst_peak], units="mV", detail=f"worst at {worst_peak}"),
    ]
    figures = [
        (f"Membrane potential at {loc}: difflab over NEURON (top) and the difference (bottom).",
         functools.partial(overlay_figure, ts, V[loc], V_ref[loc], xlabel="time (ms)", ylabel=f"V at {loc} (mV)"))
        for loc in locations
    ]  # fmt: skip
    return metrics, figures


def check_cell(case: CaseSpec) -> None:
    """Eager check: the case names a known cell and its stimuli are protocol tables."""
    name = case.get("cell", str)
    if name not in CELLS:
        raise CaseError(f"{case.file}: field 'cell': unknown cell {name!r}; known: {', '.join(CELLS)}")
    check_stimulus_tables(case)


def check_stimulus_tables(case: CaseSpec) -> None:
    """Every `[stimuli.<key>]` table is a protocol table (the message names the file and the field)."""
    for key, table in case.get("stimuli", dict).items():
        try:
            protocol_from_table(table, f"stimuli.{key}")
        except ValueError as err:
            raise CaseError(f"{case.file}: {err}") from err


CELL_TRACE = Runner(
    run=run_cell_trace,
    metrics=("spike_count_error", "spike_time_max_error", "v_rms_error", "v_max_abs_error"),
    required={"cell": str, "stimuli": dict},
    check=check_cell,
)


register_runner("neuron.cell_trace", CELL_TRACE)


def synapses_from(ref) -> list:
    """The synapse groups a reference dataset describes (one group per mechanism)."""
    return [group for group, _ in synapse_groups(ref)]


def synapse_groups(ref) -> list[tuple[AbstractSynapses, np.ndarray]]:
    """Each mechanism's synapse group in a reference dataset, with its rows in the dataset's ``synapse`` axis.

    Mechanisms: NEURON's ``ExpSyn`` (``syn_tau``, or ``syn_tau2``), ``Exp2Syn`` (``syn_tau1``, ``syn_tau2``) and
    ``NMDAExp2`` (``datasets/neuron/mod/nmda_exp2.mod``: ``Exp2Syn``'s kinetics with ``syn_mg`` mM of magnesium).
    """
    mech = ref["syn_mechanism"].values if "syn_mechanism" in ref else np.full(ref.sizes["synapse"], "ExpSyn")
    col = lambda name, rows: ref[f"syn_{name}"].values[rows]  # noqa: E731
    groups: list[tuple[AbstractSynapses, np.ndarray]] = []
    for kind in sorted(set(map(str, mech))):
        rows = np.flatnonzero(mech == kind)
        common = (col("pre", rows), col("post", rows), col("weight", rows), col("delay", rows))
        if kind == "ExpSyn":
            tau = col("tau", rows) if "syn_tau" in ref else col("tau2", rows)
            groups.append((ExpSynapses(*common, tau, col("e", rows)), rows))
        elif kind == "Exp2Syn":
            groups.append((Exp2Synapses(*common, col("tau1", rows), col("tau2", rows), col("e", rows)), rows))
        elif kind == "NMDAExp2":
            nmda = NMDASynapses(*common, col("tau1", rows), col("tau2", rows), col("e", rows), col("mg", rows))
            groups.append((nmda, rows))
        else:
            raise CaseError(
                f"dataset: unknown synapse mechanism {kind!r} in syn_mechanism; known: ExpSyn, Exp2Syn, NMDAExp2"
            )
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
        got = finite_values(spike_times(ts, V[:, i]))
        want = finite_values(ref["spike_times"].values[i])
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
         functools.partial(overlay_figure, ts, V[:, i], V_ref[:, i], xlabel="time (ms)", ylabel=f"V of cell {i} (mV)"))
        for i in range(n)
    ]  # fmt: skip
    provenance = {**dict(traj.provenance), "synapses": str(ref.attrs.get("synapses", ""))}
    provenance |= {f"reference_{k}": str(ref.attrs[k]) for k in ("simulator", "simulator_version", "integration")}
    return CaseOutcome(metrics, figures, provenance)


def check_network(case: CaseSpec) -> None:
    """Eager check: the stimuli are protocol tables keyed by cell index."""
    for cell in case.get("stimuli", dict):
        if not cell.isdigit():
            raise CaseError(f"{case.file}: field 'stimuli.{cell}': expected a cell index (0, 1, ...)")
    check_stimulus_tables(case)


NETWORK_SPIKES = Runner(
    run=run_network_spikes,
    metrics=("spike_count_error", "spike_time_max_error", "v_rms_error", "v_max_abs_error"),
    required={"stimuli": dict},
    check=check_network,
)


register_runner("neuron.network_spikes", NETWORK_SPIKES)
