"""Gates and circuits against dense Kronecker products and textbook identities (float64, exact to round-off).

Contraction on the qubit axes must equal the dense 2ⁿ × 2ⁿ operator I ⊗ … ⊗ U ⊗ … ⊗ I applied to the flat vector,
with wire 0 the leftmost factor (QuTiP order).
"""

from functools import reduce

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg

import difflab.quantum.circuits as qc

PAULI = {"I": np.eye(2), "X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]), "Z": np.diag([1, -1])}


def dense_on(matrix, wires, n):
    """The 2ⁿ × 2ⁿ operator of `matrix` on `wires` (in that order), by permuting a full Kronecker product."""
    k = len(wires)
    rest = [w for w in range(n) if w not in wires]
    full = np.kron(matrix, np.eye(2 ** (n - k))).reshape((2,) * (2 * n))
    order = list(wires) + rest  # axis j of `full` is wire order[j]
    perm = [order.index(w) for w in range(n)]
    return full.transpose(perm + [n + p for p in perm]).reshape(2**n, 2**n)


def random_state(n, seed=0):
    rng = np.random.default_rng(seed)
    psi = rng.normal(size=2**n) + 1j * rng.normal(size=2**n)
    return psi / np.linalg.norm(psi)


def test_wire_zero_is_most_significant():
    psi = qc.Circuit(3, [qc.X(0)]).statevector()
    np.testing.assert_array_equal(np.flatnonzero(np.abs(psi) > 0.5), [4])  # |100>
    psi = qc.Circuit(3, [qc.X(2)]).statevector()
    np.testing.assert_array_equal(np.flatnonzero(np.abs(psi) > 0.5), [1])  # |001>


@pytest.mark.parametrize(
    "gate",
    [qc.H(1), qc.S(0), qc.T(3), qc.SX(2), qc.Y(1), qc.RX(0.3, 2), qc.RY(-1.1, 0), qc.RZ(2.2, 3), qc.Phase(0.7, 1),
     qc.SWAP(3, 0), qc.ISWAP(1, 2), qc.ZZ(0.4, 2, 0), qc.XX(-0.9, 1, 3), qc.YY(1.3, 0, 1),
     qc.DoubleExcitation(0.8, (3, 1, 0, 2))],
)  # fmt: skip
def test_contraction_equals_dense_operator(gate):
    n = 4
    psi = random_state(n)
    expected = dense_on(np.asarray(gate.matrix()), gate.wires, n) @ psi
    np.testing.assert_allclose(qc.Circuit(n, [gate]).statevector(psi), expected, atol=1e-14)


@pytest.mark.parametrize(
    "gate", [qc.CNOT(2, 0), qc.CZ(0, 3), qc.CRX(0.5, 3, 1), qc.CRY(-0.2, 1, 2), qc.CPhase(1.1, 0, 2),
             qc.Toffoli(3, 0, 2), qc.Controlled(qc.H(1), (0, 2, 3), values=(1, 0, 1))],
)  # fmt: skip
def test_controlled_by_slicing_equals_dense_controlled_matrix(gate):
    n = 4
    psi = random_state(n, 1)
    k = len(gate.controls)
    projector = np.zeros((2**k, 2**k))
    index = int("".join(map(str, gate.values)), 2)
    projector[index, index] = 1
    base = np.asarray(gate.base.matrix())
    dense = np.kron(np.eye(2**k) - projector, np.eye(len(base))) + np.kron(projector, base)
    np.testing.assert_allclose(np.asarray(gate.matrix()), dense, atol=1e-15)
    expected = dense_on(dense, gate.wires, n) @ psi
    np.testing.assert_allclose(qc.Circuit(n, [gate]).statevector(psi), expected, atol=1e-14)


def test_rotations_are_exponentials_of_paulis():
    for name, make in (("X", qc.RX), ("Y", qc.RY), ("Z", qc.RZ)):
        np.testing.assert_allclose(make(0.37, 0).matrix(), scipy.linalg.expm(-0.5j * 0.37 * PAULI[name]), atol=1e-15)
    zz = np.kron(PAULI["Z"], PAULI["Z"])
    np.testing.assert_allclose(qc.ZZ(1.9, 0, 1).matrix(), scipy.linalg.expm(-0.5j * 1.9 * zz), atol=1e-15)


def test_textbook_identities():
    # HZH = X, S² = Z, T² = S, SX² = X, and a Bell pair from H + CNOT.
    hzh = qc.Circuit(1, [qc.H(0), qc.Z(0), qc.H(0)]).unitary()
    np.testing.assert_allclose(hzh, PAULI["X"], atol=1e-15)
    np.testing.assert_allclose(qc.Circuit(1, [qc.S(0), qc.S(0)]).unitary(), PAULI["Z"], atol=1e-15)
    np.testing.assert_allclose(qc.Circuit(1, [qc.T(0), qc.T(0)]).unitary(), np.diag([1, 1j]), atol=1e-15)
    np.testing.assert_allclose(qc.Circuit(1, [qc.SX(0), qc.SX(0)]).unitary(), PAULI["X"], atol=1e-15)
    bell = qc.Circuit(2, [qc.H(0), qc.CNOT(0, 1)]).statevector()
    np.testing.assert_allclose(bell, np.array([1, 0, 0, 1]) / np.sqrt(2), atol=1e-15)


def test_toffoli_truth_table():
    u = np.asarray(qc.Circuit(3, [qc.Toffoli(0, 1, 2)]).unitary()).real
    np.testing.assert_array_equal(u, np.eye(8)[[0, 1, 2, 3, 4, 5, 7, 6]])


def test_unitary_gate_and_density_matrix_agree_with_state_vector():
    rng = np.random.default_rng(3)
    u, _ = np.linalg.qr(rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4)))
    circuit = qc.Circuit(3, [qc.H(0), qc.Unitary(u, (2, 0)), qc.CRZ(0.4, 0, 1), qc.RY(0.2, 2)])
    psi = circuit.statevector()
    np.testing.assert_allclose(circuit.density_matrix(), np.outer(psi, psi.conj()), atol=1e-14)
    dense = reduce(np.matmul, [dense_on(np.asarray(op.matrix()), op.wires, 3) for op in circuit.operations[::-1]])
    np.testing.assert_allclose(circuit.unitary(), dense, atol=1e-14)


def test_circuit_is_a_pytree_that_jits_and_vmaps():
    def p1(theta):
        return qc.probabilities(qc.Circuit(1, [qc.RX(theta, 0)]).statevector())[1]

    thetas = jnp.linspace(0, np.pi, 5)
    np.testing.assert_allclose(jax.jit(jax.vmap(p1))(thetas), np.sin(thetas / 2) ** 2, atol=1e-15)


def test_a_complex64_state_is_computed_in_complex128_under_strict_promotion():
    # Bell state then RY(0.3) on wire 1: the same amplitudes from a complex64 |00> as from the default, in the
    # circuits' own precision (mixing the two inside raised a dtype error under strict promotion).
    circuit = qc.Circuit(2, [qc.H(0), qc.CNOT(0, 1), qc.RY(0.3, 1)])
    psi0 = jnp.zeros(4, jnp.complex64).at[0].set(1)
    c, s = np.cos(0.15), np.sin(0.15)
    expected = np.array([c, s, -s, c]) / np.sqrt(2)
    with jax.numpy_dtype_promotion("strict"):
        psi = circuit.statevector(psi0)
        rho = circuit.density_matrix(jnp.outer(psi0, psi0.conj()))
    assert psi.dtype == rho.dtype == jnp.complex128
    np.testing.assert_allclose(psi, expected, atol=1e-15)
    np.testing.assert_allclose(rho, np.outer(expected, expected), atol=1e-15)
