"""Validation case specs: TOML files that name a model, a reference dataset, metrics and tolerances.

A case file looks like:

```toml
title = "Hodgkin-Huxley squid axon, 10 µA/cm² step"
kind = "neuron.trace"                  # which runner computes the metrics
model = "hodgkin_huxley/squid_axon"    # a preset in models/
dataset = "hh/hh_step_10uA"            # a shipped dataset (or dataset_file = "x.nc")

[protocol]                             # runner-specific fields
type = "step"
amplitude = 10.0

[metrics]
spike_time_max_error = { tolerance = 0.05 }
```

Every problem is reported eagerly, as a [`CaseError`][difflab.validation.CaseError] that names
the file and the field.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from pathlib import Path
from typing import Any

import xarray as xr

from .. import datasets
from ..data.internal import DataFileError, read_netcdf, resource_dir

_COMMON = {"title": str, "kind": str, "model": str, "description": str, "metrics": dict}
_TYPE_NAMES = {str: "a string", dict: "a table", float: "a number", int: "an integer", list: "an array"}


class CaseError(ValueError):
    """A validation case that cannot be run: unknown, malformed, or pointing at missing data."""


@dataclasses.dataclass(frozen=True)
class CaseSpec:
    """One validation case, as read from its TOML file.

    Attributes:
        name: the case name (the file's stem, e.g. `"hh_step_10uA"`).
        file: the TOML file.
        data: the parsed TOML table (runner-specific fields included).
    """

    name: str
    file: Path
    data: dict[str, Any]

    @property
    def title(self) -> str:
        return self.data["title"]

    @property
    def kind(self) -> str:
        return self.data["kind"]

    @property
    def model(self) -> str | None:
        """The model preset (`"group/name"` in models/), or `None` when the runner builds the model itself."""
        return self.data.get("model")

    @property
    def dataset(self) -> str:
        """The dataset's shipped name, or the path of a local file (`dataset_file`)."""
        if "dataset" in self.data:
            return self.data["dataset"]
        return str(self.dataset_path)

    @property
    def dataset_path(self) -> Path:
        """The data file (after checking its sha256 when it is a shipped dataset)."""
        if "dataset" in self.data:
            try:
                return datasets.path(self.data["dataset"])
            except DataFileError as err:
                raise CaseError(f"{self.file}: field 'dataset': {err}") from err
        file = (self.file.parent / self.data["dataset_file"]).resolve()
        if not file.is_file():
            raise CaseError(f"{self.file}: field 'dataset_file': {str(file)!r} does not exist")
        return file

    def load_dataset(self) -> xr.Dataset:
        """The reference data as an `xarray.Dataset` (checksum checked for shipped data)."""
        try:
            if "dataset" in self.data:
                return datasets.load(self.data["dataset"])
            return read_netcdf(self.dataset_path)
        except DataFileError as err:
            raise CaseError(f"{self.file}: dataset: {err}") from err

    @property
    def tolerances(self) -> dict[str, float]:
        """Metric name -> tolerance, as the case file states them."""
        return {k: float(v["tolerance"]) for k, v in self.data["metrics"].items()}

    def get(self, field: str, kind: type | tuple[type, ...] = object, default: Any = ...) -> Any:
        """The value at dotted `field` (`"protocol.amplitude"`); clear error if absent or mistyped."""
        node: Any = self.data
        for part in field.split("."):
            if not isinstance(node, dict) or part not in node:
                if default is not ...:
                    return default
                raise CaseError(f"{self.file}: missing field {field!r}")
            node = node[part]
        return _check_type(node, kind, field, self.file)


def load_case(
    file: str | Path, *, required: dict[str, type] | None = None, optional: dict[str, type] | None = None
) -> CaseSpec:
    """Read and check a case file.

    It checks the common fields, then the runner's `required` and `optional` fields (dotted name -> type) when given;
    other top-level fields are refused.
    """
    file = Path(file)
    if not file.is_file():
        raise CaseError(f"case file {str(file)!r} does not exist")
    try:
        with open(file, "rb") as fh:
            data = tomllib.load(fh)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise CaseError(f"{file}: not valid TOML: {err}") from err
    spec = CaseSpec(name=file.stem, file=file, data=data)
    _check_common(spec)
    if required is not None or optional is not None:
        _check_runner_fields(spec, required or {}, optional or {})
    return spec


def shipped_cases() -> dict[str, Path]:
    """Case name -> file for every `*.toml` in the shipped `validation/` folder."""
    return {p.stem: p for p in sorted(resource_dir("validation").glob("*.toml"))}


def find_case_file(name: str) -> Path:
    """A shipped case by name (`"hh_step_10uA"`) or a path to a `.toml` file."""
    shipped = shipped_cases()
    if name in shipped:
        return shipped[name]
    if name.endswith(".toml"):
        if Path(name).is_file():
            return Path(name)
        raise CaseError(f"case file {name!r} does not exist")
    raise CaseError(f"unknown case {name!r}; available: {', '.join(shipped) or 'none'}")


def _check_common(spec: CaseSpec) -> None:
    for field in ("title", "kind", "metrics"):
        spec.get(field, _COMMON[field])
    # Optional: runners that rebuild the model from the dataset (quantum, reflector) need no preset.
    spec.get("model", str, default=None)
    spec.get("description", str, default=None)
    has_name, has_file = "dataset" in spec.data, "dataset_file" in spec.data
    if has_name == has_file:
        raise CaseError(f"{spec.file}: give exactly one of the fields 'dataset' (a shipped name) or 'dataset_file'")
    spec.get("dataset" if has_name else "dataset_file", str)
    if not spec.data["metrics"]:
        raise CaseError(f"{spec.file}: field 'metrics' is empty; a case needs at least one metric with a tolerance")
    for name, entry in spec.data["metrics"].items():
        where = f"metrics.{name}"
        _check_type(entry, dict, where, spec.file)
        if "tolerance" not in entry:
            raise CaseError(f"{spec.file}: missing field '{where}.tolerance'")
        _check_type(entry["tolerance"], float, f"{where}.tolerance", spec.file)
        # Every metric is a non-negative error: a NaN tolerance would fail silently, a negative one always.
        if not (math.isfinite(entry["tolerance"]) and entry["tolerance"] >= 0):
            raise CaseError(
                f"{spec.file}: field '{where}.tolerance' must be a finite number >= 0; got {entry['tolerance']!r}"
            )
        unknown = set(entry) - {"tolerance", "description"}
        if unknown:
            raise CaseError(f"{spec.file}: unknown field(s) {sorted(unknown)} in '{where}' (allowed: tolerance)")


def _check_runner_fields(spec: CaseSpec, required: dict[str, type], optional: dict[str, type]) -> None:
    for field, kind in required.items():
        spec.get(field, kind)
    for field, kind in optional.items():
        spec.get(field, kind, default=None)
    fields = {**required, **optional}
    allowed = set(_COMMON) | {"dataset", "dataset_file"} | {f.split(".")[0] for f in fields}
    unknown = sorted(set(spec.data) - allowed)
    if unknown:
        raise CaseError(f"{spec.file}: unknown field(s) {unknown}; allowed: {sorted(allowed)}")
    # a table declared only through its dotted fields (e.g. 'simulation.solver'): a typo inside it is refused too
    for table in {f.split(".")[0] for f in fields if "." in f} - set(fields):
        inner = {f.split(".")[1] for f in fields if f.startswith(f"{table}.")}
        value = spec.data.get(table)
        unknown = sorted(set(value) - inner) if isinstance(value, dict) else []
        if unknown:
            names = ", ".join(f"'{table}.{k}'" for k in unknown)
            raise CaseError(f"{spec.file}: unknown field(s) {names}; allowed in '{table}': {sorted(inner)}")


def _check_type(value: Any, kind: type | tuple[type, ...], field: str, file: Path) -> Any:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if object in kinds:
        return value
    names = [_TYPE_NAMES.get(k, k.__name__) for k in kinds if not (k is int and float in kinds)]
    if float in kinds:  # TOML writes 10 for 10.0
        kinds = (*kinds, int)
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        expected = " or ".join(names)
        raise CaseError(f"{file}: field {field!r} must be {expected}; got {value!r}")
    return value
