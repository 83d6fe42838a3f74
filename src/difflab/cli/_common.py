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
