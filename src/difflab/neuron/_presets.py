"""Model presets: TOML files in `models/hodgkin_huxley/` (shipped with the package)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax.numpy as jnp

from ..data.internal import resource_dir
from ._channels import AbstractChannel, LeakChannel, PotassiumChannel, SodiumChannel
from ._hodgkin_huxley import HodgkinHuxley

_FOLDER = "hodgkin_huxley"
_CHANNELS: dict[str, Callable[[], AbstractChannel]] = {"na": SodiumChannel, "k": PotassiumChannel, "leak": LeakChannel}


def preset_names() -> list[str]:
    """Names of the shipped Hodgkin–Huxley presets (e.g. `["squid_axon"]`).

    `difflab.datasets.available_presets` lists every preset of every domain as `"group/name"`.
    """
    return sorted(p.stem for p in _folder().glob("*.toml"))


def load_preset(name: str, dtype: Any = jnp.float64) -> HodgkinHuxley:
    """The [`HodgkinHuxley`][difflab.neuron.HodgkinHuxley] cell of `models/hodgkin_huxley/<name>.toml`.

    `name` is the preset's name (`"squid_axon"`) or its `"hodgkin_huxley/<name>"` form, as
    `difflab.datasets.available_presets("hodgkin_huxley")` lists them. Every `[parameters.<alias or field>]` table
    gives a `value` (with `units`); the cell starts from the channels listed in `[model] channels` and gets those
    values by name.

    Raises:
        ValueError: unknown preset (the message lists the available ones) or a units mismatch.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a preset name (a string such as 'squid_axon'); got {name!r}")
    path = _folder() / f"{name.removeprefix(_FOLDER + '/')}.toml"
    if not path.is_file():
        raise ValueError(f"unknown preset {name!r}; available: {', '.join(preset_names())}")
    spec = tomllib.loads(path.read_text(encoding="utf-8"))
    keys = spec["model"].get("channels", list(_CHANNELS))
    model = HodgkinHuxley(channels={k: _CHANNELS[k]() for k in keys})
    values = {}
    for key, entry in spec.get("parameters", {}).items():
        expected = model.parameter_units.get(key)
        if expected is not None and entry.get("units") != expected:
            raise ValueError(f"{path.name}: parameter {key!r} must be in {expected}; got {entry.get('units')!r}")
        values[key] = entry["value"]
    return model.replace(**values).astype(dtype)


def _folder() -> Path:
    return resource_dir("models") / _FOLDER
