r"""Running a circuit's operations with its repeated layers under `jax.lax.scan`.

An ansatz of L identical layers (the same gates on the same wires, new angles) traced gate by gate gives XLA a
program L times the size of one layer, and the compile time grows with it: a 20-qubit, 10-layer hardware-efficient
ansatz with its gradient did not compile within 17 minutes. Here the operation list is cut into *segments*: runs
applied one operation at a time, and blocks of `repeats` repetitions of a `period`-long layer, whose array leaves are
stacked along a new leading axis and applied by one `lax.scan` over the layers, so the layer is traced and compiled
once. The result is the same product $U_m \cdots U_1$ in the same order (no operation is moved or merged).

Two operations are *alike* when they have the same pytree structure (class, wires and every other static field) and
leaves of the same shapes and dtypes; a repetition is found by comparing these keys, $O(m^2)$ integer comparisons
for m operations (vectorised, milliseconds for thousands of gates).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

#: A repetition is scanned only when it removes at least this many operations from the traced program.
SCAN_MIN_SAVED = 16


class Segment(NamedTuple):
    """`repeats` repetitions of the `period` operations starting at `start` (1: a plain run)."""

    start: int
    period: int
    repeats: int


def _keys(ops: Sequence[Any]) -> np.ndarray:
    """One integer per operation; equal integers for alike operations (same structure, leaf shapes and dtypes)."""
    table: dict = {}
    out = []
    for op in ops:
        leaves, treedef = jax.tree_util.tree_flatten(op)
        key = (treedef, tuple((np.shape(x), jnp.result_type(x)) for x in leaves))
        out.append(table.setdefault(key, len(table)))
    return np.asarray(out, dtype=np.int64)


def _best_repeat(keys: np.ndarray) -> Segment | None:
    """The repetition (start, period, repeats ≥ 2) that saves the most traced operations, period·(repeats − 1).

    For each period p, `keys[i] == keys[i + p]` over a run of r consecutive i starting at s means that the
    operations s … s + r + p − 1 repeat with period p: ⌊(r + p)/p⌋ whole layers. Ties go to the shorter period.
    """
    m = len(keys)
    best, saved = None, 0
    for p in range(1, m // 2 + 1):
        same = np.concatenate([[False], keys[:-p] == keys[p:], [False]])
        edges = np.flatnonzero(np.diff(same.astype(np.int8)))
        if edges.size == 0:
            continue
        starts, counts = edges[::2], (edges[1::2] - edges[::2] + p) // p
        i = int(np.argmax(counts))
        if counts[i] >= 2 and p * (counts[i] - 1) > saved:
            best, saved = Segment(int(starts[i]), p, int(counts[i])), p * (int(counts[i]) - 1)
    return best


def plan(ops: Sequence[Any], min_saved: int = SCAN_MIN_SAVED) -> list[Segment]:
    """Segments covering `ops` in order: the best repetition (if it saves ≥ `min_saved` operations), recursively."""

    def cover(lo: int, hi: int) -> list[Segment]:
        if hi <= lo:
            return []
        rep = _best_repeat(keys[lo:hi])
        if rep is None or rep.period * (rep.repeats - 1) < min_saved:
            return [Segment(lo, hi - lo, 1)]
        start = lo + rep.start
        end = start + rep.period * rep.repeats
        return [*cover(lo, start), Segment(start, rep.period, rep.repeats), *cover(end, hi)]

    keys = _keys(ops)
    return cover(0, len(ops))


def layer_stack(ops: Sequence[Any], seg: Segment) -> tuple:
    """The `seg.repeats` layers of `seg` as one tuple of operations whose leaves carry a leading layer axis."""
    layers = [tuple(ops[seg.start + i * seg.period : seg.start + (i + 1) * seg.period]) for i in range(seg.repeats)]
    return jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *layers)


def run(ops: Sequence[Any], carry: Any, step: Callable[[Any, Any], Any], *, scan: bool = True) -> Any:
    """Fold `step(op, carry) -> carry` over `ops` in order, with repeated layers under `lax.scan`."""
    segments = plan(ops) if scan else [Segment(0, len(ops), 1)]
    return apply_segments(ops, segments, carry, step)


def apply_segments(ops: Sequence[Any], segments: Sequence[Segment], carry: Any, step: Callable) -> Any:
    """`run` with a given plan."""
    for seg in segments:
        if seg.repeats == 1:
            for op in ops[seg.start : seg.start + seg.period]:
                carry = step(op, carry)
            continue

        def body(c, layer):
            for op in layer:
                c = step(op, c)
            return c, None

        carry, _ = jax.lax.scan(body, carry, layer_stack(ops, seg), length=seg.repeats)
    return carry
