"""`difflab fast`: the FAST active reflector (CUMCM 2021 Problem A).

`difflab fast solve --alpha 36.795 --beta 78.169 -o out/` writes `out/solution.nc` and the contest's
`out/result.xlsx` (about five minutes, each stage reported on stderr unless `--quiet`);
`difflab fast check out/result.xlsx --alpha ... --beta ...` checks a result file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from ._common import fail

app = typer.Typer(
    name="fast", help="FAST active reflector: shape adjustment and receiving ratio.", no_args_is_help=True
)

_ALPHA = typer.Option(help="Source azimuth α in degrees, [0, 360], from +x towards +y.")
_BETA = typer.Option(help="Source elevation β in degrees, [0, 90].")


def _reflector():
    """`difflab.reflector`, imported when a command runs (see the package docstring)."""
    from difflab import reflector

    return reflector


def _pointing(alpha: float, beta: float):
    rf = _reflector()
    geometry = rf.Geometry.fast()
    try:
        return geometry, rf.Pointing.from_angles(geometry, alpha, beta)
    except ValueError as err:
        raise fail(f"--{err!s}") from None


@app.command("solve")
def solve(
    alpha: Annotated[float, _ALPHA] = 36.795,
    beta: Annotated[float, _BETA] = 78.169,
    output: Annotated[Path, typer.Option("--output", "-o", help="Output folder.")] = Path("out"),
    objective: Annotated[
        str, typer.Option(help="'ratio' (maximise the receiving ratio) or 'fit' (closest to the ideal paraboloid).")
    ] = "ratio",
    candidates: Annotated[int, typer.Option(help="Zone layouts polished when --objective ratio.")] = 2,
    overwrite: Annotated[bool, typer.Option(help="Replace existing output files.")] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress (a bar on a terminal, one line per stage otherwise).")
    ] = False,
) -> None:
    """Ideal paraboloid, feasible actuator extensions and receiving ratios for one source direction.

    Writes OUTPUT/solution.nc (all nodes, extensions in m, positive towards the centre) and OUTPUT/result.xlsx
    (the contest's three sheets). Nothing is replaced unless --overwrite is given.
    """
    from difflab.io import write_netcdf

    rf = _reflector()
    if objective not in ("ratio", "fit"):
        raise fail(f"--objective must be 'ratio' or 'fit', got {objective!r}")
    if candidates < 1:
        raise fail(f"--candidates must be a positive integer, got {candidates}")
    if output.exists() and not output.is_dir():
        raise fail(f"--output {str(output)!r} is a file; give a folder")
    targets = [output / "solution.nc", output / "result.xlsx"]
    for target in targets:
        if target.exists() and not overwrite:
            raise fail(f"{str(target)!r} exists; pass --overwrite to replace it")
    geometry, _ = _pointing(alpha, beta)
    sol = rf.solve(geometry, alpha, beta, objective=objective, candidates=candidates, progress=not quiet)
    ds = rf.solution_dataset(geometry, sol)
    write_netcdf(ds, targets[0], overwrite=overwrite)
    rf.write_solution_xlsx(targets[1], geometry, sol, overwrite=overwrite)
    typer.echo(f"wrote {targets[0]} and {targets[1]}")
    v = sol.vertex
    typer.echo(f"ideal paraboloid: vertex depth {sol.depth:.4f} m, vertex ({v[0]:.4f}, {v[1]:.4f}, {v[2]:.4f}) m")
    typer.echo(f"constraints: {sol.report}")
    typer.echo(
        f"receiving ratio: adjusted {100 * sol.eta:.2f} % ({sol.objective}), best fit {100 * sol.eta_fit:.2f} %, "
        f"base sphere {100 * sol.eta_base:.2f} %"
    )


@app.command("check")
def check(
    result: Annotated[Path, typer.Argument(help="A result.xlsx in the contest format.")],
    alpha: Annotated[float, _ALPHA] = 36.795,
    beta: Annotated[float, _BETA] = 78.169,
) -> None:
    """Check a result file: node ids, travel, the 0.07 % edge rule, and its receiving ratio."""
    rf = _reflector()
    geometry, pointing = _pointing(alpha, beta)
    if not result.is_file():
        raise fail(f"RESULT {str(result)!r} is not a file")
    try:
        e = rf.read_result_extensions(result, geometry, required_ids=pointing.inside_ids(geometry))
    except ValueError as err:
        raise fail(str(err)) from None
    report = rf.check_constraints(geometry, e)
    rigid = rf.check_constraints(geometry, e, "rigid")
    eta = float(rf.receiving_ratio(geometry, e, pointing, n=rf.CONVERGED_SAMPLES))
    typer.echo(f"constraints (nodes on their radial lines, fixed cables): {report}")
    typer.echo(f"constraints (nodes moving with their actuators): {rigid}")
    moved = np.asarray(e) != 0
    inside = np.asarray(pointing.nodes_inside, bool)
    typer.echo(f"receiving ratio: {100 * eta:.2f} %  (nodes adjusted: {int(moved.sum())}, of which "
               f"{int((moved & inside).sum())} of the {int(inside.sum())} in the aperture)")  # fmt: skip
    if not (report.feasible and rigid.feasible):
        raise typer.Exit(1)
