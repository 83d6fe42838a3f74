"""Shared helpers of the command-line modules: error reporting and exit codes."""

from __future__ import annotations

import typer

#: Exit codes: 0 success, 1 a validation case failed, 2 bad input (as for usage errors).
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print ``error: message`` to stderr and return the ``typer.Exit`` to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def check_keys(spec: dict, allowed: set[str] | frozenset[str], table: str) -> None:
    """Refuse a config key that is not in ``allowed`` (a typo would otherwise be ignored silently)."""
    import difflib

    for key in spec:
        if key not in allowed:
            close = difflib.get_close_matches(key, sorted(allowed), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ValueError(f"[{table}] has an unknown key {key!r}; {hint}known keys: {', '.join(sorted(allowed))}")


def config_int(spec: dict, key: str, table: str, default: int, minimum: int | None = None) -> int:
    """``spec[key]`` as an integer (a whole number, not 2.7 or "three"), naming the field when it is not."""
    value = spec.get(key, default)
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, float) and value.is_integer())):
        raise ValueError(f"[{table}] {key} must be a whole number; got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"[{table}] {key} must be >= {minimum}; got {value!r}")
    return int(value)


def config_float(spec: dict, key: str, table: str, default: float | None = None) -> float:
    """``spec[key]`` as a finite number, naming the field when it is not."""
    import math

    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"[{table}] {key} must be a finite number; got {value!r}")
    return float(value)
