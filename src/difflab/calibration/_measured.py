"""Measured data for calibration: times, values, a mask for missing samples, recording labels.

Accepted inputs: an `xarray.Dataset` or `DataArray` with a `time` dimension, or a dict
`{"time": ts, "V": values, ...}` of arrays. Dimensions before `time` (at most one) label
several recordings fitted independently in one call; dimensions after `time` are the
variable's own axes. NaN samples are **masked** (left out of the loss), never refused,
unless a variable has no finite sample at all; an infinite sample is refused (it is not a missing one).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr

from ..core.internal import check_finite, check_increasing
from ..data.internal import conversion_factor


@dataclasses.dataclass(frozen=True)
class FitData:
    """Data normalised for fitting (host arrays).

    Attributes:
        ts: data times, shape `(time,)`.
        values: name -> array `(recording, time, ...)` with NaN replaced by 0.
        mask: name -> bool array of the same shape, `True` where a sample was measured.
        recording_dim: name of the recording dimension (`None` for a single recording).
        recordings: labels of the recordings (length `recording`).
        units: name -> units attribute (`""` if unknown).
        joined: how many recordings were joined into the one of a joint fit (`joined`); 0 when none were.
    """

    ts: np.ndarray
    values: dict[str, np.ndarray]
    mask: dict[str, np.ndarray]
    recording_dim: str | None
    recordings: np.ndarray
    units: dict[str, str]
    joined: int = 0

    @property
    def n_recordings(self) -> int:
        return len(self.recordings)

    def fingerprint(self) -> str:
        """sha256 of times and values (to refuse resuming a fit on other data)."""
        digest = hashlib.sha256(np.ascontiguousarray(self.ts).tobytes())
        for name in sorted(self.values):
            digest.update(name.encode())
            values = np.where(self.mask[name], self.values[name], np.nan)
            # the same data give the same print whether they are fitted jointly or not (the setting is the problem's)
            values = np.moveaxis(values[0], 1, 0) if self.joined else values
            digest.update(np.ascontiguousarray(values).tobytes())
        return digest.hexdigest()


def joined(fit: FitData) -> FitData:
    """The recordings of `fit` as one recording of a joint fit: each variable `(1, time, recording, ...)`.

    Behind time the recordings are axes of the variable, which every per-recording step of a fit (the loss, the
    noise level, the windows of `GrowingWindows`) already treats as the variable's own.
    """
    move = lambda a: np.moveaxis(a, 0, 1)[None]  # noqa: E731
    return dataclasses.replace(
        fit,
        values={k: move(v) for k, v in fit.values.items()},
        mask={k: move(m) for k, m in fit.mask.items()},
        recording_dim=None,
        recordings=np.arange(1),
        joined=fit.n_recordings,
    )


def as_fit_data(
    data,
    available: Sequence[str],
    variables: Sequence[str] | None = None,
    model_units: Mapping[str, str] | None = None,
    time_units: str = "",
) -> FitData:
    """Normalise `data` and check it against the `available` model outputs.

    `model_units` (the model's units by output name) and `time_units`: variables and the `time`
    coordinate whose `units` attribute names another SI prefix of the same unit are converted
    (volts to mV, seconds to ms); other units are refused (see `difflab.data._units`).

    Raises:
        ValueError / TypeError: no time axis, non-increasing or non-finite times, a variable
            that the model does not produce, a variable with no finite sample, or more than
            one recording dimension.
    """
    ds = _as_dataset(data)
    if "time" not in ds.dims:
        raise ValueError(f"data must have a 'time' dimension; its dimensions are {tuple(ds.dims)}")
    ts = np.asarray(ds["time"].values, dtype=float)
    ts = ts * conversion_factor(str(ds["time"].attrs.get("units", "")), time_units, "data time")
    check_finite(ts, "data time")
    check_increasing(ts, "data time")
    if ts.size < 2:
        raise ValueError(f"data must hold at least 2 time samples to be fitted; got {ts.size}")
    names = list(variables) if variables is not None else [str(n) for n in ds.data_vars if n in available]
    if not names:
        raise ValueError(
            f"data has no variable the model produces; data variables: {sorted(map(str, ds.data_vars))}, "
            f"model outputs: {sorted(available)}"
        )
    for name in names:
        if name not in available:
            raise ValueError(f"data variable {name!r} is not a model output; model outputs: {sorted(available)}")
        if name not in ds.data_vars:
            raise ValueError(f"data has no variable {name!r}; it has {sorted(map(str, ds.data_vars))}")
    rec_dim = _recording_dim(ds, names)
    if rec_dim is None:
        labels = np.arange(1)
    else:
        labels = np.asarray(ds[rec_dim].values) if rec_dim in ds.coords else np.arange(ds.sizes[rec_dim])
    values: dict[str, np.ndarray] = {}
    mask: dict[str, np.ndarray] = {}
    units: dict[str, str] = {}
    model_units = model_units or {}
    for name in names:
        factor = conversion_factor(str(ds[name].attrs.get("units", "")), model_units.get(name, ""), f"data {name!r}")
        arr = _leading(ds[name], rec_dim) * factor
        arr = np.broadcast_to(arr, (len(labels), *arr.shape[1:]))
        finite, infinite = np.isfinite(arr), np.isinf(arr)
        if infinite.any():  # NaN marks a missing sample; an infinite one is an overflow or a corrupt file
            first = np.argwhere(infinite)[0].tolist()
            raise ValueError(f"data variable {name!r} holds {int(infinite.sum())} infinite sample(s), first at index "
                             f"{first}; mark a missing sample with NaN (masked), not inf")  # fmt: skip
        if not finite.any():
            raise ValueError(f"data variable {name!r} has no finite sample (all NaN)")
        values[name] = np.where(finite, arr, 0.0)
        mask[name] = finite
        units[name] = model_units.get(name) or str(ds[name].attrs.get("units", ""))
    return FitData(ts, values, mask, rec_dim, labels, units)


def _as_dataset(data) -> xr.Dataset:
    if isinstance(data, xr.Dataset):
        return data
    if isinstance(data, xr.DataArray):
        if data.name is None:
            raise ValueError("a DataArray given as data needs a name (the model output it measures)")
        return data.to_dataset()
    if isinstance(data, dict):
        if "time" not in data:
            raise ValueError(f"data given as a dict needs a 'time' entry; it has {sorted(data)}")
        ts = np.asarray(data["time"], dtype=float)
        if ts.ndim != 1:
            raise ValueError(f"data['time'] must be 1-D; got shape {ts.shape}")
        out = {}
        for name, value in data.items():
            if name == "time":
                continue
            arr = np.asarray(value, dtype=float)
            axis = _time_axis(arr.shape, len(ts), name)
            dims = ["recording" if k < axis else f"{name}_dim{k - axis - 1}" for k in range(arr.ndim)]
            dims[axis] = "time"
            out[name] = (tuple(dims), arr)
        return xr.Dataset(out, coords={"time": ts})
    raise TypeError(f"data must be an xarray Dataset/DataArray or a dict of arrays; got {type(data).__name__}")


def _time_axis(shape: tuple[int, ...], n: int, name: str) -> int:
    for axis in (0, 1):
        if len(shape) > axis and shape[axis] == n:
            return axis
    raise ValueError(f"data[{name!r}] has shape {shape}; expected (time={n}, ...) or (recording, time={n}, ...)")


def _recording_dim(ds: xr.Dataset, names: list[str]) -> str | None:
    leading: set[str] = set()
    for name in names:
        dims = ds[name].dims
        if "time" not in dims:
            raise ValueError(f"data variable {name!r} has no 'time' dimension (dims {dims})")
        before = dims[: dims.index("time")]
        if len(before) > 1:
            raise ValueError(f"data variable {name!r} has dims {dims}: at most one recording dimension before 'time'")
        leading.update(map(str, before))
    if len(leading) > 1:
        raise ValueError(f"data variables disagree on the recording dimension: {sorted(leading)}")
    return leading.pop() if leading else None


def _leading(da: xr.DataArray, rec_dim: str | None) -> np.ndarray:
    if rec_dim is None or rec_dim not in da.dims:
        return np.asarray(da.values, dtype=float)[None]
    return np.asarray(da.transpose(rec_dim, "time", ...).values, dtype=float)
