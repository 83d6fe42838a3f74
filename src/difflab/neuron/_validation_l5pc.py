"""The validation kind `neuron.l5pc`: Hay's L5 pyramidal cell (`l5pc`) against NEURON on BluePyOpt's protocols.

A case names a protocol of `datasets/neuron/l5pc.nc` (`protocol = "bAP"`, `"Step1"`, `"Step2"`, `"Step3"`; its
current clamps at `soma[0](0.5)` come from the dataset's `stim_delay`, `stim_dur`, `stim_amp`) and a `window =
[start, stop]` (ms). The cell starts at rest (`v_init`) at 0 ms and runs with its default solver:

- over `[0, start)` at NEURON's 0.025 ms: before the window the cell relaxes to rest under the hold current
  (no spike, nothing faster than its passive time constants), and a step of 0.025 ms leaves the state at
  `start` within rounding of a finer one, at an eighth of the cost of the L5PC's default step;
- over `[start, stop]` at its default step (`Cell.default_dt0`), on the reference's time grid.

Metrics, all over the window: `spike_count_error` and `spike_time_max_error` (upward −20 mV crossings at
`soma[0](0.5)`, the reference's `spike_times`, NEURON's NetCon times), `bap_amplitude_error` (the worst
apical site: the peak over the potential just before `start`, difflab's against NEURON's; mV) and
`v_rms_error` (the worst recorded location, mV).
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from ..core.internal import Step, Sum, simulate
from ..validation import (
    CaseError,
    CaseOutcome,
    CaseSpec,
    Runner,
    count_error,
    event_time_max_error,
    finite_values,
    metric,
    overlay_figure,
    register_runner,
    rms_error,
    worst_event,
)
from ._cell import DEFAULT_CABLE_DT, Cell
from ._features import spike_times
from ._l5pc import l5pc
from ._stimulus import IClamp

#: Where BluePyOpt's protocols inject their currents and detect spikes (eFEL's threshold, mV).
SOMA, THRESHOLD = "soma[0](0.5)", -20.0


@functools.cache
def _cell() -> Cell:
    """The L5PC, built once per process (3-4 s) for all its cases."""
    return l5pc()


def clamp(ref, protocol: str) -> IClamp:
    """The protocol's current clamps at the soma (nA) from the dataset's `stim_*` variables."""
    sel = {"protocol": protocol}
    delay, dur, amp = (ref[f"stim_{k}"].sel(sel).values for k in ("delay", "dur", "amp"))
    steps = [Step(float(a), float(d), float(d + t)) for d, t, a in zip(delay, dur, amp, strict=True) if np.isfinite(a)]
    return IClamp({SOMA: steps[0] if len(steps) == 1 else Sum(*steps)})


def run_l5pc(case: CaseSpec) -> CaseOutcome:

    ref = case.load_dataset()
    protocol = case.get("protocol", str)
    start, stop = _window(case)
    bap = protocol == "bAP"
    ts_all = ref["time_bap"].values if bap else ref["time_step"].values
    keep = (ts_all >= start) & (ts_all <= stop)
    ts = ts_all[keep]
    V_ref = (ref["V_bap"] if bap else ref["V_step"].sel(step_protocol=protocol)).values[keep].astype(float)
    locations = [str(w) for w in ref["location"].values] if bap else [SOMA]
    cell, stimulus = _cell(), clamp(ref, protocol)
    lead = simulate(cell, stimulus, jnp.asarray([0.0, start]), dt0=DEFAULT_CABLE_DT)
    y0 = {k: v[-1] for k, v in lead.ys.items()}
    observe, info = cell.recorder(locations)
    traj = simulate(cell, stimulus, jnp.asarray(ts), y0=y0, observe=observe, observe_info=info)
    V = np.stack([np.asarray(traj.ys[w]) for w in locations], axis=1)

    got = finite_values(spike_times(jnp.asarray(ts), jnp.asarray(V[:, 0]), THRESHOLD, max_spikes=64))
    want = finite_values(ref["spike_times"].sel(protocol=protocol).values)
    want = want[(want >= start) & (want <= stop)]
    rms = [rms_error(V[:, j], V_ref[:, j]) for j in range(len(locations))]
    worst = int(np.argmax(rms))
    metrics = [
        metric(case, "spike_count_error", count_error(got.size, want.size), units="spikes",
               detail=f"model {got.size}, reference {want.size} at {SOMA}"),
        metric(case, "spike_time_max_error", event_time_max_error(got, want), units="ms",
               detail=worst_event(got, want)),
        metric(case, "v_rms_error", rms[worst], units="mV", detail=f"worst at {locations[worst]}, {ts.size} samples"),
    ]  # fmt: skip
    if bap:
        metrics.append(_amplitude_metric(case, V, V_ref, locations))
    figures = [
        (f"Membrane potential at {w}: difflab over NEURON (top) and the difference (bottom).",
         functools.partial(overlay_figure, ts, V[:, j], V_ref[:, j], xlabel="time (ms)", ylabel=f"V at {w} (mV)"))
        for j, w in enumerate(locations)
    ]  # fmt: skip
    provenance = {
        **dict(traj.provenance),
        "cell": "l5pc (BluePyOpt's released parameters, 699 compartments)",
        "protocol": f"{protocol}: {_describe(ref, protocol)}",
        "window": f"[{start:g}, {stop:g}] ms at the default step; [0, {start:g}) ms at {DEFAULT_CABLE_DT} ms",
    }
    provenance |= {f"reference_{k}": str(ref.attrs[k]) for k in ("simulator", "simulator_version", "integrator")}
    return CaseOutcome(metrics, figures, provenance)


def _amplitude_metric(case: CaseSpec, V: np.ndarray, V_ref: np.ndarray, locations: list[str]):
    """The bAP's amplitude (peak over the first sample of the window) at each apical site; the worst error."""
    errors, details = [], []
    for j in range(1, len(locations)):
        a, b = V[:, j].max() - V[0, j], V_ref[:, j].max() - V_ref[0, j]
        errors.append(abs(a - b))
        details.append(f"{locations[j]}: model {a:.2f}, reference {b:.2f} mV")
    return metric(case, "bap_amplitude_error", max(errors), units="mV", detail="; ".join(details))


def _window(case: CaseSpec) -> tuple[float, float]:
    window = case.get("window", list)
    if len(window) != 2 or not all(isinstance(w, int | float) for w in window) or not 0 <= window[0] < window[1]:
        raise CaseError(f"{case.file}: field 'window' must be [start, stop] in ms with 0 <= start < stop; got {window}")
    return float(window[0]), float(window[1])


def _describe(ref, protocol: str) -> str:
    sel = {"protocol": protocol}
    delay, dur, amp = (ref[f"stim_{k}"].sel(sel).values for k in ("delay", "dur", "amp"))
    parts = [f"{a:g} nA on [{d:g}, {d + t:g}) ms" for d, t, a in zip(delay, dur, amp, strict=True) if np.isfinite(a)]
    return f"{', '.join(parts)} at {SOMA}"


def check_l5pc(case: CaseSpec) -> None:
    """Eager check: a known protocol name and a valid window."""
    protocol = case.get("protocol", str)
    if protocol not in ("bAP", "Step1", "Step2", "Step3"):
        raise CaseError(f"{case.file}: field 'protocol': {protocol!r} is not one of bAP, Step1, Step2, Step3")
    _window(case)


L5PC = Runner(
    run=run_l5pc,
    metrics=("spike_count_error", "spike_time_max_error", "v_rms_error", "bap_amplitude_error"),
    required={"protocol": str, "window": list},
    check=check_l5pc,
)


register_runner("neuron.l5pc", L5PC)
