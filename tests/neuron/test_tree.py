"""The tree's index tables: sums over index groups by gathers, and the level-by-level Hines solve."""

import jax.numpy as jnp
import numpy as np
import pytest

from difflab.neuron._gather_sum import GatherSum
from difflab.neuron._tree import NodeTree


def test_gather_sum_equals_scatter_add_with_overflow_and_empty_groups():
    """Ragged groups (empty, repeated indices, one wide group in the overflow table) sum exactly as a scatter-add."""
    groups = [[0, 1], [], [2], [3, 4, 5, 6, 7, 0, 1, 2], [5, 5], [7]]
    x = np.random.default_rng(0).normal(size=(3, 8))
    expected = np.zeros((3, len(groups)))
    for i, g in enumerate(groups):
        for j in g:
            expected[:, i] += x[:, j]
    summed = GatherSum(groups, 8)
    assert summed.overflow.shape[0] == 1  # the wide group only
    np.testing.assert_allclose(np.asarray(summed(jnp.asarray(x))), expected, rtol=1e-15, atol=1e-15)


def test_gather_sum_refuses_indices_outside_the_input():
    with pytest.raises(ValueError, match=r"groups\[1\] must index an input of size 4"):
        GatherSum([[0], [4]], 4)


def test_node_tree_children_and_solve_on_a_soma_with_many_branches():
    """A root with 12 children (a soma with dendrites), each a chain of 3: children sums and a dense solve."""
    parent = [-1] + [0] * 12 + list(range(1, 13)) + list(range(13, 25))
    tree = NodeTree(np.array(parent))
    n = len(parent)
    rng = np.random.default_rng(1)
    g = rng.uniform(size=n)
    children = np.asarray(tree.children(jnp.asarray(g)))
    assert children[0] == pytest.approx(g[1:13].sum(), rel=1e-14)
    np.testing.assert_allclose(children[1:13], g[13:25], rtol=1e-15)
    diag, upper, lower, rhs = rng.uniform(3, 4, n), rng.uniform(-1, 0, n), rng.uniform(-1, 0, n), rng.normal(size=n)
    dense = np.diag(diag)
    for i, p in enumerate(parent):
        if p >= 0:
            dense[i, p], dense[p, i] = upper[i], lower[i]
    x = tree.solve(*map(jnp.asarray, (diag, upper, lower, rhs)))
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(dense, rhs), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="exactly one root"):
        NodeTree(np.array([-1, -1, 0]))


def _dense(parent, diag, upper, lower):
    index = np.flatnonzero(np.asarray(parent) >= 0)
    par = np.asarray(parent)[index]
    return jnp.diag(diag).at[index, par].set(upper[index]).at[par, index].set(lower[index])


def test_node_tree_solve_derivatives_equal_a_dense_solves():
    """Forward and reverse derivatives wrt all four arrays (implicit, with the primal's factors) match the
    derivatives of a dense solve, batched over 3 right-hand sides and under vmap over tangents."""
    import jax

    parent = [-1, 0, 1, 2, 1, 4, 0, 6, 6, 8]
    tree = NodeTree(np.array(parent))
    rng = np.random.default_rng(2)
    n = len(parent)
    args = tuple(jnp.asarray(a) for a in (rng.uniform(3, 4, (3, n)), rng.uniform(-1, 0, n), rng.uniform(-1, 0, n),
                                     rng.normal(size=(3, n))))  # fmt: skip

    def loss(solve, d, u, lo, r):
        return jnp.sum(jnp.sin(solve(d, u, lo, r)) * jnp.arange(1.0, n + 1)[None])

    def dense_solve(d, u, lo, r):
        return jax.vmap(lambda di, ri: jnp.linalg.solve(_dense(parent, di, u, lo), ri))(d, r)

    grads = jax.grad(lambda *a: loss(tree.solve, *a), argnums=(0, 1, 2, 3))(*args)
    expected = jax.grad(lambda *a: loss(dense_solve, *a), argnums=(0, 1, 2, 3))(*args)
    # the root has no parent: its `upper` is not in the system
    root_upper_free = (np.asarray(parent) >= 0).astype(np.float64)
    for got, want, mask in zip(grads, expected, (1, root_upper_free, 1, 1), strict=True):
        np.testing.assert_allclose(np.asarray(got) * mask, np.asarray(want) * mask, rtol=1e-12, atol=1e-12)
    tangents = [jnp.asarray(rng.normal(size=(4, *a.shape))) for a in args]
    _, got = jax.vmap(lambda *t: jax.jvp(lambda *a: loss(tree.solve, *a), args, t), out_axes=(None, 0))(*tangents)
    _, want = jax.vmap(lambda *t: jax.jvp(lambda *a: loss(dense_solve, *a), args, t), out_axes=(None, 0))(
        tangents[0], tangents[1] * root_upper_free[None], tangents[2], tangents[3])  # fmt: skip
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-12)
    # inputs that are not differentiated reach the rule as symbolic zeros (the cable step's axial coefficients)
    partial = jax.grad(lambda d, r: loss(tree.solve, d, args[1], args[2], r), argnums=(0, 1))(args[0], args[3])
    for got, want in zip(partial, (expected[0], expected[3]), strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-12)


def test_cell_with_its_tree_pickles_and_solves_the_same():
    """Models are pickled to run elsewhere (processes, clusters): the tree's implicit solve lives at module level."""
    import pickle

    from difflab.neuron import Cell

    cell = Cell.ball_and_stick(nseg=5)
    again = pickle.loads(pickle.dumps(cell))
    n = cell.morphology.n_nodes
    rng = np.random.default_rng(3)
    args = [
        jnp.asarray(a) for a in (rng.uniform(3, 4, n), rng.uniform(-1, 0, n), rng.uniform(-1, 0, n), rng.normal(size=n))
    ]
    np.testing.assert_array_equal(again.morphology.tree.solve(*args), cell.morphology.tree.solve(*args))


def test_the_solve_hangs_the_tree_from_its_centre_and_keeps_its_values_and_derivatives():
    """A soma (node 0) with a chain of 12 and a branch of 2: the solve ends at the chain's 6th node (6 levels below
    it instead of 12 below the soma), with the edges between reversed. Values, forward and reverse derivatives equal
    a dense solve's (1e-12), the root's `upper` (outside the system) gets none, and a node outside `solve_roots` is
    never the end of the solve."""
    import jax

    parent = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 13]
    tree = NodeTree(np.array(parent))
    assert (tree.root, tree.solve_root) == (0, 5)
    assert tree.level_table[0].shape[0] == 7 < len(tree.levels) - 1 == 12
    assert NodeTree(np.array(parent), solve_roots=np.array([0, 13, 14])).solve_root == 0
    n = len(parent)
    rng = np.random.default_rng(4)
    args = tuple(jnp.asarray(a) for a in (rng.uniform(3, 4, (2, n)), rng.uniform(-1, 0, n), rng.uniform(-1, 0, n),
                                     rng.normal(size=(2, n))))  # fmt: skip
    dense = lambda d, u, lo, r: jax.vmap(lambda di, ri: jnp.linalg.solve(_dense(parent, di, u, lo), ri))(d, r)  # noqa: E731
    np.testing.assert_allclose(np.asarray(tree.solve(*args)), np.asarray(dense(*args)), rtol=1e-12, atol=1e-12)

    def loss(solve, *a):
        return jnp.sum(jnp.cos(solve(*a)) * jnp.arange(1.0, n + 1)[None])

    got = jax.grad(lambda *a: loss(tree.solve, *a), argnums=(0, 1, 2, 3))(*args)
    want = jax.grad(lambda *a: loss(dense, *a), argnums=(0, 1, 2, 3))(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)
    assert float(got[1][0]) == 0.0
    tangents = tuple(jnp.asarray(rng.normal(size=a.shape) * ((np.arange(n) > 0) if i == 1 else 1.0))
                     for i, a in enumerate(args))  # fmt: skip
    got_dot = jax.jvp(lambda *a: loss(tree.solve, *a), args, tangents)[1]
    want_dot = jax.jvp(lambda *a: loss(dense, *a), args, tangents)[1]
    np.testing.assert_allclose(np.asarray(got_dot), np.asarray(want_dot), rtol=1e-12)
