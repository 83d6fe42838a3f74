"""The `difflab` Typer application: one sub-command (or sub-app) per job.

Each command lives in its own module; registering one is a single line below.
"""

import typer

from ._fast import app as fast_app
from ._fit import fit
from ._simulate import simulate
from ._sweep import sweep
from ._validate import validate

app = typer.Typer(
    name="difflab",
    help="Differentiable scientific simulators: validate models against reference data, simulate presets.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)

app.command("validate")(validate)
app.command("simulate")(simulate)
app.command("fit")(fit)
app.command("sweep")(sweep)
app.add_typer(fast_app, name="fast")
