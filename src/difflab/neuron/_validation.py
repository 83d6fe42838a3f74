"""Runners for neuron cases: a voltage trace under a protocol, and a frequency–current curve.

`neuron.trace` simulates the preset under the case's protocol on the reference's time grid
and compares spike count, spike times (upward 0 mV crossings), V and the gates.
`neuron.fi_curve` runs every current of the reference's `current` coordinate from rest
(one batched solve) and compares the firing rate in the counting window at each current.
"""

from __future__ import annotations

import diffrax
import numpy as np
from matplotlib.figure import Figure

from ..core.internal import simulate
from ..datasets import PresetError, load_model, preset_file
from ..validation import (
    MODEL_STYLE,
    REFERENCE_STYLE,
    CaseError,
    CaseOutcome,
    CaseSpec,
    Runner,
    count_error,
    describe_protocol,
    event_time_errors,
    event_time_max_error,
    max_abs_error,
    metric,
    overlay_figure,
    protocol_from_table,
    register_runner,
    rms_error,
)
from ._features import spike_times
from ._fi import fi_curve

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
    spikes = _finite(np.asarray(spike_times(ts, V, threshold, max_spikes=max(ts.size // 2, 1))))
    spikes_ref = _finite(ref["spike_times"].values) if "spike_times" in ref else _finite(spike_times(ts, V_ref))
    gates = [g for g in ("m", "h", "n") if g in ref and g in traj.ys]
    gate_err = max((max_abs_error(traj[g], _one_trace(ref[g])) for g in gates), default=np.nan)
    errors = event_time_errors(spikes, spikes_ref)
    metrics = [
        metric(case, "spike_count_error", count_error(spikes.size, spikes_ref.size), units="spikes",
               detail=f"model {spikes.size}, reference {spikes_ref.size}"),
        metric(case, "spike_time_max_error", event_time_max_error(spikes, spikes_ref), units="ms",
               detail=_worst_spike(errors, spikes, spikes_ref)),
        metric(case, "v_rms_error", rms_error(V, V_ref), units="mV", detail=f"over {ts.size} samples"),
        metric(case, "v_max_abs_error", max_abs_error(V, V_ref), units="mV", detail="largest on spike upstrokes"),
        metric(case, "gates_max_abs_error", gate_err, units="1", detail=f"over gates {', '.join(gates)}"),
    ]  # fmt: skip
    figures = [
        ("Membrane potential V: difflab over the reference (top) and the difference (bottom).",
         overlay_figure(ts, V, V_ref, xlabel="time (ms)", ylabel="V (mV)")),
        ("Spike-time error per spike (model − reference); the band is the tolerance.",
         _spike_error_figure(spikes, spikes_ref, case.tolerances.get("spike_time_max_error"))),
    ]  # fmt: skip
    if spikes_ref.size:
        zoom = (ts >= spikes_ref[-1] - 3.0) & (ts <= spikes_ref[-1] + 4.0)
        caption = f"Zoom on the last reference spike ({spikes_ref[-1]:.2f} ms), where timing errors are largest."
        figures.append((caption, overlay_figure(ts[zoom], V[zoom], V_ref[zoom], xlabel="time (ms)", ylabel="V (mV)")))
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
    figure = overlay_figure(currents, rate, rate_ref, xlabel=f"current ({units})", ylabel="rate (Hz)", marker="o")
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


def _finite(x) -> np.ndarray:
    x = np.ravel(np.asarray(x, dtype=float))
    return x[np.isfinite(x)]


def _worst_spike(errors, spikes, spikes_ref) -> str:
    if errors.size == 0:
        return "no spikes to pair"
    i = int(np.argmax(errors))
    return f"worst: spike {i + 1}, model {spikes[i]:.3f} ms, reference {spikes_ref[i]:.3f} ms"


def _spike_error_figure(spikes, spikes_ref, tolerance) -> Figure:
    n = min(spikes.size, spikes_ref.size)
    fig = Figure(figsize=(9, 3.2), layout="constrained")
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
