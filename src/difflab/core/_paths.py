"""Parameters by name: dotted paths into an Equinox module (`"channels.na.gbar"`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp

from ._checks import check_numeric


def iter_parameters(module: Any, prefix: str = "") -> Iterator[tuple[str, jax.Array]]:
    """Yield `(dotted name, array)` for every floating array field, recursively.

    Modules and dicts are walked by field name / key; tuples and lists by index.
    """
    items: list[tuple[Any, Any]]
    if isinstance(module, eqx.Module):
        items = [(f, getattr(module, f)) for f in _field_names(module)]
    elif isinstance(module, dict):
        items = list(module.items())
    elif isinstance(module, list | tuple):
        items = list(enumerate(module))
    else:
        return
    for key, value in items:
        name = f"{prefix}{key}"
        if isinstance(value, jax.Array) and jnp.issubdtype(value.dtype, jnp.inexact):
            yield name, value
        else:
            yield from iter_parameters(value, name + ".")


def get_path(module, dotted: str):
    """The value at `dotted` (`"a.b.0.c"`) inside nested modules, dicts and tuples."""
    node = module
    for part in dotted.split("."):
        if isinstance(node, dict):
            node = node[part]
        elif isinstance(node, list | tuple):
            node = node[int(part)]
        else:
            node = getattr(node, part)
    return node


def where_path(dotted: str):
    """A `where` function for `eqx.tree_at` that selects `dotted`."""
    return lambda module: get_path(module, dotted)


def set_paths(module, values: Mapping[str, object]):
    """`module` with the array at each dotted path replaced by `values[path]`, cast to the old array's dtype.

    The one way a parameter is set by name (`AbstractModel.replace`, [`difflab.make_batch`][], the calibration
    objective), so that a float32 model stays float32; a scalar is broadcast to the old shape.
    """
    for path, value in values.items():
        old = get_path(module, path)
        check_numeric(value, path, complex_ok=jnp.issubdtype(old.dtype, jnp.complexfloating))
        new = jnp.asarray(value, dtype=old.dtype)
        if new.shape != old.shape and new.ndim == 0:
            new = jnp.broadcast_to(new, old.shape)
        module = eqx.tree_at(where_path(path), module, new)
    return module


def _field_names(module: eqx.Module) -> list[str]:

    return [
        f.name for f in dataclasses.fields(module) if not f.metadata.get("static", False) and hasattr(module, f.name)
    ]
