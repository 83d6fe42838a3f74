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
