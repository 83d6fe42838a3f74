r"""Gate fusion: neighbouring gates on at most two wires multiplied into one kernel, applied in one pass.

A state-vector simulation on a CPU is limited by memory traffic: every gate reads and writes all 2ⁿ amplitudes,
and a two-wire kernel (four multiply-adds per amplitude) costs about as much as a one-wire one. A layer of the
hardware-efficient ansatz on n wires (RY, RZ on every wire, then CNOT 0→1, …, n−2→n−1) is 3n − 1 gates but only
n − 1 fused blocks $\mathrm{CNOT}_{w-1,w}\,(I \otimes R_Z R_Y)$ (the first also holding wire 0's rotations), so a
forward pass makes about 3× fewer passes over the state, and the adjoint backward pass (`_adjoint`) about 2× fewer.

Fusion moves a gate only past gates on other wires (which commute with it), so the product is unchanged; the
kernel of a block is the product of its gates' matrices embedded on the block's wires (first wire most
significant). Gates on more than `MAX_FUSED_WIRES` wires stay alone. The block's leaves are its gates' leaves, so
`jax.vjp` of its kernel gives every gate's cotangent.
"""

from __future__ import annotations

from collections.abc import Sequence

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

from ._gates import AbstractGate
from ._schedule import Segment

#: Widest block that fusion builds (a 2-wire kernel is 4 × 4).
MAX_FUSED_WIRES = 2


class Fused(AbstractGate):
    """The product of `gates` (applied in order) as one gate on `wires` (the union of theirs)."""

    gates: tuple[AbstractGate, ...]
    wires: tuple[int, ...] = eqx.field(static=True)

    def __init__(self, gates: Sequence[AbstractGate], wires: Sequence[int]):
        self.gates = tuple(gates)
        self.wires = tuple(wires)

    def matrix(self) -> Array:
        r"""$M = M_{g_k} \cdots M_{g_1}$ with each gate's matrix embedded on the block's wires."""
        k = len(self.wires)
        m = embed(self.gates[0].matrix(), [self.wires.index(w) for w in self.gates[0].wires], k)
        for g in self.gates[1:]:
            m = embed(g.matrix(), [self.wires.index(w) for w in g.wires], k) @ m
        return m


def embed(matrix: Array, local: Sequence[int], k: int) -> Array:
    """`matrix` on the wires `local` (in its own order) of a k-wire register, as a 2ᵏ × 2ᵏ matrix.

    A Kronecker product with the identity on the other wires and a permutation of the wire axes: a handful of
    small operations, where applying the gate to an identity "state" costs dozens once differentiated.
    """
    g = len(local)
    if list(local) == list(range(k)):
        return matrix
    full = jnp.kron(matrix, np.eye(2 ** (k - g), dtype=matrix.dtype))
    order = list(local) + [w for w in range(k) if w not in local]  # axis j of `full` is local wire order[j]
    perm = [order.index(w) for w in range(k)]
    return full.reshape((2,) * (2 * k)).transpose(perm + [k + p for p in perm]).reshape(2**k, 2**k)


def fuse_groups(ops: Sequence[AbstractGate], max_wires: int = MAX_FUSED_WIRES) -> list[list[int]]:
    """Indices of `ops` grouped into blocks of at most `max_wires` wires, blocks in application order.

    Greedy, one pass: a gate joins the latest block that touches any of its wires when the union of wires stays
    within `max_wires` (no later block touches its wires, so it commutes with everything it moves past); otherwise
    it opens a block. Then a one-wire block joins the next block on its wire when that one has room (nothing in
    between touches the wire).
    """
    blocks: list[list[int]] = []
    wires: list[list[int]] = []
    last: dict[int, int] = {}
    for i, op in enumerate(ops):
        ws = list(op.wires)
        touched = [last[w] for w in ws if w in last]
        b = max(touched) if touched else -1
        union = wires[b] + [w for w in ws if w not in wires[b]] if b >= 0 else ws
        if b >= 0 and len(ws) <= max_wires and len(wires[b]) <= max_wires and len(union) <= max_wires:
            blocks[b].append(i)
            wires[b] = union
        else:
            blocks.append([i])
            wires.append(ws)
            b = len(blocks) - 1
        for w in ws:
            last[w] = b
    return _absorb_single_wire(blocks, wires, max_wires)


def _absorb_single_wire(blocks: list[list[int]], wires: list[list[int]], max_wires: int) -> list[list[int]]:
    """Prepend every one-wire block to the next block on its wire, when that one is at most `max_wires` wide."""
    alive = [True] * len(blocks)
    for b in range(len(blocks)):
        if len(wires[b]) != 1:
            continue
        w = wires[b][0]
        nxt = next((c for c in range(b + 1, len(blocks)) if alive[c] and w in wires[c]), None)
        if nxt is not None and len(wires[nxt]) <= max_wires:
            blocks[nxt] = blocks[b] + blocks[nxt]
            alive[b] = False
    return [blk for blk, keep in zip(blocks, alive, strict=True) if keep]


def _block(ops: Sequence[AbstractGate], group: list[int]) -> AbstractGate:
    if len(group) == 1:
        return ops[group[0]]
    gates = tuple(ops[i] for i in group)
    wires: list[int] = []
    for g in gates:
        wires += [w for w in g.wires if w not in wires]
    return Fused(gates, tuple(wires))


def fused_program(
    ops: Sequence[AbstractGate], segments: Sequence[Segment]
) -> tuple[list[AbstractGate], list[tuple[int, ...]], list[Segment]]:
    """Fuse every segment of a `_schedule.plan` (each layer of a repetition alike, so the repetition survives).

    Returns the fused operations, the original indices that each one holds (in its gates' order), and the segments
    in the fused list.
    """
    fused: list[AbstractGate] = []
    groups: list[tuple[int, ...]] = []
    out: list[Segment] = []
    for seg in segments:
        layer = fuse_groups(ops[seg.start : seg.start + seg.period])
        out.append(Segment(len(fused), len(layer), seg.repeats))
        for r in range(seg.repeats):
            offset = seg.start + r * seg.period
            for group in layer:
                fused.append(_block(ops, [offset + i for i in group]))
                groups.append(tuple(offset + i for i in group))
    return fused, groups, out
