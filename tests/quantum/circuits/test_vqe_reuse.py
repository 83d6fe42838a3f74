"""vqe and minimize reuse their compiled program across calls of the same structure (new coefficients and starts)."""

import jax.numpy as jnp
import numpy as np

import difflab.quantum.circuits as qc

TRACES = []


def ansatz(theta):
    TRACES.append(1)  # runs only while JAX traces: once per compilation
    return qc.Circuit(2, [qc.RY(theta[0], 0), qc.RY(theta[1], 1), qc.CNOT(0, 1)])


def test_second_vqe_with_new_coefficients_does_not_recompile():
    p0 = np.array([[0.3, -0.2], [1.0, 0.5]])
    first = qc.vqe(qc.tfim_hamiltonian(2, 1.0, 0.5), ansatz, p0, steps=5)
    traced = len(TRACES)
    assert traced > 0
    second = qc.vqe(qc.tfim_hamiltonian(2, 1.0, 0.9), ansatz, p0 + 0.1, steps=5)
    assert len(TRACES) == traced
    # the reused program still computes the new problem: the same result as a fresh run on its own
    h = qc.tfim_hamiltonian(2, 1.0, 0.9)
    direct = [float(qc.expectation(h, ansatz(p).statevector())) for p in second.params]
    np.testing.assert_allclose(second.values, direct, rtol=0, atol=1e-13)
    assert not np.allclose(first.values, second.values)


def test_second_minimize_with_the_same_cost_does_not_recompile():
    def cost(p):
        TRACES.append(1)
        return jnp.sum((p - 1.0) ** 2)

    qc.minimize(cost, np.zeros((2, 3)), steps=4)
    traced = len(TRACES)
    result = qc.minimize(cost, np.ones((2, 3)), steps=4)
    assert len(TRACES) == traced
    np.testing.assert_allclose(result.values, 0.0, atol=0)
