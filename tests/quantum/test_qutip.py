"""QuTiP interoperability: conversions both ways, `Qobj`s accepted by the solvers, mismatched dims refused.

Skipped when QuTiP is not installed (it is in the `test` extra, so CI runs these).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum as q

qutip = pytest.importorskip("qutip", reason="QuTiP is optional: pip install difflab[qutip] (or the test extra)")


def test_round_trip_keeps_values_and_dims():
    a = qutip.tensor(qutip.qeye(2), qutip.destroy(3))
    np.testing.assert_array_equal(q.from_qutip(a), np.kron(np.eye(2), np.asarray(q.destroy(3))))
    ket = qutip.tensor(qutip.basis(2, 1), qutip.coherent(3, 0.2))
    assert q.from_qutip(ket).shape == (6,)
    np.testing.assert_allclose(q.from_qutip(ket.dag()), q.from_qutip(ket), atol=0)  # a bra comes back as its ket
    back = q.to_qutip(q.from_qutip(a), dims=[2, 3])
    assert back.dims == [[2, 3], [2, 3]] and back == a
    assert q.to_qutip(q.from_qutip(ket), dims=[2, 3]) == ket
    with pytest.raises(ValueError, match=r"dims \[2, 2\] multiply to 4 but array acts on dimension 6"):
        q.to_qutip(q.from_qutip(a), dims=[2, 2])
    with pytest.raises(TypeError, match=r"obj must be a qutip\.Qobj; got ndarray"):
        q.from_qutip(np.eye(2))


def test_solvers_accept_qobj_and_agree_with_qutip():
    n = 5
    a = qutip.destroy(n)
    H = a.dag() * a + 0.3 * (a + a.dag())
    psi0 = qutip.basis(n, 1)
    ts = np.linspace(0.0, 2.0, 5)
    ours = q.mesolve(H, psi0, ts, jump_ops=[0.5 * a], exp_ops=[a.dag() * a], rtol=1e-10, atol=1e-12)
    theirs = qutip.mesolve(H, psi0, ts, [0.5 * a], e_ops=[a.dag() * a], options={"atol": 1e-12, "rtol": 1e-10})
    np.testing.assert_allclose(ours.expects[:, 0].real, theirs.expect[0], atol=1e-7)
    rho = q.steadystate(H, [0.5 * a])
    np.testing.assert_allclose(rho, qutip.steadystate(H, [0.5 * a]).full(), atol=1e-8)
    # the superoperator in QuTiP's convention: the Liouvillian and its exponential
    np.testing.assert_allclose(q.liouvillian(H, [0.5 * a]), qutip.liouvillian(H, [0.5 * a]).full(), atol=1e-12)
    S = q.mepropagator(H, jnp.array([0.0, 0.5]), jump_ops=[0.5 * a], rtol=1e-10, atol=1e-12).propagators[-1]
    expected = (0.5 * qutip.liouvillian(H, [0.5 * a])).expm().full()
    np.testing.assert_allclose(S, expected, atol=1e-8)
    U = q.sepropagator(H, jnp.array([0.0, 0.5]), rtol=1e-10, atol=1e-12).propagators[-1]
    np.testing.assert_allclose(U, (-0.5j * H).expm().full(), atol=1e-8)
    mc = q.mcsolve(H, psi0, ts, [0.5 * a], ntraj=2, key=jax.random.key(0), exp_ops=[a.dag() * a])
    assert mc.expects.shape == (5, 1)


def test_mismatched_dims_refused_by_name():
    H = qutip.tensor(qutip.sigmaz(), qutip.qeye(3))
    psi0 = qutip.tensor(qutip.basis(3, 0), qutip.basis(2, 0))  # six levels, but a qutrit ⊗ a qubit
    with pytest.raises(ValueError, match=r"psi0 has QuTiP dims \[3, 2\] but H has dims \[2, 3\]"):
        q.sesolve(H, psi0, [0.0, 1.0])
    L = qutip.tensor(qutip.qeye(3), qutip.sigmam())
    with pytest.raises(ValueError, match=r"jump_ops\[0\] has QuTiP dims \[3, 2\] but H has dims \[2, 3\]"):
        q.mesolve(H, qutip.tensor(qutip.basis(2, 0), qutip.basis(3, 0)), [0.0, 1.0], jump_ops=[L])
