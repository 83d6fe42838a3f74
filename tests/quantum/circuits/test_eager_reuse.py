"""Circuits simulated outside `jit` compile once per structure: new angles reuse the program."""

import jax
import numpy as np

import difflab.quantum.circuits as qc

COMPILES: list[float] = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: (
        COMPILES.append(duration) if event == "/jax/core/compile/backend_compile_duration" else None
    )
)


def layer(angles):
    """Three wires: RX, RZ per wire, a CNOT ladder; angles as Python floats, as a user writes them."""
    ops = [qc.RX(float(a), w) for w, a in enumerate(angles[:3])]
    ops += [qc.RZ(float(a), w) for w, a in enumerate(angles[3:])]
    return qc.Circuit(3, [*ops, qc.CNOT(0, 1), qc.CNOT(1, 2)])


def test_new_angles_reuse_the_compiled_state_and_density():
    rng = np.random.default_rng(0)
    first = layer(rng.normal(size=6))
    start = len(COMPILES)
    first.statevector().block_until_ready()
    # one program and a few small conversions (measured 4); gate by gate, the first state took 59 compilations
    assert len(COMPILES) - start <= 8
    first.density_matrix().block_until_ready()
    before = len(COMPILES)
    second = layer(rng.normal(size=6))
    psi, rho = second.statevector(), second.density_matrix()
    assert len(COMPILES) == before  # no compilation for the second circuit
    exact = second.unitary()[:, 0]  # the product of the gate matrices, column |000>
    np.testing.assert_allclose(psi, exact, rtol=0, atol=1e-14)
    np.testing.assert_allclose(rho, np.outer(exact, exact.conj()), rtol=0, atol=1e-14)
