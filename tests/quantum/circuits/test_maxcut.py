"""Weighted MaxCut: the Hamiltonian's diagonal is minus every cut, the brute force finds the best, QAOA's cost layer
is exp(−iγC)."""

import itertools

import numpy as np
import pytest

import difflab.quantum.circuits as qc

EDGES = [(0, 1), (1, 2), (0, 2), (2, 3)]
WEIGHTS = [1.0, 2.0, 3.0, 0.5]


def cuts(edges, weights, n):
    return np.array([sum(w for w, (i, j) in zip(weights, edges) if b[i] != b[j])
                     for b in itertools.product((0, 1), repeat=n)])  # fmt: skip


def test_weighted_hamiltonian_diagonal_is_minus_the_cut():
    h = qc.maxcut_hamiltonian(EDGES, 4, weights=WEIGHTS)
    m = np.asarray(h.matrix())
    np.testing.assert_allclose(np.diag(m).real, -cuts(EDGES, WEIGHTS, 4), rtol=0, atol=1e-14)
    np.testing.assert_allclose(m - np.diag(np.diag(m)), 0, atol=0)


def test_weighted_brute_force():
    best, winners = qc.maxcut_brute_force(EDGES[:3], 3, weights=WEIGHTS[:3])
    assert best == 5.0 and winners == ["001", "110"]  # vertex 2 alone cuts the edges of weight 2 and 3
    best, _ = qc.maxcut_brute_force(EDGES, 4, weights=WEIGHTS)
    assert best == cuts(EDGES, WEIGHTS, 4).max() == 5.5
    assert qc.maxcut_brute_force(EDGES, 4) == qc.maxcut_brute_force(EDGES, 4, weights=[1] * 4)


def test_weighted_qaoa_cost_layer_is_exp_minus_i_gamma_c():
    gamma = 0.37
    psi = np.asarray(qc.qaoa(EDGES, 4, [gamma], [0.0], weights=WEIGHTS).statevector())
    want = np.exp(-1j * gamma * cuts(EDGES, WEIGHTS, 4)) / 4  # from |+>^4
    np.testing.assert_allclose(abs(np.vdot(want, psi)), 1.0, rtol=0, atol=1e-14)


def test_bad_weights_are_refused():
    with pytest.raises(ValueError, match="weights must be 4 finite real numbers, one per edge"):
        qc.maxcut_hamiltonian(EDGES, 4, weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="weights must be 4 finite real numbers"):
        qc.qaoa(EDGES, 4, [0.1], [0.2], weights=[1.0, np.nan, 1.0, 1.0])
