"""Loading the FAST contest tables (nodes, actuators, panels) as NumPy arrays.

The files are the CUMCM 2021 Problem A attachments 附件1-3 (see `datasets/fast/README.md`), resolved and
checked through `difflab.datasets`.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
from pathlib import Path

import numpy as np

from .. import datasets

_FILES = ("nodes.csv", "actuators.csv", "panels.csv")


@dataclasses.dataclass(frozen=True)
class FastTables:
    """The raw contest data. All coordinates in metres, base-sphere centre at the origin.

    Attributes:
        node_ids: the 2226 node ids (`"A0"`, `"B1"`, ...), in file order.
        nodes: (2226, 3) base-state node coordinates.
        lower: (2226, 3) actuator lower ends (fixed ground anchors).
        upper: (2226, 3) actuator top ends in the base state.
        panels: (4300, 3) node indices (into `node_ids`) of each triangular panel.
    """

    node_ids: tuple[str, ...]
    nodes: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    panels: np.ndarray


def _data_file(name: str) -> Path:
    """Path of `fast/<name>` from the dataset registry (sha256-checked)."""
    return Path(datasets.path(f"fast/{name}"))


def _read_rows(name: str) -> tuple[list[str], list[list[str]]]:
    with _data_file(name).open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


@functools.cache
def load_tables() -> FastTables:
    """Read and cross-check the three contest tables (cached after the first call)."""
    _, node_rows = _read_rows("nodes.csv")
    _, act_rows = _read_rows("actuators.csv")
    _, panel_rows = _read_rows("panels.csv")
    ids = tuple(r[0] for r in node_rows)
    if [r[0] for r in act_rows] != list(ids):
        raise ValueError("actuators.csv rows are not in the node order of nodes.csv")
    index = {name: i for i, name in enumerate(ids)}
    nodes = np.array([[float(v) for v in r[1:4]] for r in node_rows])
    act = np.array([[float(v) for v in r[1:7]] for r in act_rows])
    panels = np.array([[index[v] for v in r] for r in panel_rows], dtype=np.int32)
    return FastTables(ids, nodes, act[:, :3], act[:, 3:], panels)
