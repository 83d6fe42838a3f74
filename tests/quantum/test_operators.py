"""Operators, states and the diagonal-sparse operator algebra against dense NumPy."""

import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum as q
from difflab.quantum._operator import as_operator_batch


def test_qubit_convention_matches_qutip():
    e, g = q.basis(2, 0), q.basis(2, 1)
    np.testing.assert_array_equal(q.sigmaz() @ e, e)
    np.testing.assert_array_equal(q.sigmaz() @ g, -g)
    np.testing.assert_array_equal(q.sigmam() @ e, g)
    np.testing.assert_array_equal(q.sigmap(), q.sigmam().conj().T)
    # Pauli algebra: sigma_x sigma_y = i sigma_z.
    np.testing.assert_allclose(q.sigmax() @ q.sigmay(), 1j * q.sigmaz(), atol=0)


def test_ladder_operators():
    n = 6
    a, ad = q.destroy(n), q.create(n)
    comm = a @ ad - ad @ a
    # [a, a†] = 1 except in the last level, where truncation gives 1 - n.
    np.testing.assert_allclose(np.diag(comm), [1, 1, 1, 1, 1, 1 - n], atol=1e-14)
    np.testing.assert_allclose(ad @ a, q.number(n), atol=1e-14)
    np.testing.assert_allclose(a @ q.fock(n, 3), 3**0.5 * q.fock(n, 2), atol=1e-14)


def test_coherent_state():
    psi = q.coherent(40, 1.5 + 0.5j)
    a = q.destroy(40)
    assert abs(jnp.linalg.norm(psi) - 1) < 1e-14
    # Converged truncation: <a> = alpha and <n> = |alpha|^2.
    np.testing.assert_allclose(jnp.vdot(psi, a @ psi), 1.5 + 0.5j, atol=1e-12)
    np.testing.assert_allclose(jnp.vdot(psi, q.number(40) @ psi).real, 2.5, atol=1e-12)


def test_tensor_and_ket2dm():
    op = q.tensor(q.sigmam(), q.eye(3))
    assert op.shape == (6, 6)
    rho = q.ket2dm(q.tensor(q.basis(2, 0), q.fock(3, 1)))
    assert rho.shape == (6, 6) and rho[1, 1] == 1
    with pytest.raises(ValueError, match="all be vectors or all be matrices"):
        q.tensor(q.sigmax(), q.basis(2, 0))


@pytest.mark.parametrize("layouts", [("dia", "dia"), ("dia", "dense"), ("dense", "dia")])
def test_operator_algebra_matches_dense(layouts):
    rng = np.random.default_rng(1)
    n = 7
    A = rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n))
    A[np.abs(np.subtract.outer(np.arange(n), np.arange(n))) > 1] = 0
    A[0, 4] = 0.7 - 2j
    B = np.asarray(q.destroy(n) + 0.3j * q.number(n))
    X = rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n))
    a, b = q.as_operator(A, layout=layouts[0]), q.as_operator(B, layout=layouts[1])
    np.testing.assert_allclose((a @ b).to_dense(), A @ B, atol=1e-13)
    np.testing.assert_allclose(a.dag().to_dense(), A.conj().T, atol=0)
    np.testing.assert_allclose((a + b).to_dense(), A + B, atol=0)
    np.testing.assert_allclose((a * (0.5 - 2j)).to_dense(), A * (0.5 - 2j), atol=1e-15)
    x = jnp.stack([jnp.real(X), jnp.imag(X)])
    re, im = a.apply(x)
    np.testing.assert_allclose(np.asarray(re) + 1j * np.asarray(im), A @ X, atol=1e-13)
    re, im = a.apply_dag_right(x)
    np.testing.assert_allclose(np.asarray(re) + 1j * np.asarray(im), X @ A.conj().T, atol=1e-13)
    tr = a.trace_with(x)
    np.testing.assert_allclose(complex(tr[0], tr[1]), np.trace(A @ X), atol=1e-13)


def test_auto_layout_keeps_sparse_operators_sparse():
    op = q.as_operator(q.tensor(q.sigmam(), q.create(30)))
    assert op.re.offsets == (-31,) and op.im.is_zero
    dense_op = q.as_operator(np.ones((8, 8)))
    assert type(dense_op.re).__name__ == "RealDense"


def test_batched_operator_shares_offsets():
    kappas = jnp.array([0.0, 0.1, 0.2])
    op, b = as_operator_batch(jnp.sqrt(kappas).astype(complex)[:, None, None] * q.destroy(4)[None])
    assert b == 3 and op.re.offsets == (1,) and op.re.diags.shape == (3, 1, 4)
    np.testing.assert_allclose(op.re.diags[2, 0, :3], np.sqrt(0.2) * np.sqrt([1, 2, 3]), atol=1e-15)


@pytest.mark.parametrize("n_diagonals", [3, 13])
def test_diagonal_sparse_products_equal_dense_ones_in_both_forms(n_diagonals):
    """Below `PADDED_SUM_FROM` diagonals the product is slice updates, from it on one padded sum: both are A @ x."""
    from difflab.quantum._storage import PADDED_SUM_FROM, RealDia

    assert (n_diagonals >= PADDED_SUM_FROM) == (n_diagonals == 13)
    rng = np.random.default_rng(n_diagonals)
    n = 16
    offsets = tuple(sorted(rng.choice(np.arange(-n + 1, n), n_diagonals, replace=False).tolist()))
    dense = np.zeros((n, n))
    for k in offsets:
        rows = np.arange(max(0, -k), min(n, n - k))
        dense[rows, rows + k] = rng.standard_normal(rows.size)
    op = RealDia.from_dense(dense, offsets)
    x = rng.standard_normal((2, n, 3))
    np.testing.assert_allclose(op.apply(jnp.asarray(x)), np.einsum("ij,pjk->pik", dense, x), rtol=1e-13, atol=1e-13)
    y = rng.standard_normal((2, 5, n))
    np.testing.assert_allclose(op.apply_transpose_right(jnp.asarray(y)), y @ dense.T, rtol=1e-13, atol=1e-13)
