r"""Gradient-based pulse optimisation: an X gate on a three-level transmon with a Gaussian + DRAG pulse.

The controls are the pulse amplitude $A$ (rad/ns), the DRAG coefficient $\beta$ (ns) and the drive detuning $\delta$
(rad/ns) of `transmon` / `drag_pulses`. The loss is the average-gate infidelity $1 - F$ of the computational block
(`gate_fidelity`), which counts leakage to $|2\rangle$ as error. Gradients are exact (reverse mode through the
adaptive solver, `diffrax.RecursiveCheckpointAdjoint`); the optimiser is Adam on controls scaled to order one
($A/A_\pi$, $\beta|\alpha|$, $\delta/|\alpha|$ with $A_\pi$ the area-π amplitude).
"""

from __future__ import annotations

import numbers

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax

from ..core.internal import optax_update
from ._fidelity import gate_fidelity
from ._transmon import drag_pulses, subspace_propagator, transmon

X_GATE = np.array([[0.0, 1.0], [1.0, 0.0]], dtype=complex)


def _check_settings(anharmonicity, duration, sigma, target, steps, learning_rate) -> None:
    """Refuse settings that would end in NaN controls or an empty history, naming the argument."""
    for name, value, units in (
        ("duration", duration, "ns"),
        ("sigma", sigma, "ns"),
        ("learning_rate", learning_rate, ""),
    ):
        if not (np.ndim(value) == 0 and 0 < float(value) < np.inf):
            raise ValueError(f"{name} must be finite and > 0 {units}".rstrip() + f"; got {value!r}")
    if not (np.ndim(anharmonicity) == 0 and np.isfinite(anharmonicity) and anharmonicity != 0):
        raise ValueError(f"anharmonicity must be finite and non-zero (rad/ns); got {anharmonicity!r}")
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1:
        raise ValueError(f"steps must be a positive integer; got {steps!r}")
    t = np.asarray(target)
    if t.shape != (2, 2) or not np.issubdtype(t.dtype, np.number) or not np.allclose(t.conj().T @ t, np.eye(2)):
        raise ValueError(f"target must be a 2×2 unitary (the gate on |0>, |1>); got {target!r}")


def _infidelity(u, scale, anharmonicity, duration, sigma, target, levels):
    amp, beta, detuning = u * scale
    model = transmon(anharmonicity, drag_pulses(amp, beta, duration, sigma), detuning=detuning, levels=levels)
    return 1.0 - gate_fidelity(subspace_propagator(model, duration), target)


@eqx.filter_jit
def _step(u, opt_state, optimizer, scale, args):
    loss, grad = jax.value_and_grad(_infidelity)(u, scale, *args)
    updates, opt_state = optax_update(optimizer, grad, opt_state)
    return optax.apply_updates(u, updates), opt_state, loss


def optimize_drag(
    anharmonicity: float = -2 * np.pi * 0.2,
    duration: float = 20.0,
    *,
    sigma: float | None = None,
    target=X_GATE,
    levels: int = 3,
    steps: int = 150,
    learning_rate: float = 0.02,
    tol: float = 1e-5,
):
    r"""Optimise $(A, \beta, \delta)$ of a Gaussian + DRAG pulse of `duration` ns for `target` (default X).

    Starts from the plain Gaussian of area π ($\beta = \delta = 0$) and stops after `steps` Adam steps or once the
    infidelity is below `tol`. Returns a dict with `amplitude` (rad/ns), `beta` (ns), `detuning` (rad/ns),
    `fidelity` (of the returned controls), `start_fidelity` and the infidelity `history` (one entry per step).
    """
    sigma = duration / 4 if sigma is None else sigma
    _check_settings(anharmonicity, duration, sigma, target, steps, learning_rate)
    a_pi = np.pi / (sigma * np.sqrt(2 * np.pi))
    scale = jnp.array([a_pi, 1 / abs(anharmonicity), abs(anharmonicity)])
    args = (jnp.asarray(anharmonicity), duration, sigma, jnp.asarray(target), levels)
    optimizer = optax.adam(learning_rate)
    u = jnp.array([1.0, 0.0, 0.0])
    opt_state = optimizer.init(u)
    history = []
    best = (np.inf, u)
    for _ in range(steps):
        new_u, opt_state, loss = _step(u, opt_state, optimizer, scale, args)
        history.append(float(loss))
        if history[-1] < best[0]:
            best = (history[-1], u)
        if history[-1] < tol:
            break
        u = new_u
    amp, beta, detuning = np.asarray(best[1] * scale)
    return {
        "amplitude": float(amp), "beta": float(beta), "detuning": float(detuning), "fidelity": 1.0 - best[0],
        "start_fidelity": 1.0 - history[0], "history": np.asarray(history),
    }  # fmt: skip
