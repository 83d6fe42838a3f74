"""Figures of docs/plotting.md, drawn by running the page's own code blocks (so the pictures are what the blocks
make), and reused by the pages of the topics they show (hh.md, calibration.md, sweeps.md, quantum.md).

    python scripts/docs_figures.py      # writes docs/img/plotting_*.png (about a minute on two CPU cores)

Each block named below is run in a fresh namespace and a temporary folder, as the docs tests run it; every figure
it makes (difflab.plot makes `Figure`s without pyplot, so they are collected as they are created) is saved as
`plotting_<name>.png`, or `plotting_<name>_<k>.png` when it makes several, in the order they were made.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "plotting.md"
OUT = ROOT / "docs" / "img"
#: section heading of docs/plotting.md -> figure name
SECTIONS = {
    "Trajectories": "trajectory",
    "Calibration": "calibration",
    "Sweeps": "sweep",
    "F–I curves": "fi_curve",
    "Quantum states": "quantum",
}


def blocks_by_section(text: str) -> dict[str, str]:
    """The first Python block of every `## ` section of a Markdown page."""
    out: dict[str, str] = {}
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        found = re.search(r"```python\n(.*?)```", body, re.S)
        if found:
            out[title.strip()] = found.group(1)
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


def main() -> None:
    blocks = blocks_by_section(PAGE.read_text(encoding="utf-8"))
    for title, name in SECTIONS.items():
        with tempfile.TemporaryDirectory() as folder, figures_made() as figures, contextlib.chdir(folder):
            exec(compile(blocks[title], f"{PAGE.name}: {title}", "exec"), {"__name__": "__docs__"})
        for k, fig in enumerate(figures, start=1):
            path = OUT / (f"plotting_{name}.png" if len(figures) == 1 else f"plotting_{name}_{k}.png")
            fig.savefig(path, dpi=100, bbox_inches="tight")
            print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
