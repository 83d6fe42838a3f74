r"""Current-clamp recordings from NWB files, as the data and protocols that `calibrate` takes.

An NWB file (Neurodata Without Borders, read with `pynwb`) holds each current-clamp sweep as a
`CurrentClampSeries` (the membrane potential, in volts) in `acquisition` and the injected current as
a `CurrentClampStimulusSeries` (amperes) in `stimulus`, paired by `sweep_number`. Both store raw
samples with a `conversion` and `offset` to SI units (pynwb fixes the units of these two series to volts and
amperes, whatever a writer asked for) and a time base (`starting_time` + `rate`,
or `timestamps`) in seconds.

difflab's neuron models use mV, ms and a current *density* in µA/cm², so

$$V\,[\mathrm{mV}] = 10^3\,V\,[\mathrm{V}], \qquad t\,[\mathrm{ms}] = 10^3\,t\,[\mathrm{s}], \qquad
  I\,[\mu\mathrm{A/cm^2}] = \frac{10^6\,I\,[\mathrm{A}]}{A\,[\mathrm{cm^2}]},$$

with the membrane area $A$ given directly (`area_um2`, µm²; $1\,\mu\mathrm{m}^2 = 10^{-8}\,\mathrm{cm}^2$)
or from the cell's total capacitance (`capacitance_pF`) and the specific capacitance $c_m$
(µF/cm², 1 by default): $A = C / c_m$, i.e. $A\,[\mathrm{cm^2}] = 10^{-6}\,C\,[\mathrm{pF}] / c_m$.
The current is delivered to the model as recorded: held over each sample (`Sampled(mode="hold")`).

Reference: Rübel et al., *eLife* 11:e78362 (2022), the NWB 2 standard; pynwb's `icephys` module.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import xarray as xr

from ..core.internal import Sampled, optional_module
from ._netcdf import DataFileError


@dataclasses.dataclass(frozen=True)
class Recording:
    """Current-clamp sweeps ready for [`difflab.calibrate`][]: `calibrate(model, rec.protocols, rec.data, ...)`.

    Attributes:
        data: Dataset with `V` (mV) on dims `("sweep", "time")`, time in ms from each sweep's start
            (NaN samples are kept: `calibrate` leaves them out of the loss).
        protocols: one [`Sampled`][difflab.Sampled] current density (µA/cm², held) per sweep.
        area_cm2: the membrane area used to convert currents to densities.
    """

    data: xr.Dataset
    protocols: list[Sampled]
    area_cm2: float


def read_nwb(
    path: str | os.PathLike,
    *,
    area_um2: float | None = None,
    capacitance_pF: float | None = None,
    specific_capacitance: float = 1.0,
    sweeps: Sequence[int] | None = None,
) -> Recording:
    """Read the current-clamp sweeps of an NWB file in difflab's units (mV, ms, µA/cm²).

    Args:
        path: the `.nwb` file.
        area_um2: membrane area of the recorded cell (µm²).
        capacitance_pF: or its total membrane capacitance (pF), with `specific_capacitance`.
        specific_capacitance: µF/cm² (1 for most neurons; the model's `C`).
        sweeps: sweep numbers to read (default: every sweep that has both a response and a stimulus).

    Raises:
        DataFileError: the file is missing, not NWB, or holds no current-clamp sweep; a sweep lacks its
            stimulus, has NaN in the stimulus, or its response and stimulus differ in length or sampling;
            sweeps differ in length or sampling from each other.
        ValueError: neither or both of `area_um2` and `capacitance_pF`, or a value that is not > 0.
        ImportError: pynwb is not installed (`pip install 'difflab[nwb]'`).
    """
    area = _area_cm2(area_um2, capacitance_pF, specific_capacitance)
    path = Path(path)
    if not path.is_file():
        raise DataFileError(f"NWB file {str(path)!r} does not exist")
    NWBHDF5IO = optional_module("pynwb", "nwb", "reading NWB files").NWBHDF5IO
    icephys = optional_module("pynwb.icephys", "nwb", "reading NWB files")
    CurrentClampSeries, CurrentClampStimulusSeries = icephys.CurrentClampSeries, icephys.CurrentClampStimulusSeries
    try:
        io = NWBHDF5IO(str(path), "r")
        nwb = io.read()
    except Exception as err:  # h5py/pynwb raise many types for a corrupt or foreign file
        raise DataFileError(f"{str(path)!r} is not a readable NWB file: {err}") from None
    try:
        responses = _by_sweep(nwb.acquisition.values(), CurrentClampSeries, "response")
        stimuli = _by_sweep(nwb.stimulus.values(), CurrentClampStimulusSeries, "stimulus")
        if not responses:
            raise DataFileError(f"{str(path)!r} holds no CurrentClampSeries in acquisition")
        chosen = sorted(responses) if sweeps is None else _check_sweeps(sweeps)
        rows = [_sweep(number, responses, stimuli, path, area) for number in chosen]
    finally:
        io.close()
    return _assemble(rows, chosen, area, path)


def _area_cm2(area_um2, capacitance_pF, specific_capacitance) -> float:
    if (area_um2 is None) == (capacitance_pF is None):
        raise ValueError(
            "currents in amperes become current densities (µA/cm²) only with the membrane area: give "
            "area_um2 (µm²) or capacitance_pF (the cell's total capacitance, pF), exactly one of them"
        )
    for name, value in (("area_um2", area_um2), ("capacitance_pF", capacitance_pF),
                        ("specific_capacitance", specific_capacitance)):  # fmt: skip
        if value is not None and not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    if area_um2 is not None:
        return float(area_um2) * 1e-8
    return float(capacitance_pF) * 1e-6 / float(specific_capacitance)


def _check_sweeps(sweeps) -> list[int]:
    """The requested sweep numbers: a non-empty sequence of distinct whole numbers."""
    if isinstance(sweeps, str | bytes) or not isinstance(sweeps, Sequence | np.ndarray):
        raise TypeError(f"sweeps must be a list of sweep numbers or None (every sweep); got {sweeps!r}")
    numbers = list(sweeps)
    if not numbers:
        raise ValueError("sweeps must name at least one sweep number, or be None for every sweep; got []")
    for s in numbers:
        if isinstance(s, bool) or not float(s).is_integer():
            raise ValueError(f"sweeps must hold whole sweep numbers; got {s!r}")
    chosen = [int(s) for s in numbers]
    repeated = sorted({s for s in chosen if chosen.count(s) > 1})
    if repeated:
        raise ValueError(f"sweeps must name each sweep once; got {repeated} more than once")
    return chosen


def _by_sweep(series, kind, role: str) -> dict[int, object]:
    out: dict[int, object] = {}
    for s in series:
        if not isinstance(s, kind):
            continue
        if s.sweep_number is None:
            raise DataFileError(f"{role} series {s.name!r} has no sweep_number, so it cannot be paired")
        number = int(s.sweep_number)
        if number in out:  # keeping either would silently drop the other sweep
            raise DataFileError(
                f"{role} series {out[number].name!r} and {s.name!r} both have sweep_number {number}, so neither "  # type: ignore[attr-defined]
                "can be paired with its counterpart; give each sweep its own number"
            )
        out[number] = s
    return out


def _sweep(number, responses, stimuli, path, area):
    if number not in responses:
        raise DataFileError(f"sweeps: sweep {number} has no CurrentClampSeries in {str(path)!r}; "
                            f"it has sweeps {sorted(responses)}")  # fmt: skip
    if number not in stimuli:
        raise DataFileError(f"sweep {number} has no CurrentClampStimulusSeries in {str(path)!r}: the injected "
                            "current is needed to simulate it")  # fmt: skip
    response, stimulus = responses[number], stimuli[number]
    t_v, t_i = np.asarray(response.get_timestamps(), float), np.asarray(stimulus.get_timestamps(), float)
    v = np.asarray(response.get_data_in_units(), float)
    i = np.asarray(stimulus.get_data_in_units(), float)
    if v.ndim != 1 or i.ndim != 1:
        raise DataFileError(f"sweep {number}: response and stimulus must be 1-D; got {v.shape} and {i.shape}")
    if abs(t_v[0] - t_i[0]) > 1e-9:  # moving one onto the other's start would apply the current early or late
        raise DataFileError(
            f"sweep {number}: the stimulus starts at {t_i[0]:.9g} s and the response at {t_v[0]:.9g} s; "
            "difflab pairs their samples one to one, so both must start at the same time (trim or pad the "
            "stimulus onto the response's times first)"
        )
    if v.shape != i.shape or not np.allclose(t_v - t_v[0], t_i - t_i[0], rtol=0, atol=1e-9):
        raise DataFileError(
            f"sweep {number}: response ({v.size} samples at {_rate(t_v)}) and stimulus ({i.size} samples at "
            f"{_rate(t_i)}) differ in length or sampling; resample one onto the other's times first"
        )
    if not np.all(np.isfinite(i)):
        raise DataFileError(f"sweep {number}: the stimulus has {int(np.sum(~np.isfinite(i)))} NaN/inf samples; "
                            "the current must be known at every sample to simulate the sweep")  # fmt: skip
    if np.all(~np.isfinite(v)):
        raise DataFileError(f"sweep {number}: the response has no finite sample")
    return (t_v - t_v[0]) * 1e3, v * 1e3, i * 1e6 / area


def _rate(t: np.ndarray) -> str:
    return f"{1.0 / np.median(np.diff(t)):.6g} Hz" if t.size > 1 else "one sample"


def _assemble(rows, numbers, area, path) -> Recording:
    times = rows[0][0]
    for number, (t, _, _) in zip(numbers, rows, strict=True):
        if t.shape != times.shape or not np.allclose(t, times, rtol=0, atol=1e-6):
            raise DataFileError(
                f"sweep {number} has {t.size} samples at {_rate(t / 1e3)}, sweep {numbers[0]} {times.size} at "
                f"{_rate(times / 1e3)}: fit sweeps of one length and sampling together (choose them with sweeps=)"
            )
    V = np.stack([v for _, v, _ in rows])
    data = xr.Dataset(
        {"V": (("sweep", "time"), V, {"units": "mV", "long_name": "membrane potential"})},
        coords={"sweep": np.asarray(numbers), "time": ("time", times, {"units": "ms"})},
        attrs={"source": str(path), "membrane_area_cm2": area},
    )
    protocols = [Sampled(times, i, mode="hold") for _, _, i in rows]
    return Recording(data=data, protocols=protocols, area_cm2=area)
