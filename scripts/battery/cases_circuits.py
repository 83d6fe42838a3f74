"""Battery cases, classes 5, 10: gate circuits (states, angles, channels and gates, concrete and traced)."""

from __future__ import annotations

import numpy as np

from battery.framework import case


def _qc():
    from difflab.quantum import circuits as qc

    return qc


@case("qc.rho0-negative-eigenvalue", "10", r"rho0 must be positive semidefinite")
def _(ctx):
    qc = _qc()
    return qc.Circuit(1, [qc.H(0)]).density_matrix(np.array([[1.455, 0.0], [0.0, -0.455]]))


@case("qc.psi0-nan", "1", r"psi0 must be finite")
def _(ctx):
    qc = _qc()
    return qc.Circuit(1, [qc.H(0)]).statevector(np.array([np.nan, 1.0]))


@case("qc.angle-nan", "1", r"theta must be a finite angle")
def _(ctx):
    return _qc().RY(float("nan"), 0)


@case("qc.pauli-coefficient-nan", "1", r"coefficients must be finite")
def _(ctx):
    return _qc().PauliSum([float("nan")], ["Z"])


@case("qc.traced-non-unitary", "5", r"matrix must be unitary", exc=(Exception,))
def _(ctx):
    import jax
    import jax.numpy as jnp

    qc = _qc()
    run = jax.jit(lambda s: qc.probabilities(qc.Circuit(1, [qc.Unitary(s * jnp.eye(2), 0)]).density_matrix()))
    return run(2.0).block_until_ready()


@case("qc.traced-depolarizing-1.5", "5", r"p must be a probability in \[0, 1\]", exc=(Exception,))
def _(ctx):
    import jax

    qc = _qc()
    run = jax.jit(lambda p: qc.probabilities(qc.Circuit(1, [qc.H(0), qc.Depolarizing(p, 0)]).density_matrix()))
    return run(1.5).block_until_ready()
