"""Protocols from text: a TOML table in a case file, or a `"step:10,10,110"` option on the CLI."""

from __future__ import annotations

import math
from typing import Any

from ..core.internal import AbstractProtocol, Constant, Ramp, Step

# type -> (constructor, ordered field names, number of required fields)
_TYPES = {
    "step": (Step, ("amplitude", "start", "stop"), 1),
    "constant": (Constant, ("value",), 1),
    "ramp": (Ramp, ("amplitude", "start", "stop"), 3),
}

PROTOCOL_HELP = (
    "step:AMPLITUDE[,START[,STOP]] (a pulse; START defaults to 0, STOP to forever), "
    "constant:VALUE, ramp:AMPLITUDE,START,STOP, or none"
)


def protocol_from_table(table: dict[str, Any], where: str = "protocol") -> AbstractProtocol:
    """Build a protocol from `{"type": "step", "amplitude": 10, "start": 10, "stop": 110}`."""
    if not isinstance(table, dict) or "type" not in table:
        raise ValueError(f"{where} must be a table with a 'type' ({', '.join(_TYPES)})")
    kind = table["type"]
    if kind not in _TYPES:
        raise ValueError(f"{where}.type: unknown protocol type {kind!r}; expected one of {', '.join(_TYPES)}")
    cls, names, n_required = _TYPES[kind]
    unknown = sorted(set(table) - {"type", *names})
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {unknown} for a {kind!r} protocol (allowed: {', '.join(names)})")
    missing = [n for n in names[:n_required] if n not in table]
    if missing:
        raise ValueError(f"{where}: missing field {where}.{missing[0]} for a {kind!r} protocol")
    values = {}
    for name in names:
        if name in table:
            value = table[name]
            if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
                raise ValueError(f"{where}.{name} must be a number; got {value!r}")
            values[name] = float(value)
    return cls(**values)


def parse_protocol(text: str) -> AbstractProtocol | None:
    """Parse `"step:10,10,110"` (see `PROTOCOL_HELP`); `"none"` gives `None`."""
    text = text.strip()
    if text.lower() == "none":
        return None
    kind, sep, rest = text.partition(":")
    kind = kind.strip().lower()
    if not sep or kind not in _TYPES:
        raise ValueError(f"--protocol {text!r}: expected {PROTOCOL_HELP}")
    _, names, n_required = _TYPES[kind]
    try:
        numbers = [float(x) for x in rest.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--protocol {text!r}: {rest!r} is not a comma-separated list of numbers") from None
    if not n_required <= len(numbers) <= len(names):
        raise ValueError(f"--protocol {text!r}: a {kind!r} protocol takes {', '.join(names)} ({n_required} required)")
    return protocol_from_table({"type": kind, **dict(zip(names, numbers))}, where="--protocol")


def describe_protocol(protocol: AbstractProtocol | None) -> str:
    """A one-line description, e.g. `"Step(amplitude=10, start=10, stop=110)"`."""
    if protocol is None:
        return "none"
    fields = {k: v for k, v in vars(protocol).items() if not k.startswith("_")}
    text = ", ".join(f"{k}={float(v):g}" for k, v in fields.items())
    return f"{type(protocol).__name__}({text})"
