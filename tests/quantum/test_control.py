"""X gate on a three-level transmon (α/2π = −200 MHz, 20 ns, σ = 5 ns) found with gradients.

The plain area-π Gaussian leaks to |2> (fidelity ≈ 0.96); 60 Adam steps on (A, β, δ) must reach F > 0.999
(measured: ≈ 0.9999 after 60 steps, 0.99995 after 200).
"""

import jax.numpy as jnp
import numpy as np
import pytest

import difflab.quantum as q


def test_gate_fidelity_definition():
    assert float(q.gate_fidelity(jnp.asarray(q.X_GATE), jnp.asarray(q.X_GATE))) == pytest.approx(1.0)
    # A global phase does not count; a leaky block (norm loss 10 %) does.
    np.testing.assert_allclose(q.gate_fidelity(1j * jnp.asarray(q.X_GATE), jnp.asarray(q.X_GATE)), 1.0, atol=1e-15)
    leaky = jnp.sqrt(0.9) * jnp.asarray(q.X_GATE)
    np.testing.assert_allclose(q.gate_fidelity(leaky, jnp.asarray(q.X_GATE)), (2 * 0.9 + 4 * 0.9) / 6, atol=1e-15)


@pytest.mark.slow
def test_drag_x_gate_reaches_0999():
    result = q.optimize_drag(steps=60)
    assert result["start_fidelity"] < 0.97
    assert result["fidelity"] > 0.999
    assert result["history"][-1] < result["history"][0] / 100
