"""The `difflab` command line: one sub-command (or sub-app) per job (`_app`).

`main` takes Ctrl-C before it imports the commands (and with them JAX), so that an interrupt at any moment ends
the program within seconds (`_interrupt`).

The command line is the one part of difflab that imports inside functions: each command imports the library (JAX,
the domains) when it runs, so that `difflab --help` and a mistyped command answer at once. Everywhere else imports
sit at the top of the file (`scripts/check_layout.py` checks it).
"""

from . import _interrupt

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the `difflab` console script."""
    _interrupt.install()
    try:
        from ._app import app

        app()
    except KeyboardInterrupt:
        _interrupt.exit_now()
    except SystemExit as stop:
        if stop.code == 130:  # the commands turn a KeyboardInterrupt into exit status 130
            _interrupt.exit_now()
        raise


def __getattr__(name: str):
    if name == "app":  # the Typer application, imported on first use (tests drive it with CliRunner)
        from ._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
