r"""The node tree of a morphology as fixed index tables: sums over children and the Hines solve.

A cell's axial currents and its implicit step need sums over the children of each node and the elimination
of a tree-structured linear system (Hines 1984). The tree is known when the cell is built, so both are
precomputed as index tables: children sums are gathers ([`GatherSum`][difflab.neuron._gather_sum.GatherSum]).

**The solve.** Row $i$ of the system has `diag[i]` on $x_i$ and `upper[i]` on its parent's $x_p$; row $p$
has `lower[i]` on $x_i$ for each child $i$. Nodes are grouped by depth (the root is depth 0). Elimination runs
from the deepest level to the root, all nodes of a level at once,

$$D_p \leftarrow D_p - \frac{L_i}{D_i} U_i, \qquad R_p \leftarrow R_p - \frac{L_i}{D_i} R_i
  \qquad \text{for every node } i \text{ of the level and its parent } p,$$

then substitution from the root down: $x_i = (R_i - U_i\,x_{p(i)}) / D_i$. The levels form one table padded
with a scratch node, and one `lax.scan` runs over its rows, so the compiled size does not grow with the depth;
the cost is linear in the nodes. (Measured alternatives, 113-compartment cell, 100 members: a gather-only
layout with the levels as rows of their own was 4.5× slower per solve; unrolling the scan was 2× faster alone
and no faster inside the cable step.)

Reference: Hines, Int. J. Biomed. Comput. 15:69 (1984).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

from ._gather_sum import GatherSum


class NodeTree:
    """Index tables of a node tree given by `parent` (−1 at the root): children sums and the Hines solve."""

    def __init__(self, parent: np.ndarray):
        parent = np.asarray(parent, dtype=np.int64)
        self.n_nodes = n = parent.size
        roots = np.flatnonzero(parent < 0)
        if roots.size != 1:
            raise ValueError(f"a node tree needs exactly one root; got {roots.size}")
        self.root = int(roots[0])
        self.parent = parent
        #: the parent of every node, the root its own (its edge conductance is 0)
        self.parent_or_self = np.where(parent >= 0, parent, self.root)
        children: list[list[int]] = [[] for _ in range(n)]
        for node, p in enumerate(parent):
            if p >= 0:
                children[p].append(node)
        self.children = GatherSum(children, n)
        self._child_lists = children
        self.depth = depth = np.full(n, -1, dtype=np.int64)
        frontier, d = [self.root], 0
        while frontier:
            depth[frontier] = d
            frontier, d = [c for node in frontier for c in children[node]], d + 1
        self.levels = tuple(np.flatnonzero(depth == d) for d in range(int(depth.max()) + 1))
        # levels 1.. as one table padded with a scratch node (index n_nodes), for a scan over levels
        below_root = self.levels[1:]
        width = max([lv.size for lv in below_root] + [1])
        table = np.full((max(len(below_root), 1), width), n, dtype=np.int64)
        for d, lv in enumerate(below_root):
            table[d, : lv.size] = lv
        self.level_table = (table, np.append(parent, n)[table])

    def subtree_sum(self, nodes: np.ndarray) -> GatherSum:
        """Sums over the children of `nodes` only (output `i` is node `nodes[i]`)."""
        return GatherSum([self._child_lists[i] for i in nodes], self.n_nodes)

    # ------------------------------------------------------------------ the solve
    def solve(self, diag: Array, upper: Array, lower: Array, rhs: Array) -> Array:
        """Solve the tree system (module docstring); arrays `(..., n_nodes)`, broadcast together."""
        nodes, parents = self.level_table
        batch = jnp.broadcast_shapes(diag.shape[:-1], upper.shape[:-1], lower.shape[:-1], rhs.shape[:-1])

        def padded(x, value):
            x = jnp.broadcast_to(x, (*batch, x.shape[-1]))
            return jnp.concatenate([x, jnp.full((*batch, 1), value, x.dtype)], axis=-1)

        D, U, L, R = padded(diag, 1.0), padded(upper, 0.0), padded(lower, 0.0), padded(rhs, 0.0)

        def eliminate(carry, level):
            D, R = carry
            idx, par = level
            f = L[..., idx] / D[..., idx]
            return (D.at[..., par].add(-f * U[..., idx]), R.at[..., par].add(-f * R[..., idx])), None

        (D, R), _ = jax.lax.scan(eliminate, (D, R), (nodes[::-1], parents[::-1]))
        x = jnp.zeros_like(R).at[..., self.root].set(R[..., self.root] / D[..., self.root])

        def substitute(x, level):
            idx, par = level
            return x.at[..., idx].set((R[..., idx] - U[..., idx] * x[..., par]) / D[..., idx]), None

        x, _ = jax.lax.scan(substitute, x, (nodes, parents))
        return x[..., :-1]
