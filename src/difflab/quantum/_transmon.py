r"""A transmon truncated to a few levels, in the frame rotating at the qubit frequency (RWA).

$$ H(t) = \delta\, a^\dagger a + \frac{\alpha}{2} a^{\dagger 2} a^2
        + \frac{\Omega_x(t)}{2} (a + a^\dagger) + \frac{\Omega_y(t)}{2}\, i (a^\dagger - a), $$

with the anharmonicity $\alpha$ (rad/ns, negative for a transmon, e.g. $-2\pi \times 0.2$ GHz), the drive detuning
$\delta$ (rad/ns) and the two drive quadratures $\Omega_{x,y}$ (rad/ns); time in ns. On levels $|0\rangle, |1\rangle$,
$\Omega_x$ alone is a Rabi drive $\frac{\Omega_x}{2}\sigma_x$; the third level is where a fast pulse leaks.
Reference: Koch et al., PRA 76, 042319 (2007); Motzoi et al., PRL 103, 110501 (2009).
"""

from __future__ import annotations

import numbers

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ..core.internal import is_concrete
from ._complex import from_parts
from ._drives import Drive
from ._fidelity import gate_fidelity as gate_fidelity
from ._operator import dia
from ._pulses import GaussianPulse
from ._schrodinger import SchrodingerModel
from ._solve import controller_for, solve_model
from ._standard_operators import destroy, number


def drag_pulses(amplitude: ArrayLike, beta: ArrayLike, duration: float, sigma: float) -> tuple[GaussianPulse, ...]:
    r"""Gaussian + DRAG quadratures on $[0, T]$: $\Omega_x = A\,g(t)$, $\Omega_y = \beta\,A\,\dot g(t)$.

    $g$ is the truncated Gaussian of `GaussianPulse` (centre $T/2$, width $T$, zero at both ends); `amplitude` $A$ in
    rad/ns, `beta` in ns (first-order DRAG: $\beta \approx -1/\alpha$), `duration` $T$ and `sigma` in ns.
    """
    centre = 0.5 * duration
    x = GaussianPulse(amplitude, centre, sigma, width=duration)
    y = GaussianPulse(jnp.asarray(amplitude) * jnp.asarray(beta), centre, sigma, width=duration, derivative=True)
    return x, y


def transmon(
    anharmonicity: ArrayLike,
    pulses: tuple,
    *,
    detuning: ArrayLike = 0.0,
    levels: int = 3,
) -> SchrodingerModel:
    """`SchrodingerModel` of the driven transmon above; `pulses` = (Ω_x protocol, Ω_y protocol), time in ns."""
    if isinstance(levels, bool) or not isinstance(levels, numbers.Integral) or levels < 2:
        raise ValueError(f"levels must be an integer >= 2; got {levels!r}")
    if not isinstance(pulses, tuple | list) or len(pulses) != 2:
        raise ValueError(f"pulses must be the pair (Omega_x protocol, Omega_y protocol) in rad/ns; got {pulses!r}")
    a = np.asarray(destroy(levels))
    kerr = dia(a.conj().T @ a.conj().T @ a @ a)
    H0 = detuning * dia(number(levels)) + (0.5 * jnp.asarray(anharmonicity)) * kerr
    x_op = 0.5 * (a + a.conj().T)
    y_op = 0.5j * (a.conj().T - a)
    return SchrodingerModel(H0, [Drive(pulses[0], x_op), Drive(pulses[1], y_op)])


def subspace_propagator(model: SchrodingerModel, duration: float, *, rtol=1e-8, atol=1e-10) -> Array:
    r"""$V_{jk} = \langle j|U(T)|k\rangle$ for $j, k \in \{0, 1\}$: the computational block of the propagator."""
    if is_concrete(duration) and not (np.ndim(duration) == 0 and 0 < float(duration) < np.inf):
        raise ValueError(f"duration must be a finite time > 0 (ns); got {duration!r}")
    n = model.dim
    columns = jnp.stack([jnp.eye(n)[:, :2], jnp.zeros((n, 2))])  # kets |0>, |1> as columns, [re, im]
    control = controller_for(model, rtol, atol)
    traj = solve_model(model, jnp.array([0.0, duration]), y0={"psi": columns}, save_states=True,
                       stepsize_controller=control)  # fmt: skip
    final = traj.ys["psi"][-1]
    return from_parts(final[0, :2, :], final[1, :2, :])
