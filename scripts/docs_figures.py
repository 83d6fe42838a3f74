"""Figures of the docs drawn by difflab.plot, made by running the pages' own code blocks (so the pictures are what
the blocks make): the first simulation of docs/index.md, docs/plotting.md's (reused by hh.md, calibration.md and
quantum.md), the posterior of docs/posterior.md, the Sobol' indices of docs/sensitivity.md, a validation case of
docs/validation.md, and one figure each on the reference pages (concepts, names, cli, backends, hh_convergence).

    python scripts/docs_figures.py             # writes the docs/img/*.png named below (about four minutes)
    python scripts/docs_figures.py NAME ...    # only these figures (e.g. backends_loops)

Each block named below is run in a fresh namespace and a temporary folder, as the docs tests run it; every figure
it makes (difflab.plot makes `Figure`s without pyplot, so they are collected as they are created) is saved as
`<name>.png`, or `<name>_<k>.png` when it makes several, in the order they were made.
"""

from __future__ import annotations

import contextlib
import re
import sys
import tempfile
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
OUT = DOCS / "img"
#: (page, section heading) -> figure name, or (name, k) to keep only the k-th figure the block makes; the section's
#: first Python block draws the figure, or its j-th with (page, section heading, j)
FIGURES = {
    ("index.md", "A first simulation"): "index_first_simulation",
    ("plotting.md", "Trajectories"): "plotting_trajectory",
    ("plotting.md", "Calibration"): "plotting_calibration",
    ("plotting.md", "Sweeps"): "plotting_sweep",
    ("plotting.md", "F–I curves"): "plotting_fi_curve",
    ("plotting.md", "Spike features"): "plotting_spike_features",
    ("plotting.md", "Quantum states"): "plotting_quantum",
    ("posterior.md", "A straight line (exact posterior known)"): "posterior_line",
    ("sensitivity.md", "Sobol' indices"): "sensitivity_sobol",
    ("validation.md", "From Python"): ("validation_hh_step", -1),  # the block's own draw(), after the report's
    ("hh_convergence.md", "Stiff channel sets"): "hh_convergence_error",
    ("concepts.md", "Model"): "concepts_relaxation",
    ("names.md", "Neurons: difflab, NEURON and Jaxley"): "names_neuron_units",
    ("cli.md", "Notes on the commands"): "cli_simulate",
    ("backends.md", "Why"): "backends_loops",
    ("circuits.md", "Gates and circuits", 1): "circuits_ghz",
}


def blocks_by_section(text: str) -> dict[str, list[str]]:
    """The Python blocks of every `## ` section of a Markdown page, in order."""
    out: dict[str, list[str]] = {}
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        found = re.findall(r"```python\n(.*?)```", body, re.S)
        if found:
            out[title.strip()] = found
    return out


@contextlib.contextmanager
def figures_made():
    """Every `Figure` created inside the block, in order."""
    made: list[Figure] = []
    original = Figure.__init__

    def recording(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    Figure.__init__ = recording  # type: ignore[method-assign]
    try:
        yield made
    finally:
        Figure.__init__ = original  # type: ignore[method-assign]


def figure_name(entry: str | tuple[str, int]) -> str:
    """The file name of a `FIGURES` entry."""
    return entry if isinstance(entry, str) else entry[0]


def main(only: list[str]) -> None:
    known = [figure_name(entry) for entry in FIGURES.values()]
    unknown = sorted(set(only) - set(known))
    if unknown:
        raise SystemExit(f"unknown figure(s) {', '.join(unknown)}; the figures: {', '.join(known)}")
    for (page, title, *j), name in FIGURES.items():
        if only and figure_name(name) not in only:
            continue
        block = blocks_by_section((DOCS / page).read_text(encoding="utf-8"))[title][j[0] if j else 0]
        with tempfile.TemporaryDirectory() as folder, figures_made() as figures, contextlib.chdir(folder):
            exec(compile(block, f"{page}: {title}", "exec"), {"__name__": "__docs__"})
        if isinstance(name, tuple):
            name, keep = name
            figures = [figures[keep]]
        for k, fig in enumerate(figures, start=1):
            path = OUT / (f"{name}.png" if len(figures) == 1 else f"{name}_{k}.png")
            fig.savefig(path, dpi=100, bbox_inches="tight")
            print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
