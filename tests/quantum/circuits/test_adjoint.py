"""The adjoint-method gradient of `energy` against backprop and the parameter-shift rule (float64).

The adjoint method uncomputes the state gate by gate instead of storing it; it is the same chain rule, so on random
circuits (controlled, multi-qubit and arbitrary unitary gates, repeated layers run under `lax.scan`, fused gates)
every cotangent (angles, matrices, Hamiltonian coefficients, initial state) must equal backprop's to 1e-12.
"""

import math
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum.circuits as qc
from difflab.quantum.circuits._fusion import Fused, fuse_groups, fused_program
from difflab.quantum.circuits._schedule import Segment, plan

N = 4
HAMILTONIAN = qc.PauliSum(
    [0.7, -0.4, 0.25, 0.5, 0.3, 1.1, -0.6], ["ZXIY", "YIZX", "XXYI", "ZZZI", "IYXZ", "ZIIZ", "IIXI"]
)


def random_unitary(rng, d):
    q, r = np.linalg.qr(rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d)))
    return q * (np.diag(r) / np.abs(np.diag(r)))


def random_ops(rng, angles, one_wire, two_wire, n=N):
    """Thirty gates of every kind on random wires; angles and unitary matrices are consumed in order."""
    a, u1, u2 = iter(angles), iter(one_wire), iter(two_wire)

    def wires(k):
        return [int(w) for w in rng.choice(n, size=k, replace=False)]

    makers = [
        lambda: qc.RX(next(a), *wires(1)), lambda: qc.RY(next(a), *wires(1)), lambda: qc.RZ(next(a), *wires(1)),
        lambda: qc.Phase(next(a), *wires(1)), lambda: qc.ZZ(next(a), *wires(2)), lambda: qc.XX(next(a), *wires(2)),
        lambda: qc.YY(next(a), *wires(2)), lambda: qc.CRX(next(a), *wires(2)), lambda: qc.CRZ(next(a), *wires(2)),
        lambda: qc.CPhase(next(a), *wires(2)), lambda: qc.CNOT(*wires(2)), lambda: qc.CZ(*wires(2)),
        lambda: qc.H(*wires(1)), lambda: qc.SX(*wires(1)), lambda: qc.ISWAP(*wires(2)), lambda: qc.Toffoli(*wires(3)),
        lambda: qc.Unitary(next(u1), wires(1)), lambda: qc.Unitary(next(u2), wires(2)),
        lambda: qc.DoubleExcitation(next(a), wires(4)),
        lambda: qc.Controlled(qc.RY(next(a), 0), [1, 3], values=(0, 1)),
        lambda: qc.Controlled(qc.Unitary(next(u1), 2), [0]),
    ]  # fmt: skip
    return [makers[i]() for i in rng.permutation(np.arange(30) % len(makers))]


def problem(seed, layers=1):
    """A random circuit of `layers` alike layers (same gates and wires, new parameters) and its parameters."""
    rng = np.random.default_rng(seed)
    angles = jnp.asarray(rng.uniform(-np.pi, np.pi, 30 * layers))
    unitaries = ([jnp.asarray(random_unitary(rng, 2)) for _ in range(4 * layers)],
                 [jnp.asarray(random_unitary(rng, 4)) for _ in range(4 * layers)])  # fmt: skip
    psi0 = rng.normal(size=2**N) + 1j * rng.normal(size=2**N)
    structure = int(rng.integers(1 << 30))

    def circuit(x, us):
        ops = []
        for layer in range(layers):
            gen = np.random.default_rng(structure)
            ops += random_ops(gen, x[30 * layer :], us[0][4 * layer :], us[1][4 * layer :])
        return qc.Circuit(N, ops)

    return circuit, angles, unitaries, jnp.asarray(psi0 / np.linalg.norm(psi0))


@pytest.mark.parametrize(("seed", "layers"), [(0, 1), (1, 1), (2, 1), (3, 3)])
def test_adjoint_gradient_equals_backprop(seed, layers):
    circuit, x, us, psi0 = problem(seed, layers)

    def energy(x, us, c, psi, gradient):
        return qc.energy(qc.PauliSum(c, HAMILTONIAN.strings), circuit(x, us), psi, gradient=gradient)

    args = (x, us, HAMILTONIAN.coefficients, psi0)
    value_a, grads_a = jax.jit(jax.value_and_grad(energy, argnums=(0, 1, 2, 3)), static_argnums=4)(*args, "adjoint")
    value_b, grads_b = jax.jit(jax.value_and_grad(energy, argnums=(0, 1, 2, 3)), static_argnums=4)(*args, "backprop")
    assert abs(float(value_a - value_b)) < 1e-12
    for a, b in zip(jax.tree_util.tree_leaves(grads_a), jax.tree_util.tree_leaves(grads_b), strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    assert float(jnp.max(jnp.abs(grads_a[0]))) > 1e-2  # not trivially zero
    if layers > 1:
        assert any(seg.repeats == layers for seg in plan(circuit(x, us).operations))


def test_adjoint_gradient_equals_parameter_shift():
    """For gates $e^{-i\\theta P/2}$, $\\partial_\\theta E = [E(\\theta + \\pi/2) - E(\\theta - \\pi/2)]/2$ exactly."""
    h = qc.tfim_hamiltonian(5, 1.0, 0.7)
    params = jnp.asarray(np.random.default_rng(5).uniform(-np.pi, np.pi, (3, 5, 2)))

    def energy(p):
        return qc.energy(h, qc.hardware_efficient(p))

    grad = np.asarray(jax.jit(jax.grad(energy))(params))
    unit = np.eye(params.size).reshape(params.size, *params.shape)
    shifts = jnp.concatenate([params[None] + np.pi / 2 * unit, params[None] - np.pi / 2 * unit])
    shifted = jax.jit(jax.vmap(energy))(shifts)
    shift = 0.5 * (shifted[: params.size] - shifted[params.size :]).reshape(params.shape)
    np.testing.assert_allclose(grad, shift, rtol=0, atol=1e-12)


def test_energy_equals_expectation_and_vmaps():
    h = qc.tfim_hamiltonian(4, 1.0, 0.6, periodic=True)
    params = jnp.asarray(np.random.default_rng(6).uniform(-1, 1, (5, 2, 4, 2)))

    def adjoint(p):
        return qc.energy(h, qc.hardware_efficient(p))

    def backprop(p):
        return qc.expectation(h, qc.hardware_efficient(p).statevector())

    def both(f):
        return jax.jit(jax.vmap(jax.value_and_grad(f)))(params)

    for a, b in zip(both(adjoint), both(backprop), strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-13)


def test_forward_mode_needs_backprop():
    h = qc.tfim_hamiltonian(3)

    def energy(theta, gradient):
        return qc.energy(h, qc.Circuit(3, [qc.RY(theta, 0), qc.CNOT(0, 1), qc.RX(theta, 2)]), gradient=gradient)

    with pytest.raises(TypeError, match="custom_vjp"):
        jax.jacfwd(energy)(0.3, "adjoint")
    np.testing.assert_allclose(jax.jacfwd(energy)(0.3, "backprop"), jax.grad(energy)(0.3, "adjoint"), atol=1e-14)


def test_adjoint_refuses_non_unitary_gates_and_bad_arguments():
    pulse = qc.PulseGate(0.1, 0)
    circuit = qc.Circuit(2, [pulse, qc.CNOT(0, 1)])
    with pytest.raises(ValueError, match="not unitary"):
        qc.energy(qc.tfim_hamiltonian(2), circuit, gradient="adjoint")
    with pytest.raises(ValueError, match="gradient"):
        qc.energy(qc.tfim_hamiltonian(2), qc.Circuit(2, [qc.H(0)]), gradient="finite")
    with pytest.raises(ValueError, match="wires"):
        qc.energy(qc.tfim_hamiltonian(3), qc.Circuit(2, [qc.H(0)]))
    with pytest.raises(ValueError, match="density_matrix"):
        qc.energy(qc.tfim_hamiltonian(2), qc.Circuit(2, [qc.H(0), qc.Dephasing(0.1, 0)]))


def test_scanned_layers_equal_gate_by_gate():
    params = jnp.asarray(np.random.default_rng(7).uniform(-np.pi, np.pi, (6, 4, 2)))
    circuit = qc.hardware_efficient(params)
    assert plan(circuit.operations) == [Segment(0, 11, 6)]
    np.testing.assert_allclose(circuit.statevector(), circuit.statevector(scan=False), rtol=0, atol=1e-14)
    for wire, segments in ((lambda layer: 1, [Segment(0, 12, 6)]), (lambda layer: layer % 4, [Segment(0, 72, 1)])):
        ops = [[*circuit.operations[11 * k : 11 * k + 11], qc.Depolarizing(0.01, wire(k))] for k in range(6)]
        noisy = qc.Circuit(4, [op for layer in ops for op in layer])
        assert plan(noisy.operations) == segments  # channels on other wires each layer: no repetition
        np.testing.assert_allclose(noisy.density_matrix(), noisy.density_matrix(scan=False), rtol=0, atol=1e-14)


def test_fusion_keeps_the_product():
    circuit, x, us, _ = problem(0)
    ops = circuit(x, us).operations
    fused, groups, _ = fused_program(ops, plan(ops))
    assert sorted(i for g in groups for i in g) == list(range(len(ops)))
    assert any(isinstance(op, Fused) for op in fused) and len(fused) < len(ops)
    np.testing.assert_allclose(qc.Circuit(N, fused).unitary(), qc.Circuit(N, ops).unitary(), rtol=0, atol=1e-13)
    # The hardware-efficient layer: n - 1 blocks CNOT(w-1, w)(RZ RY on w), the first also holding wire 0's pair.
    layer = qc.hardware_efficient(np.zeros((1, 5, 2))).operations
    assert fuse_groups(layer) == [[0, 1, 2, 3, 10], [4, 5, 11], [6, 7, 12], [8, 9, 13]]


def test_no_state_sized_constants_in_the_program():
    """Z signs and the initial state are built inside the program: no captured constant near 2ⁿ entries.

    (The largest constant is the sign table of the Z strings on the last 8 wires, 2⁸ × T.)
    """
    n = 16
    h = qc.tfim_hamiltonian(n, 1.0, 0.7)

    def energy(p):
        return qc.energy(h, qc.hardware_efficient(p))

    programs = [jax.make_jaxpr(jax.value_and_grad(energy))(jnp.zeros((2, n, 2))),
                jax.make_jaxpr(jax.grad(lambda s: qc.expectation(h, s)))(jnp.ones(2**n) / 2 ** (n / 2))]  # fmt: skip
    for jaxpr in programs:
        assert max((np.size(c) for c in jaxpr.consts), default=0) <= 2**8 * len(h.strings) < 2**n // 8


@pytest.mark.parametrize("gradient", ["adjoint", "backprop"])
def test_xla_folds_no_state_sized_constants(gradient):
    """XLA must not constant-fold the initial state or the derivative of the Z terms into 2ⁿ literals.

    The one constant allowed is the sign table of the n − 1 ZZ terms on the last 8 wires (256 × (n − 1)).
    """
    n = 10
    h = qc.tfim_hamiltonian(n, 1.0, 0.7)

    def energy(p):
        return qc.energy(h, qc.hardware_efficient(p), gradient=gradient)

    text = jax.jit(jax.value_and_grad(energy)).lower(jnp.zeros((1, n, 2))).compile().as_text()
    shapes = [s for s in re.findall(r"\[([\d,]+)\]\{[\d,]*\} constant\(", text) if s != f"256,{n - 1}"]
    assert max((math.prod(int(d) for d in s.split(",")) for s in shapes), default=0) < 2 ** (n - 2)
