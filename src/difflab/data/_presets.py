"""Model presets by name: `"hodgkin_huxley/squid_axon"` -> a model instance.

A preset is `models/<group>/<name>.toml` with `[model] class = "difflab.neuron.HodgkinHuxley"`.
The package that defines the class builds it: `difflab.neuron.load_preset("squid_axon")`.
"""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path
from typing import Any

from ._resources import resource_dir


class PresetError(ValueError):
    """An unknown or malformed model preset."""


def available_presets(group: str | None = None) -> list[str]:
    """Every shipped preset as `"<group>/<name>"` (only those of `group`, e.g. `"hodgkin_huxley"`, if given)."""
    root = resource_dir("models")
    names = sorted(f"{p.parent.name}/{p.stem}" for p in root.glob("*/*.toml"))
    if group is None:
        return names
    groups = sorted({n.split("/")[0] for n in names})
    if group not in groups:
        raise PresetError(f"group must be one of {', '.join(groups)} (or None for all); got {group!r}")
    return [n for n in names if n.split("/")[0] == group]


def preset_file(name: str) -> Path:
    """The TOML file of preset `name` (`"group/name"`, or `"name"` when unambiguous)."""
    names = available_presets()
    matches = [n for n in names if n == name or n.split("/")[1] == name]
    if len(matches) != 1:
        why = "ambiguous" if matches else "unknown"
        raise PresetError(f"{why} model preset {name!r}; available: {', '.join(names) or 'none'}")
    return resource_dir("models") / f"{matches[0]}.toml"


def load_model(name: str) -> Any:
    """The model of preset `name`, built by `load_preset` of the package that defines its class."""
    file = preset_file(name)
    try:
        cls_path = tomllib.loads(file.read_text(encoding="utf-8"))["model"]["class"]
    except (tomllib.TOMLDecodeError, KeyError, TypeError) as err:
        raise PresetError(f"{file}: a preset needs a [model] table with a 'class' string ({err})") from err
    module_name = cls_path.rpartition(".")[0]
    try:
        loader = importlib.import_module(module_name).load_preset
    except (ImportError, AttributeError) as err:
        raise PresetError(f"{file}: cannot load presets of {cls_path!r}: {err}") from err
    return loader(file.stem)
