"""A gate given by a transmon pulse: the circuit's output and its gradient flow through the Schrödinger solve.

Circuit: PulseGate on wire 0, CNOT(0, 1), from |00>; P(11) = |V₁₀|² with V the computational block of the transmon
propagator (`difflab.quantum.subspace_propagator`). The plain area-π Gaussian (α/2π = −200 MHz, 20 ns) leaks, so
P(11) ≈ 0.94 rather than 1; the gradient with respect to the amplitude matches central finite differences.
"""

import jax
import numpy as np
import pytest

import difflab.quantum as q
import difflab.quantum.circuits as qc

A_PI = np.pi / (5.0 * np.sqrt(2 * np.pi))  # area π for σ = T/4 = 5 ns (before the truncation of the Gaussian)


@pytest.mark.slow
# subspace_propagator's rtol/atol keywords are being replaced by a step-size controller; either form is fine here.
@pytest.mark.filterwarnings("ignore:rtol/atol/dtmax are deprecated:DeprecationWarning")
def test_pulse_gate_value_and_gradient_through_the_solve():
    @jax.jit
    def p11(amplitude):
        gate = qc.PulseGate(amplitude, 0, rtol=1e-10, atol=1e-12)
        return qc.probabilities(qc.Circuit(2, [gate, qc.CNOT(0, 1)]).statevector())[3]

    value, grad = jax.value_and_grad(p11)(A_PI)
    model = q.transmon(-2 * np.pi * 0.2, q.drag_pulses(A_PI, 0.0, 20.0, 5.0))
    v = np.asarray(q.subspace_propagator(model, 20.0, rtol=1e-10, atol=1e-12))
    assert abs(float(value) - abs(v[1, 0]) ** 2) < 1e-10
    assert 0.9 < float(value) < 0.99  # leakage and phase errors of the plain Gaussian
    h = 1e-4
    fd = (p11(A_PI + h) - p11(A_PI - h)) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-5)
    assert abs(float(grad)) > 0.1
