"""Reverse- and forward-mode gradients through circuits equal the parameter-shift rule.

For a gate $e^{-i\\theta P/2}$ with a Pauli word P, $\\partial_\\theta\\langle O\\rangle =
[\\langle O\\rangle(\\theta + \\pi/2) - \\langle O\\rangle(\\theta - \\pi/2)]/2$ exactly (Mitarai et al., PRA 98, 032309
(2018); Schuld et al., PRA 99, 032331 (2019)); for the phase shift diag(1, e^{iφ}) the same rule holds.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum.circuits as qc

OBSERVABLE = qc.PauliSum([0.7, -0.4, 0.25, 0.5, 0.3], ["ZXI", "YIZ", "XXY", "ZZZ", "IYX"])


def circuit(theta, make):
    ops = [qc.H(0), qc.RY(0.3, 1), qc.RX(0.9, 2), qc.CNOT(0, 2), qc.RZ(0.4, 1), make(theta), qc.CRX(0.8, 2, 1),
           qc.RX(-0.5, 0), qc.RY(0.7, 2)]  # fmt: skip
    return qc.Circuit(3, ops)


@pytest.mark.parametrize(
    "make",
    [lambda t: qc.RX(t, 1), lambda t: qc.RY(t, 0), lambda t: qc.RZ(t, 2), lambda t: qc.ZZ(t, 0, 1),
     lambda t: qc.XX(t, 1, 0), lambda t: qc.Phase(t, 1)],
    ids=["RX", "RY", "RZ", "ZZ", "XX", "Phase"],
)  # fmt: skip
def test_gradient_equals_parameter_shift(make):
    def energy(theta):
        return qc.expectation(OBSERVABLE, circuit(theta, make).statevector())

    theta = 0.613
    shift = 0.5 * (energy(theta + np.pi / 2) - energy(theta - np.pi / 2))
    assert abs(float(jax.grad(energy)(theta)) - float(shift)) < 1e-13
    assert abs(float(jax.jacfwd(energy)(theta)) - float(shift)) < 1e-13
    assert abs(float(shift)) > 1e-3  # the check is not trivial


def test_density_matrix_gradient_with_noise_matches_finite_differences():
    def energy(gamma):
        ops = [qc.H(0), qc.CNOT(0, 1), qc.AmplitudeDamping(gamma, 0), qc.Dephasing(0.1, 1), qc.RY(0.4, 1)]
        return qc.expectation(qc.PauliSum([1.0, 0.5], ["ZI", "XX"]), qc.Circuit(2, ops).density_matrix())

    g, h = 0.2, 1e-5
    fd = (energy(g + h) - energy(g - h)) / (2 * h)
    np.testing.assert_allclose(jax.grad(energy)(g), fd, rtol=1e-8)


def test_vmap_over_parameter_sets():
    thetas = jnp.linspace(-1, 1, 7)

    def energy(theta):
        return qc.expectation(OBSERVABLE, circuit(theta, lambda t: qc.RX(t, 1)).statevector())

    np.testing.assert_allclose(jax.vmap(energy)(thetas), [energy(t) for t in thetas], atol=1e-14)
