r"""Tsodyks–Markram short-term depression and facilitation of a synapse population, event by event.

Each synapse holds a utilisation $u$ (the fraction of the available resources a spike releases) and the
fraction $R$ of its resources available. Between arrivals both relax exactly, $u \to 0$ with $\tau_F$ and
$R \to 1$ with $\tau_D$ (ms); at the arrival of spike $n$, after $\Delta_n$ ms since the last one,

$$u_n = u_{n-1} e^{-\Delta_n/\tau_F} + U\big(1 - u_{n-1} e^{-\Delta_n/\tau_F}\big), \qquad
  R_n = 1 - \big(1 - R_{n-1}(1 - u_{n-1})\big)\, e^{-\Delta_n/\tau_D},$$

and the spike delivers $w\,u_n R_n$ in place of $w$ (µS; it then leaves $R_n(1 - u_n)$). The first spike
delivers $w U$ ($u_0 = 0$, $R_0 = 1$). $\tau_F = 0$ means no facilitation ($u_n = U$ for every spike),
$\tau_D = 0$ full recovery between spikes. Under a regular train of period $T$ the amplitudes settle at
$w\,u_\infty R_\infty$ with

$$u_\infty = \frac{U}{1 - (1 - U)\,e^{-T/\tau_F}}, \qquad
  R_\infty = \frac{1 - e^{-T/\tau_D}}{1 - (1 - u_\infty)\,e^{-T/\tau_D}}.$$

References: Tsodyks and Markram, *PNAS* 94, 719 (1997); Markram, Wang and Tsodyks, *PNAS* 95, 5323 (1998);
Maass and Markram, *J. Comput. Neurosci.* 12, 91 (2002) (this recursion, their eq. 2).
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ..core.internal import is_concrete

_NEVER = -1e4  # ms: the time of "no spike yet", far enough in the past that every relaxation is complete


class TsodyksMarkram(eqx.Module):
    """Short-term plasticity of a synapse population: ``U`` (1), ``tau_rec`` and ``tau_facil`` (ms).

    Scalars or one value per synapse. Give it to a population as ``plasticity=``, e.g.
    ``ExpSynapses([0], [1], 0.01, 1.0, plasticity=TsodyksMarkram(U=0.5, tau_rec=800.0))`` (depressing) or
    ``TsodyksMarkram(U=0.1, tau_rec=100.0, tau_facil=1000.0)`` (facilitating). ``tau_facil = 0`` turns
    facilitation off, ``tau_rec = 0`` depression.
    """

    U: Array
    tau_rec: Array
    tau_facil: Array

    def __init__(self, U: ArrayLike = 0.5, tau_rec: ArrayLike = 800.0, tau_facil: ArrayLike = 0.0):
        self.U, self.tau_rec, self.tau_facil = (_as_float(v) for v in (U, tau_rec, tau_facil))
        if is_concrete(U, tau_rec, tau_facil):  # traced values are checked by the network (`physical_checks`)
            _check_values(*(np.asarray(v) for v in (self.U, self.tau_rec, self.tau_facil)))

    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        """U in (0, 1], time constants >= 0 ms, as `AbstractSynapses.physical_checks` states them."""
        return {
            "plasticity.U must be in (0, 1]": (jnp.all((self.U > 0) & (self.U <= 1)), self.U),
            "plasticity.tau_rec must be >= 0 ms": (jnp.all(~(self.tau_rec < 0)), self.tau_rec),
            "plasticity.tau_facil must be >= 0 ms": (jnp.all(~(self.tau_facil < 0)), self.tau_facil),
        }

    def check_size(self, n: int) -> None:
        """Refuse per-synapse values of the wrong length for a population of ``n`` synapses."""
        for name in ("U", "tau_rec", "tau_facil"):
            shape = jnp.shape(getattr(self, name))
            if shape not in ((), (n,)):
                raise ValueError(f"plasticity.{name} must be a scalar or one value per synapse ({n}); got {shape}")

    @staticmethod
    def initial_state(n: int, dtype) -> Array:
        """``(u, R, t_last)`` of no spike yet, ``(n, 3)``: $u = 0$, $R = 1$, the last arrival far in the past."""
        return jnp.broadcast_to(jnp.asarray([0.0, 1.0, _NEVER], dtype), (n, 3))

    def arrive(self, state: Array, t: Array, arrived: Array) -> tuple[Array, Array]:
        r"""The amplitudes $u_n R_n$ of spikes arriving at ``t`` (ms) where ``arrived``, and the new state.

        ``state`` is ``(..., synapses, 3)``: $u$ and $R$ just after the last arrival and its time (ms); where
        nothing arrives the state is kept (it relaxes only in the next arrival's closed form).
        """
        u, R, last = state[..., 0], state[..., 1], state[..., 2]
        since = jnp.where(arrived, t - last, 0.0)
        u_before = u * _relaxed(since, self.tau_facil)
        u_new = u_before + self.U * (1 - u_before)
        R_new = 1 - (1 - R * (1 - u)) * _relaxed(since, self.tau_rec)
        amplitude = u_new * R_new
        new = jnp.stack([u_new, R_new, jnp.broadcast_to(t, u_new.shape)], axis=-1)
        return amplitude, jnp.where(arrived[..., None], new, state)

    def steady_state(self, period: ArrayLike) -> tuple[Array, Array]:
        r"""$(u_\infty, R_\infty)$ of a regular train of ``period`` ms (see the module), at each arrival."""
        f, d = _relaxed(period, self.tau_facil), _relaxed(period, self.tau_rec)
        u = self.U / (1 - (1 - self.U) * f)
        return u, (1 - d) / (1 - (1 - u) * d)


def _as_float(value: ArrayLike) -> Array:
    """``value`` as a floating-point array (integers and lists become floats; a float keeps its precision)."""
    arr = jnp.asarray(value)
    return arr if jnp.issubdtype(arr.dtype, jnp.floating) else arr.astype(float)


def _check_values(U: np.ndarray, tau_rec: np.ndarray, tau_facil: np.ndarray) -> None:
    for name, values in (("U", U), ("tau_rec", tau_rec), ("tau_facil", tau_facil)):
        if values.ndim > 1 or not np.isfinite(values).all():
            raise ValueError(f"{name} must be finite, a scalar or one value per synapse; got {values!r}")
    if ((U <= 0) | (U > 1)).any():
        raise ValueError(f"U must be in (0, 1] (the fraction of resources a spike uses); got {U.min():g}")
    for name, values in (("tau_rec", tau_rec), ("tau_facil", tau_facil)):
        if (values < 0).any():
            raise ValueError(f"{name} must be >= 0 ms; got {values.min():g}")


def _relaxed(elapsed: ArrayLike, tau: Array) -> Array:
    r"""$e^{-\Delta/\tau}$, 0 for $\tau = 0$ (instant relaxation; double where: finite gradients there)."""
    zero = tau == 0
    return jnp.where(zero, 0.0, jnp.exp(-jnp.asarray(elapsed) / jnp.where(zero, 1.0, tau)))
