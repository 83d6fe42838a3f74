"""Mid-circuit measurement and classical conditions against exact results.

Teleportation: after the Bell measurement of wires 0 and 1 and the corrections X^b Z^a on wire 2, wire 2 holds the
input state in every one of the four outcome branches, each with probability 1/4 (Bennett et al. 1993). Active
reset (measure, then X if 1) is the reset channel ρ → |0⟩⟨0| Tr_w ρ. The deferred-measurement circuit's state ψ
gives each branch exactly: ρ_c = P_c ψψ† P_c with P_c the projector of the measured wires on c.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum.circuits as qc
from difflab import datasets


def random_ket(n, seed):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=2**n) + 1j * rng.normal(size=2**n)
    return v / np.linalg.norm(v)


def random_density(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(2**n, 2**n)) + 1j * rng.normal(size=(2**n, 2**n))
    rho = a @ a.conj().T
    return rho / np.trace(rho)


def teleportation():
    """Teleport wire 0 to wire 2: Bell pair on 1, 2; Bell measurement of 0, 1 into bits a, b; X^b then Z^a."""
    return qc.Circuit(3, [
        qc.H(1), qc.CNOT(1, 2), qc.CNOT(0, 1), qc.H(0), qc.Measure(0, "a"), qc.Measure(1, "b"),
        qc.Conditional(qc.X(2), bits="b"), qc.Conditional(qc.Z(2), bits="a"),
    ])  # fmt: skip


def feedback(theta, phi):
    """Outcome-dependent rotations with unequal branch weights: RY(θ) on 0, measure; RY(φ) on 1 if the bit was 0."""
    return qc.Circuit(3, [
        qc.RY(theta, 0), qc.CNOT(0, 2), qc.Measure(0, "a"), qc.Conditional(qc.RY(phi, 1), bits="a", values=0),
        qc.Conditional([qc.H(1), qc.CNOT(1, 2)], bits="a"), qc.Measure(1, "b"),
        qc.Conditional(qc.RX(0.3 * phi, 2), bits=["a", "b"], values=[0, 1]),
    ])  # fmt: skip


@pytest.fixture(scope="module")
def teleported():
    v = random_ket(1, 3)
    return v, teleportation().branches(np.kron(v, [1, 0, 0, 0]))


def test_teleportation_gives_the_input_state_in_every_branch(teleported):
    v, branches = teleported
    assert branches.bits == ("a", "b")
    np.testing.assert_allclose(np.asarray(branches.weights), 0.25, rtol=0, atol=1e-12)
    for c in range(4):
        rho = np.asarray(branches.state(branches.values[c])).reshape((2,) * 6)
        target = np.einsum("abiabj->ij", rho)  # wires 0 and 1 traced out
        np.testing.assert_allclose(target, np.outer(v, v.conj()), rtol=0, atol=1e-12)


def test_branch_density_matrices_hold_the_measured_outcomes(teleported):
    _, branches = teleported
    for c, (a, b) in enumerate(branches.values):
        populations = np.real(np.diagonal(np.asarray(branches.states[c]))).reshape(2, 2, 2).sum(axis=2)
        expected = np.zeros((2, 2))
        expected[a, b] = 0.25
        np.testing.assert_allclose(populations, expected, rtol=0, atol=1e-12)
    assert branches.index({"a": 1, "b": 0}) == 2


def test_active_reset_equals_the_reset_channel():
    rho = random_density(2, 4)
    reset = np.asarray(qc.Circuit(2, [qc.Reset(1)]).density_matrix(rho))
    active = qc.Circuit(2, [qc.Measure(1, bit=0), qc.Conditional(qc.X(1), bits=0)])
    np.testing.assert_allclose(np.asarray(active.density_matrix(rho)), reset, rtol=0, atol=1e-12)
    measured_reset = qc.Circuit(2, [qc.Measure(1, "m", reset=True)]).branches(rho)
    np.testing.assert_allclose(np.asarray(measured_reset.density_matrix()), reset, rtol=0, atol=1e-12)
    p1 = np.real(np.trace(rho.reshape(2, 2, 2, 2)[:, 1, :, 1]))  # probability of reading 1 on wire 1
    np.testing.assert_allclose(np.asarray(measured_reset.weights), [1 - p1, p1], rtol=0, atol=1e-12)


def test_a_measurement_without_record_dephases_the_wire():
    rho = random_density(2, 5)
    out = np.asarray(qc.Circuit(2, [qc.Measure(0)]).density_matrix(rho)).reshape(2, 2, 2, 2)
    expected = rho.reshape(2, 2, 2, 2).copy()
    expected[0, :, 1, :] = expected[1, :, 0, :] = 0
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-15)


def test_sampled_frequencies_agree_with_the_branch_weights():
    circuit = feedback(1.1, 0.8)
    weights = np.asarray(circuit.branches().weights)
    record = circuit.sample_branches(4000, key=jax.random.key(7))
    assert record.values.shape == (4000, 2) and record.states.shape == (4000, 8)
    frequency, _ = record.frequencies()
    exact_se = np.sqrt(weights * (1 - weights) / 4000)
    assert np.all(np.abs(frequency - weights) <= 4 * exact_se), (frequency, weights)
    observable = qc.PauliSum([1.0, 0.5], ["ZIZ", "IXI"])
    exact = float(qc.expectation(observable, circuit.density_matrix()))
    estimate = record.expectation(observable)
    assert 0 < estimate.standard_error < 0.05
    assert abs(estimate.value - exact) <= 4 * estimate.standard_error, (estimate, exact)


def test_the_deferred_circuit_gives_every_branch_exactly():
    circuit = feedback(1.1, 0.8)
    branches = circuit.branches()
    psi = np.asarray(circuit.deferred().statevector())
    for c, (a, b) in enumerate(branches.values):
        mask = np.zeros((2, 2, 2))
        mask[a, b, :] = 1  # bits a and b are wires 0 and 1 at the end
        projected = psi * mask.reshape(8)
        np.testing.assert_allclose(np.asarray(branches.states[c]), np.outer(projected, projected.conj()),
                                   rtol=0, atol=1e-12)  # fmt: skip


def test_the_deferred_circuit_turns_conditions_into_controls():
    deferred = feedback(1.1, 0.8).deferred()
    kinds = [(type(op).__name__, op.wires) for op in deferred.operations]
    assert kinds == [("PauliRotation", (0,)), ("Controlled", (0, 2)), ("Controlled", (0, 1)),
                     ("Controlled", (0, 1)), ("Controlled", (0, 1, 2)), ("Controlled", (0, 1, 2))]  # fmt: skip
    assert deferred.operations[1].values == (1,) and deferred.operations[2].values == (0,)
    assert deferred.operations[5].values == (0, 1)
    with pytest.raises(ValueError, match="reset=True"):
        qc.Circuit(1, [qc.Measure(0, reset=True)]).deferred()
    with pytest.raises(ValueError, match=r"operations\[2\] \(Gate\) acts on the measured wire"):
        qc.Circuit(2, [qc.H(0), qc.Measure(0), qc.X(0)]).deferred()


def test_gradients_through_the_branches_match_finite_differences():
    z1 = qc.PauliSum([1.0], ["IZ"])

    def loss(params):
        circuit = qc.Circuit(2, [qc.RY(params[0], 0), qc.Measure(0, "a"),
                                 qc.Conditional(qc.RX(params[1], 1), bits="a", values=0)])  # fmt: skip
        branches = circuit.branches()
        return qc.expectation(z1, branches.density_matrix()) + branches.weights[1] ** 2

    # exact: p1 = sin²(θ/2), <Z1> = 1 - p0 (1 - cos φ) = p1 + (1 - p1) cos φ
    theta, phi = 1.1, 0.8
    p1 = np.sin(theta / 2) ** 2
    exact = [np.sin(theta) / 2 * (1 - np.cos(phi)) + 2 * p1 * np.sin(theta) / 2, -(1 - p1) * np.sin(phi)]
    params = jnp.array([theta, phi])
    grad = np.asarray(jax.jit(jax.grad(loss))(params))
    np.testing.assert_allclose(grad, exact, rtol=0, atol=1e-12)
    h = 1e-5
    shifted = jax.jit(jax.vmap(loss))(jnp.concatenate([params[None] + h * jnp.eye(2), params[None] - h * jnp.eye(2)]))
    np.testing.assert_allclose(grad, (shifted[:2] - shifted[2:]) / (2 * h), rtol=0, atol=1e-8)


def test_drawing_shows_measurements_and_conditions_in_order():
    text = qc.Circuit(2, [qc.H(0), qc.Measure(0, "m", reset=True), qc.Conditional(qc.X(1), bits="m")]).draw()
    assert text == "q0: ──H──M→m|0⟩──────────\n\nq1: ─────────────X[m=1]──"


@pytest.mark.parametrize("version", [2, 3])
def test_qasm_round_trip_keeps_measurements_and_conditions(version):
    circuit = teleportation()
    text = circuit.to_qasm(version)
    measure, condition = ("measure q[0] -> a[0];", "if (b==1) x q[2];") if version == 2 else (
        "a = measure q[0];", "if (b) {\n  x q[2];\n}")  # fmt: skip
    assert measure in text and condition in text
    back = qc.from_qasm(text)
    assert back.bits == ("a", "b") and back.operations == circuit.operations
    rebuilt = qc.from_qasm(feedback(1.1, 0.8).to_qasm(3))  # a two-gate block comes back as two conditionals
    np.testing.assert_allclose(np.asarray(rebuilt.branches().states), np.asarray(feedback(1.1, 0.8).branches().states),
                               rtol=0, atol=1e-15)  # fmt: skip


def test_qasm_2_register_conditions_read_bit_zero_as_least_significant():
    text = """OPENQASM 2.0;
include "qelib1.inc";
qreg q[3];
creg c[2];
x q[1];
measure q[0] -> c[0];
measure q[1] -> c[1];
if (c==2) x q[2];
measure q[2] -> c[0];
"""
    circuit = qc.from_qasm(text)  # the last measurement is final: dropped, as difflab measures afterwards
    assert circuit.bits == ("c[0]", "c[1]") and len(circuit.operations) == 4
    assert circuit.operations[-1] == qc.Conditional(qc.X(2), bits=["c[0]", "c[1]"], values=[0, 1])
    branches = circuit.branches()
    np.testing.assert_allclose(np.asarray(branches.weights), [0, 1, 0, 0], atol=1e-15)
    assert abs(float(np.real(branches.density_matrix()[3, 3])) - 1) < 1e-15  # |011⟩: the X was applied


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("OPENQASM 2.0;\nqreg q[2];\ncreg c[1];\nif (c==1) x q[1];", "line 4: the condition reads \\['c'\\], never"),
        ("OPENQASM 3.0;\nqubit[1] q;\nbit c;\nc = measure q[0];\nif (c) { reset q[0]; }",
         "line 5: only gates can be conditioned"),
        ("OPENQASM 3.0;\nqubit[1] q;\nbit c;\nc = measure q[0];\nif (c) { x q[0]; } else { y q[0]; }",
         "line 5: 'else' statements are not supported"),
        ("OPENQASM 3.0;\nqubit[1] q;\nbit c;\nc = measure q[0];\nif (c || c) x q[0];", "cannot read the condition"),
        ("OPENQASM 2.0;\nqreg q[2];\ncreg c[1];\nmeasure q -> c;", "line 4: 2 qubit\\(s\\) measured into 1 bit"),
    ],
)  # fmt: skip
def test_qasm_classical_statements_refused_by_line(text, match):
    with pytest.raises(ValueError, match=match):
        qc.from_qasm(text)


def test_qasm_2_export_refuses_a_condition_on_two_bits():
    with pytest.raises(ValueError, match=r"operations\[6\] conditions on 2 bits: OpenQASM 2 compares one"):
        feedback(1.1, 0.8).to_qasm(2)


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: qc.Circuit(2, [qc.Conditional(qc.X(1), bits="m"), qc.Measure(0, "m")]),
         r"operations\[0\]\.bits reads \['m'\], never written"),
        (lambda: qc.Circuit(2, [qc.Measure(2)]), r"operations\[0\]\.wires must lie in range\(0, 2\)"),
        (lambda: qc.Conditional(qc.X(1), bits=["a", "b"], values=[1]), "values must give 0 or 1 for each of the 2"),
        (lambda: qc.Conditional(qc.X(1), bits="a", values=2), "values must be 0 or 1"),
        (lambda: qc.Conditional(qc.Reset(1), bits="a"), r"ops\[0\] must be a gate"),
        (lambda: qc.Measure(0, bit=-1), "bit must name a classical bit"),
        (lambda: qc.Measure((0, 1)), "wire must be a single wire"),
    ],
)  # fmt: skip
def test_bad_operations_are_refused_by_name(build, match):
    with pytest.raises((ValueError, TypeError), match=match):
        build()


@pytest.mark.parametrize("shots", [0, -3, True, 2.5])
def test_shots_must_be_a_positive_integer(shots):
    with pytest.raises(ValueError, match="shots must be a positive integer"):
        teleportation().sample_branches(shots, key=jax.random.key(0))


@pytest.mark.parametrize("key", [0, None, np.zeros(2, dtype=np.uint32), jnp.zeros(3, dtype=jnp.uint32)])
def test_key_must_be_a_jax_key(key):
    with pytest.raises(TypeError, match=r"key must be one JAX random key, made by jax\.random\.key\(seed\)"):
        teleportation().sample_branches(10, key=key)


def test_state_vector_and_unitary_refuse_mid_circuit_measurements():
    with pytest.raises(ValueError, match=r"operations\[4\] is a Measure: simulate mid-circuit"):
        teleportation().statevector()
    with pytest.raises(ValueError, match="has no unitary"):
        teleportation().unitary()
    with pytest.raises(ValueError, match="sample_branches runs state vectors"):
        qc.Circuit(1, [qc.Depolarizing(0.1, 0), qc.Measure(0)]).sample_branches(4, key=jax.random.key(0))


def test_qiskit_aer_branches_and_counts():
    """Against Qiskit Aer 0.18.2 (datasets/quantum/circuits/reference_qiskit_midcircuit.nc, made by
    generate_qiskit_midcircuit.py): the OpenQASM 3 that Qiskit wrote reads into circuits whose branches are Aer's
    conditional density matrices (bits reversed: Qiskit's qubit 0 and clbit 0 are the least significant) and whose
    weights explain Aer's counts."""
    ref = datasets.load("quantum/circuits/reference_qiskit_midcircuit.nc")
    shots = int(ref.attrs["shots"])
    for k in range(ref.sizes["circuit"]):
        branches = qc.from_qasm(str(ref["program"].values[k])).branches()
        names = [str(b) for b in ref["clbit_name"].values[k]]
        rho = ref["rho_re"].values[k] + 1j * ref["rho_im"].values[k]
        counts = ref["counts"].values[k]
        for value in range(2 ** len(names)):
            outcome = {name: (value >> j) & 1 for j, name in enumerate(names)}
            weight = float(branches.weights[branches.index(outcome)])
            assert abs(counts[value] / shots - weight) <= 4 * np.sqrt(weight * (1 - weight) / shots) + 1e-12
            if counts[value]:
                state = np.asarray(branches.state(outcome)).reshape((2,) * 6).transpose(2, 1, 0, 5, 4, 3)
                np.testing.assert_allclose(state.reshape(8, 8), rho[value], rtol=0, atol=1e-12)
