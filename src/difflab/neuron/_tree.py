r"""The node tree of a morphology as fixed index tables: sums over children and the Hines solve.

A cell's axial currents and its implicit step need sums over the children of each node and the elimination
of a tree-structured linear system (Hines 1984). The tree is known when the cell is built, so both are
precomputed as index tables: children sums are gathers ([`GatherSum`][difflab.neuron._gather_sum.GatherSum]).

**The solve.** Row $i$ of the system has `diag[i]` on $x_i$ and `upper[i]` on its parent's $x_p$; row $p$
has `lower[i]` on $x_i$ for each child $i$. Nodes are grouped by depth (the root is depth 0). Elimination runs
from the deepest level to the root, all nodes of a level at once,

$$D_p \leftarrow D_p - \frac{L_i}{D_i} U_i, \qquad R_p \leftarrow R_p - \frac{L_i}{D_i} R_i
  \qquad \text{for every node } i \text{ of the level and its parent } p,$$

then substitution from the root down: $x_i = (R_i - U_i\,x_{p(i)}) / D_i$.

**Where the elimination ends.** Any node can be the root of the elimination: the system is the same, and a
reversed edge only swaps its two coefficients (row $j$'s on its new parent $c$ is $L_c$, row $c$'s on $j$ is
$U_c$). The levels run one after another, so the solve hangs the tree from its centre among the compartments
(the node whose farthest node is nearest), about half the longest path high: the L5PC's 85 levels below the soma
become 52, and its 100-member ensemble (20 ms at 0.0125 ms) took 8.9–9.2 s against 9.9–10.6 s in alternated runs. A
zero-area junction is not a candidate: at the end of the elimination its pivot is a difference of axial
conductances, and with one as the last pivot a branched cell's float32 spikes drifted 0.0017 ms from float64
instead of 0.0004 ms.

The levels form one table padded
with scratch nodes, and one `lax.scan` runs over its rows, so the compiled size does not grow with the depth;
the cost is linear in the nodes. The solve works on arrays with the nodes on the leading axis, so that a level's
gathers and scatters move whole rows of an ensemble (113-compartment cell, against the members leading:
175 → 87–100 µs per solve at 100 members, 4.9–5.8 → 1.6–2.1 ms at 1000). Measured alternatives, all slower:
a gather-only layout with the levels as rows of their own (4.5× per solve), the scan unrolled in Python or by
`unroll=` (1.5–6× per solve on one cell), the level rows gathered before the loop (1.3–1.4×), and the diagonal and
right-hand side stacked into one scatter (2× at 100 members, 1.15× faster on one cell). Without its scatters
the solve would let XLA run a single cell's whole fixed-step loop as one CPU kernel (`difflab.core._xla_cpu`);
written by gathers only (each row eliminated from the row below through a children table, the rows stacked by
the scan), the L5PC's 20 ms solve at 0.0125 ms did fold and took 0.12 s against 0.15 s, but its 100-member
ensemble took 10.2 s against 7.8 s and the forward-mode gradient 1.38 s against 1.16 s (benchmarks/README.md).

**Derivatives** are implicit: $A\dot x = \dot r - \dot A x$ is solved with the primal's eliminated diagonal
$D$ (the multiplier of node $i$ is $L_i / D_i$, its $D_i$ final once its children are eliminated), so a tangent
(or, transposed, a cotangent) costs one elimination of a right-hand side and one substitution, not a
differentiated elimination, and inputs that carry no tangent (the axial coefficients, unless the geometry or
`Ra` is differentiated) cost nothing (one cell, six tangents of the diagonal: 94 → 32 µs per solve).

Reference: Hines, Int. J. Biomed. Comput. 15:69 (1984).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero
from jaxtyping import Array

from ._gather_sum import GatherSum


class NodeTree:
    """Index tables of a node tree given by `parent` (−1 at the root): children sums and the Hines solve."""

    def __init__(self, parent: np.ndarray, solve_roots: np.ndarray | None = None):
        """The tables of the tree given by `parent`; `solve_roots` are the nodes the solve may end at (default any).

        A cell passes its compartments, whose membrane term keeps the last pivot away from cancellation.
        """
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
        self.depth = depth = _walk(self.root, children, parent)[1]
        self.levels = tuple(np.flatnonzero(depth == d) for d in range(int(depth.max()) + 1))
        self._orient_solve(_centre(parent, children, depth, np.arange(n) if solve_roots is None else solve_roots))

    def _orient_solve(self, centre: int) -> None:
        """The solve's own orientation: the tree hung from `centre`, its levels as one table for a scan.

        Rows whose edge to their solve parent runs against the morphology's direction take their coefficients from
        the child on that edge (`_solve_coefficients`).
        """
        n, parent = self.n_nodes, self.parent
        solve_parent, depth = _walk(centre, self._child_lists, parent)
        self.solve_root = centre
        # an edge reversed by the re-hanging: node j's solve parent is its child c in the morphology
        self._reversed = (solve_parent >= 0) & (solve_parent != parent)
        self._source = np.where(self._reversed, solve_parent, np.arange(n))
        below_root = [np.flatnonzero(depth == d) for d in range(1, int(depth.max()) + 1)]
        width = max([lv.size for lv in below_root] + [1])
        # padding: scratch node n + k in column k (its own parent), so that no row repeats an index; int32, the
        # index type of XLA's gathers and scatters
        table = np.tile(n + np.arange(width), (max(len(below_root), 1), 1))
        for d, lv in enumerate(below_root):
            table[d, : lv.size] = lv
        self.n_scratch = width
        parents = np.concatenate([np.where(solve_parent >= 0, solve_parent, centre), n + np.arange(width)])[table]
        self.level_table = (table.astype(np.int32), parents.astype(np.int32))

    def _solve_coefficients(self, upper: Array, lower: Array) -> tuple[Array, Array]:
        """`upper`, `lower` in the solve's orientation.

        For an edge that the re-hanging reversed (node j under its morphological child c), row j's coefficient on
        its solve parent is `lower[c]`, and row c's on j is `upper[c]`. The solve root's own entries are never read.
        """
        if self.solve_root == self.root:  # nothing reversed
            return upper, lower
        src, rev = self._source, self._reversed
        return jnp.where(rev, lower[..., src], upper[..., src]), jnp.where(rev, upper[..., src], lower[..., src])

    def subtree_sum(self, nodes: np.ndarray) -> GatherSum:
        """Sums over the children of `nodes` only (output `i` is node `nodes[i]`)."""
        return GatherSum([self._child_lists[i] for i in nodes], self.n_nodes)

    # ------------------------------------------------------------------ the solve
    def solve(self, diag: Array, upper: Array, lower: Array, rhs: Array) -> Array:
        """Solve the tree system (module docstring); arrays `(..., n_nodes)`, broadcast together."""
        batch = jnp.broadcast_shapes(diag.shape[:-1], upper.shape[:-1], lower.shape[:-1], rhs.shape[:-1])
        args = [jnp.broadcast_to(x, (*batch, self.n_nodes)) for x in (diag, upper, lower, rhs)]
        return _implicit_solve(self, *args)

    def _nodes_first(self, x: Array, value: float) -> Array:
        # nodes on the leading axis and the scratch nodes appended: a level's gathers and scatters move whole rows
        x = jnp.moveaxis(x, -1, 0)
        return jnp.concatenate([x, jnp.full((self.n_scratch, *x.shape[1:]), value, x.dtype)], axis=0)

    def _factor_solve(self, diag: Array, upper: Array, lower: Array, rhs: Array) -> tuple[Array, tuple]:
        """The solution and the factors that solve another right-hand side: `(x, (D, U, L))`.

        The multiplier of node $i$ is $L_i / D_i$ with $D_i$ final (its children are eliminated before it).
        """
        nodes, parents = self.level_table
        upper, lower = self._solve_coefficients(upper, lower)
        D, U, L, R = (self._nodes_first(x, v) for x, v in ((diag, 1.0), (upper, 0.0), (lower, 0.0), (rhs, 0.0)))

        def eliminate(carry, level):
            D, R = carry
            idx, par = level
            f = L[idx] / D[idx]
            return (D.at[par].add(-f * U[idx]), R.at[par].add(-f * R[idx])), None

        (D, R), _ = jax.lax.scan(eliminate, (D, R), (nodes[::-1], parents[::-1]))
        return self._substitute(D, U, R), (D, U, L)

    def _substitute(self, D: Array, U: Array, R: Array) -> Array:
        nodes, parents = self.level_table
        root = self.solve_root
        x = jnp.zeros_like(R).at[root].set(R[root] / D[root])

        def substitute(x, level):
            idx, par = level
            return x.at[idx].set((R[idx] - U[idx] * x[par]) / D[idx], unique_indices=True), None

        x, _ = jax.lax.scan(substitute, x, (nodes, parents))
        return jnp.moveaxis(x[: self.n_nodes], 0, -1)

    def _solve_factored(self, factors: tuple, rhs: Array) -> Array:
        """Solve for another right-hand side with the factors of `_factor_solve` (the matrix's work reused)."""
        nodes, parents = self.level_table
        D, U, L = factors
        multiplier = L / D

        def eliminate(R, level):
            idx, par = level
            return R.at[par].add(-multiplier[idx] * R[idx]), None

        R, _ = jax.lax.scan(eliminate, self._nodes_first(rhs, 0.0), (nodes[::-1], parents[::-1]))
        return self._substitute(D, U, R)


def _walk(start: int, children: list[list[int]], parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Breadth-first from `start` over the tree's edges in both directions: parents and distances.

    Returns every node's parent when the tree hangs from `start` (−1 there) and its distance from `start`.
    """
    via = np.full(parent.size, -1, dtype=np.int64)
    dist = np.full(parent.size, -1, dtype=np.int64)
    dist[start] = 0
    order = [start]
    for node in order:
        for other in [*children[node], *([parent[node]] if parent[node] >= 0 else [])]:
            if dist[other] < 0:
                via[other], dist[other] = node, dist[node] + 1
                order.append(other)
    return via, dist


def _centre(parent: np.ndarray, children: list[list[int]], depth: np.ndarray, candidates: np.ndarray) -> int:
    r"""The candidate whose farthest node is nearest (a centre of the tree, if it is a candidate).

    The elimination runs one level at a time, so its sequential length is the height of the tree below the node it
    ends at. Hung from its centre a tree is about half its longest path high: the L5PC 52 levels instead of 85 from
    the soma, a ball-and-stick cell 12 instead of 24. In a tree a node's farthest node is one of the two ends of a
    longest path, so two breadth-first searches from those ends give every node's eccentricity; the first end is
    the node deepest below the root (`depth`). Ties go to the given root, then to the lowest index.
    """
    root = int(np.flatnonzero(parent < 0)[0])
    a = int(np.argmax(depth))
    from_a = _walk(a, children, parent)[1]
    eccentricity = np.maximum(from_a, _walk(int(np.argmax(from_a)), children, parent)[1])
    candidates = np.asarray(candidates, dtype=np.int64)
    best = candidates[eccentricity[candidates] == eccentricity[candidates].min()]
    return root if root in best else int(best.min())


# the solve differentiates implicitly: A ẋ = ṙ − Ȧ x, solved with the primal's factors (a module-level function,
# so that a tree, and the models holding it, pickle)
@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def _implicit_solve(tree: NodeTree, diag: Array, upper: Array, lower: Array, rhs: Array) -> Array:
    return tree._factor_solve(diag, upper, lower, rhs)[0]


def _implicit_solve_jvp(tree: NodeTree, primals: tuple, tangents: tuple) -> tuple[Array, Array]:
    # tangents come as symbolic zeros where an input is not differentiated (the axial coefficients, mostly)
    (diag, upper, lower, rhs), (d_diag, d_upper, d_lower, d_rhs) = primals, tangents
    x, factors = tree._factor_solve(diag, upper, lower, rhs)
    rhs_dot = jnp.zeros_like(x)  # solve() broadcast every input to the solution's shape
    if not isinstance(d_rhs, SymbolicZero):
        rhs_dot = rhs_dot + d_rhs
    if not isinstance(d_diag, SymbolicZero):
        rhs_dot = rhs_dot - d_diag * x
    if not isinstance(d_upper, SymbolicZero):  # the root's upper has no parent
        rhs_dot = rhs_dot - jnp.where(tree.parent >= 0, d_upper * x[..., tree.parent_or_self], 0.0)
    if not isinstance(d_lower, SymbolicZero):
        rhs_dot = rhs_dot - tree.children(d_lower * x)
    return x, tree._solve_factored(factors, rhs_dot)


_implicit_solve.defjvp(_implicit_solve_jvp, symbolic_zeros=True)
