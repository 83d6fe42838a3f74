"""A battery of bad inputs, interruptions and corruptions run against difflab and the `difflab` command.

Every case is a small function: a library call (in this process) or a command-line call (a subprocess in a fresh
temporary folder, with a timeout), together with what must happen: either a refusal, an exception of a stated type
whose message matches a regular expression naming the argument or config field, or a result that a check accepts
(e.g. NaN standard errors for an underdetermined fit, `succeeded` false for the bad member only). Cases that
touch files also guard the files that must survive (a finished chunk, a checkpoint, a folder given as output).

Run it from the repository root, with difflab installed:

    python scripts/bad_input_battery.py            # every case (a few minutes on two cores)
    python scripts/bad_input_battery.py -k sweep   # only the cases whose id contains "sweep"
    python scripts/bad_input_battery.py --no-cli   # library cases only

The machinery lives in `battery/framework.py`; the cases in `battery/cases_*.py`, one file per area.

It prints one row per case (id, class of bad input, outcome, first line of the message) and the totals, and exits
with status 1 if any case is not `refused-named` or `correct`.

Outcomes:

- `refused-named`: an exception of the expected type (or, for the command line, exit code 2 with one
  `error: ...` line on stderr) whose message names the argument or field.
- `correct`: the call returned, and its result is right (the check of the case accepts it).
- `silent-wrong`: the call returned a result that is wrong, NaN or unphysical, or the command exited 0 where it
  had to refuse.
- `obscure-error`: refused, but the message does not name the argument or field (or the exit code is not 2).
- `traceback`: an internal exception escaped (an exception type the case does not expect, or a Python traceback
  printed by the command).
- `hang`: the call ran past its time limit.
- `data-loss`: a file that had to survive was changed or removed.

Classes of bad input (the second column):

1 NaN/inf in quantum operators; 2 sweep rerun into a folder of another study; 4 calibration resume of a changed
problem; 5 physical checks (also on traced values); 6 NaN initial values or starts; 8 standard errors of an
underdetermined fit; 9 bad initial states and runaway solutions; 10 unphysical quantum states, tolerances and
units; 11 recorded data in other units; 12 unbounded fixed-step runs; 13 command-line files and paths;
14 unwritable checkpoints; 15 config typos; 16 reflector inputs; 17 corrupted checkpoints and chunks;
18 member index outside a batch; 19 obscure messages (steps, shapes, devices, chunk sizes, quotes);
21 validation case kinds; 7 / 20 interruption during writes and file modes (covered by tests/core/test_io.py).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from battery import (  # noqa: F401 - each module registers its cases on import
    cases_calibration,
    cases_cell_network,
    cases_circuits,
    cases_cli,
    cases_ensembles,
    cases_io,
    cases_network,
    cases_neuron,
    cases_quantum,
    cases_reflector,
    cases_simulate,
    cases_sweep,
)
from battery.framework import CASES, GOOD, OUTCOMES, Context, classify


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-k", default="", help="run only the cases whose id contains this text")
    parser.add_argument("--no-cli", action="store_true", help="skip the command-line cases")
    args = parser.parse_args(argv)
    import warnings

    warnings.simplefilter("ignore")
    import difflab  # noqa: F401 - imported once, before the timings

    cases = [c for c in CASES if args.k in c.id and not (args.no_cli and c.cli)]
    rows = []
    start = time.perf_counter()
    for c in cases:
        folder = Path(tempfile.mkdtemp(prefix="difflab-battery-"))
        t0 = time.perf_counter()
        try:
            outcome, message = classify(c, Context(folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        rows.append((c.id, c.cls, outcome, message, time.perf_counter() - t0))
        print(f"{c.id:42s} {c.cls:>4s}  {outcome:14s} {time.perf_counter() - t0:6.1f}s  {message}", flush=True)
    print()
    totals = {o: sum(r[2] == o for r in rows) for o in OUTCOMES}
    print("totals: " + ", ".join(f"{o} {n}" for o, n in totals.items() if n) + f"  ({len(rows)} cases, "
          f"{time.perf_counter() - start:.0f} s)")  # fmt: skip
    bad = [r for r in rows if r[2] not in GOOD]
    for r in bad:
        print(f"FAILED {r[0]} [{r[1]}] {r[2]}: {r[3]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
