"""The contest's `result.xlsx` (附件4 template): writing an answer and reading one back with checks.

Three sheets, names exactly as in the template:

- `理想抛物面顶点坐标`: X, Y, Z of the ideal paraboloid's vertex (m);
- `调整后主索节点编号及坐标`: 节点编号, X坐标（米）, Y坐标（米）, Z坐标（米） of every node in the 300 m aperture;
- `促动器顶端伸缩量`: 对应主索节点编号, 伸缩量（米） (positive towards the centre).

Values are rounded to 4 decimals (the template asks for at least 3). Files are written atomically and never
replace an existing file unless `overwrite=True`.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
import zlib
from pathlib import Path

import numpy as np
import openpyxl
from openpyxl.utils.exceptions import InvalidFileException

from ..data.internal import umask
from ._constants import MAX_EXTENSION
from ._geometry import Geometry
from ._kinematics import node_positions

SHEET_VERTEX = "理想抛物面顶点坐标"
SHEET_NODES = "调整后主索节点编号及坐标"
SHEET_EXTENSIONS = "促动器顶端伸缩量"
NODE_HEADER = ("节点编号", "X坐标（米）", "Y坐标（米）", "Z坐标（米）")
EXTENSION_HEADER = ("对应主索节点编号", "伸缩量（米）")
DECIMALS = 4


def write_result_xlsx(path, vertex, node_ids, positions, extension_ids, extensions, *, overwrite=False) -> Path:
    """Write the three answer sheets to `path` (lengths in m)."""
    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{str(path)!r} exists; pass overwrite=True (CLI: --overwrite) to replace it")
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = SHEET_VERTEX
    ws.append(["X坐标（米）", "Y坐标（米）", "Z坐标（米）"])
    ws.append([round(float(v), DECIMALS) for v in vertex])
    ws = book.create_sheet(SHEET_NODES)
    ws.append(list(NODE_HEADER))
    for name, xyz in zip(node_ids, np.asarray(positions)):
        ws.append([name, *(round(float(v), DECIMALS) for v in xyz)])
    ws = book.create_sheet(SHEET_EXTENSIONS)
    ws.append(list(EXTENSION_HEADER))
    for name, e in zip(extension_ids, np.asarray(extensions)):
        ws.append([name, round(float(e), DECIMALS)])
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        book.save(tmp)
        os.chmod(tmp, 0o666 & ~umask())  # mkstemp's 0o600 would make the answer file private
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_result_extensions(path, geometry: Geometry, required_ids=None) -> np.ndarray:
    """Extensions (m, one per node, 0 where not listed) from the `促动器顶端伸缩量` sheet of a result file.

    Raises `ValueError` naming the file (and the cell where there is one) for a file that is not a readable
    .xlsx workbook (empty, truncated, a CSV), a missing sheet, an unknown or duplicated node id, a node of
    `required_ids` that is missing, a value that is not a finite number (a boolean, whose TRUE/FALSE would
    otherwise read as 1 or 0 m, included), or an extension beyond the ±0.6 m travel.
    """
    where = str(path)
    known = set(geometry.node_ids)
    e = np.zeros(geometry.n_nodes)
    seen = set()
    for row, name, value in _extension_rows(path):
        cell = f"{where!r}: sheet {SHEET_EXTENSIONS!r}"
        name = str(name).strip()
        if name not in known:
            raise ValueError(f"{cell}, cell A{row}: unknown node id {name!r}")
        if name in seen:
            raise ValueError(f"{cell}, cell A{row}: node id {name!r} listed twice")
        if isinstance(value, bool):
            raise ValueError(
                f"{cell}, cell B{row}: extension of node {name!r} must be a number of metres; got the boolean "
                f"{str(value).upper()}"
            )
        if not isinstance(value, int | float) or not np.isfinite(value):
            raise ValueError(f"{cell}, cell B{row}: extension of node {name!r} is not a number: {value!r}")
        if abs(value) > MAX_EXTENSION:
            raise ValueError(
                f"{cell}, cell B{row}: extension of node {name!r} is {value} m, beyond the ±{MAX_EXTENSION} m travel"
            )
        seen.add(name)
        e[geometry.index([name])[0]] = value
    missing = [n for n in (required_ids or ()) if n not in seen]
    if missing:
        raise ValueError(f"{where!r}: {len(missing)} required node ids missing, e.g. {missing[:5]}")
    return e


#: What openpyxl and zipfile raise for a file that is not a complete .xlsx workbook.
_UNREADABLE = (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, EOFError, zlib.error, SyntaxError)


def _extension_rows(path) -> list[tuple[int, object, object]]:
    """(row number, node id, value) of every non-empty row of the extension sheet, header excluded."""
    where = str(path)
    if Path(path).is_file() and Path(path).stat().st_size == 0:
        raise ValueError(f"{where!r} is empty; expected a result.xlsx workbook")
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        try:
            if SHEET_EXTENSIONS not in book.sheetnames:
                raise ValueError(f"{where!r}: no sheet {SHEET_EXTENSIONS!r}; sheets: {book.sheetnames}")
            rows = book[SHEET_EXTENSIONS].iter_rows(min_row=2, values_only=True)
            return [(i, r[0], r[1] if len(r) > 1 else None) for i, r in enumerate(rows, 2) if r and r[0] is not None]
        finally:
            book.close()
    except _UNREADABLE as err:
        reason = f"{type(err).__name__}: {err}".splitlines()[0]
        message = f"{where!r} is not a readable .xlsx workbook (truncated, or another format?): {reason}"
        raise ValueError(message) from None


def write_solution_xlsx(path, geometry: Geometry, solution, *, overwrite: bool = False) -> Path:
    """Write a `Solution` as `result.xlsx`.

    The workbook holds the aperture nodes' adjusted coordinates, and the extensions of every aperture node plus any
    other node whose actuator moves (|e| >= 5e-5 m).
    """
    inside = np.asarray(solution.pointing.nodes_inside)
    ids = np.asarray(geometry.node_ids, dtype=object)
    positions = np.asarray(node_positions(geometry, solution.e))
    moved = inside | (np.abs(solution.e) >= 5e-5)
    return write_result_xlsx(
        path,
        solution.vertex,
        ids[inside],
        positions[inside],
        ids[moved],
        solution.e[moved],
        overwrite=overwrite,
    )
