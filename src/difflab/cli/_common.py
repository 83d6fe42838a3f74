"""Shared helpers of the command-line modules: error reporting, exit codes, config reading and checking."""

from __future__ import annotations

import difflib
import math
import tomllib
from pathlib import Path
from typing import Any, overload

import typer

#: Exit codes: 0 success, 1 a validation case failed, 2 bad input (as for usage errors).
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print `error: message` to stderr and return the `typer.Exit` to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def error_text(err: Exception) -> str:
    """The message of `err`; a `KeyError`'s without the quotes its `str` adds (other messages may end in a quote)."""
    if isinstance(err, KeyError) and len(err.args) == 1 and isinstance(err.args[0], str):
        return err.args[0]
    return str(err)


def check_keys(spec: dict, allowed: set[str] | frozenset[str], table: str) -> None:
    """Refuse a config key that is not in `allowed` (a typo would otherwise be ignored silently)."""
    for key in spec:
        if key not in allowed:
            close = difflib.get_close_matches(key, sorted(allowed), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(f"[{table}] has an unknown key {key!r}; {hint}known keys: {', '.join(sorted(allowed))}")


def config_int(spec: dict, key: str, table: str, default: int, minimum: int | None = None) -> int:
    """`spec[key]` as an integer (a whole number, not 2.7 or "three"), naming the field when it is not."""
    value = spec.get(key, default)
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, float) and value.is_integer())):
        raise ValueError(f"[{table}] {key} must be a whole number; got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"[{table}] {key} must be >= {minimum}; got {value!r}")
    return int(value)


def config_float(spec: dict, key: str, table: str, default: float | None = None) -> float:
    """`spec[key]` as a finite number, naming the field when it is not."""
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"[{table}] {key} must be a finite number; got {value!r}")
    return float(value)


def read_config(path: Path) -> tuple[dict[str, Any], Path]:
    """The parsed TOML and its folder; a clear error if missing or malformed."""
    if not path.is_file():
        raise fail(f"config file {str(path)!r} does not exist")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), path.resolve().parent
    except tomllib.TOMLDecodeError as err:
        raise fail(f"{str(path)!r} is not valid TOML: {err}") from None
    except UnicodeDecodeError as err:
        raise fail(f"{str(path)!r} is not UTF-8 text (byte {err.start}): save the config as UTF-8") from None


def load_model_and_protocol(spec: dict[str, Any]):
    """The preset model (with `[model.parameters]` applied) and the parsed protocol."""
    from difflab.datasets import PresetError, load_model
    from difflab.validation import parse_protocol

    model_spec = required(spec, "model", "config")
    try:
        model = load_model(required(model_spec, "preset", "model"))
    except PresetError as err:
        raise ValueError(str(err)) from None
    values = model_spec.get("parameters", {})
    if values:
        model = model.replace(**values)
    text = spec.get("protocol", "none")
    if text == "none":
        return model, None
    try:
        return model, parse_protocol(text)
    except (ValueError, TypeError) as err:  # e.g. a reversed step, named by the config field
        raise ValueError(f"protocol = {text!r}: {err}") from None


def required(spec: dict[str, Any], key: str, table: str):
    if key not in spec:
        raise ValueError(f"[{table}] needs {key!r}")
    return spec[key]


@overload
def resolve_path(base: Path, value: None) -> None: ...
@overload
def resolve_path(base: Path, value: str | Path) -> Path: ...
def resolve_path(base: Path, value: str | Path | None) -> Path | None:
    """`value` as a path, relative to the config file's folder `base` unless absolute (`None` stays `None`)."""
    if value is None:
        return None
    path = Path(value)
    return path if path.is_absolute() else base / path
