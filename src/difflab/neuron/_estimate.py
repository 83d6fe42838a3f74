r"""Conductances of a Hodgkin–Huxley cell from its measured membrane potential, by linear regression.

Given the recorded potential $V(t)$, every gate obeys a linear ODE driven by $V$ alone,
$\dot x = \alpha(V)(1 - x) - \beta(V) x$, so the gates can be computed from the recording without
knowing any conductance. The membrane equation is then **linear** in the conductances:

$$C\,[V(t_b) - V(t_a)] - \int_{t_a}^{t_b} I\,dt + \sum_{\text{fixed } c} \int G_c (V - E_c)\,dt
  = -\sum_{\text{fitted } c} \bar g_c \int_{t_a}^{t_b} \phi_c(\text{gates}) (V - E_c)\,dt,$$

with $\phi_c$ the channel's conductance at $\bar g_c = 1$ (e.g. $m^3 h$). One such equation per block
$[t_a, t_b]$ of about 0.5 ms and an ordinary least-squares solve give all fitted $\bar g_c$ at once
(Huys, Ahrens & Paninski, *J. Neurophysiol.* 96:872, 2006). The integrated form is used instead of
$dV/dt$: a difference of noisy samples over a block carries the noise of two samples, not of a
derivative, and blocks do not share samples, so their errors are independent.

On the 300 ms Ornstein–Uhlenbeck recording of the squid axon with 1 mV Gaussian noise the estimate
lies within 1–2 % of the truth for any noise seed (benchmarks/calibration_global.py); it ignores
where a fit started, so it removes the side minima of the trace loss, and Levenberg–Marquardt on
the full trace then removes the small bias that noise in the regressors leaves.
"""

from __future__ import annotations

import operator

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..calibration.internal import EstimateUnavailable

#: Length (ms) of the blocks over which the membrane equation is integrated.
BLOCK_MS = 0.5


def conductance_paths(model, paths) -> dict[str, tuple[str, str]] | None:
    """`{path: (channel key, field)}` when every path is a channel conductance, else `None`."""
    out = {}
    for path in paths:
        parts = path.split(".")
        if len(parts) != 3 or parts[0] != "channels" or parts[1] not in model.channels:
            return None
        if parts[2] not in ("gbar", "g"):
            return None
        out[path] = (parts[1], parts[2])
    return out


def estimate_conductances(model, protocol, ts, V, mask, paths) -> dict[str, float] | None:
    """Least-squares conductances (mS/cm²) of the channels named by `paths` from a recording `V(ts)`.

    Args:
        model: a single [`HodgkinHuxley`][difflab.neuron.HodgkinHuxley] cell (no member axis);
            its other parameters (C, reversal potentials, unfitted conductances, kinetics) are taken as known.
        protocol: the injected current density (µA/cm²), a function of time.
        ts: sample times (ms), increasing.
        V: measured membrane potential (mV) at `ts`.
        mask: `True` where a sample was measured; blocks with a missing sample are left out.
        paths: dotted paths of channel conductances (`channels.<key>.gbar` or `.g`).

    Returns:
        `{path: value}`, or `None` when the estimate does not apply (a path that is not a
        channel conductance, a batched model).

    Raises:
        EstimateUnavailable: samples more than `BLOCK_MS / 2` apart (the blocks would hold one sample, and the
            trapezoids of a 1 ms spike would be wrong by tens of %), or fewer usable blocks than twice the
            conductances.
    """
    where = conductance_paths(model, paths)
    if where is None or model.batch_shape() != ():
        return None
    ts = np.asarray(ts, dtype=float)
    V = np.asarray(V, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    Vf = np.where(mask, V, np.interp(ts, ts[mask], V[mask]))  # gates need a continuous drive
    dt = np.diff(ts)
    if float(np.median(dt)) > BLOCK_MS / 2:
        raise EstimateUnavailable(
            f"the data are sampled every {float(np.median(dt)):.4g} ms; the linear estimate integrates the membrane "
            f"equation over {BLOCK_MS} ms blocks and needs samples at most {BLOCK_MS / 2:g} ms apart"
        )
    midpoints = jnp.asarray(ts[:-1] + dt / 2)
    currents, drive = _regressors(model, protocol, jnp.asarray(Vf), jnp.asarray(dt), midpoints, where)
    currents = {k: np.asarray(c) for k, c in currents.items()}
    drive = np.asarray(drive) * dt
    trapz = {k: 0.5 * (c[1:] + c[:-1]) * dt for k, c in currents.items()}
    fitted = list(where)
    b = float(model.C) * np.diff(Vf) - drive
    for key in model.channel_order:
        if where_field(where, key) is None:
            b = b + trapz[key]
    A = -np.stack([trapz[where[p][0]] for p in fitted], axis=1)
    m = max(1, round(BLOCK_MS / float(np.median(dt))))
    n_blocks = dt.size // m
    ok = (mask[1:] & mask[:-1])[: n_blocks * m].reshape(n_blocks, m).all(axis=1)
    A_blocks = A[: n_blocks * m].reshape(n_blocks, m, -1).sum(axis=1)[ok]
    b_blocks = b[: n_blocks * m].reshape(n_blocks, m).sum(axis=1)[ok]
    if A_blocks.shape[0] < 2 * len(fitted):
        raise EstimateUnavailable(
            f"the data hold {A_blocks.shape[0]} complete {BLOCK_MS} ms blocks; the linear estimate of "
            f"{len(fitted)} conductance(s) needs at least {2 * len(fitted)}"
        )
    g, *_ = np.linalg.lstsq(A_blocks, b_blocks, rcond=None)
    return {p: float(v) for p, v in zip(fitted, g, strict=True)}


def where_field(where: dict[str, tuple[str, str]], key: str) -> str | None:
    """The fitted field of channel `key` (`None` if its conductance is not fitted)."""
    for channel, field in where.values():
        if channel == key:
            return field
    return None


@eqx.filter_jit
def _regressors(model, protocol, V, dt, midpoints, where):
    """Each channel's current along the recording (fitted ones at unit conductance) and the stimulus at `midpoints`.

    One compiled program: evaluated op by op, the gates' rates, scans and currents compiled about fifty small
    programs, about 2 s before a fit's first step.
    """
    gates = _gates(model, V, dt)
    currents = {}
    for key, channel in zip(model.channel_order, model.ordered_channels(), strict=True):
        unit = channel
        field = where_field(where, key)
        if field is not None:
            unit = eqx.tree_at(operator.attrgetter(field), channel, jnp.ones_like(getattr(channel, field)))
        currents[key] = unit.current(V, gates)
    drive = jax.vmap(lambda t: model.stimulus_density(protocol, t))(midpoints)
    return currents, drive


def _gates(model, V, dt):
    """Gates driven by the measured potential: exact exponential relaxation with rates at each interval's mean V."""
    start = {}
    for channel in model.ordered_channels():
        start.update(channel.steady_state(V[0], model.celsius))
    rates = model.gate_rates(0.5 * (V[1:] + V[:-1]))

    def step(x, inputs):
        a, b, h = inputs
        total = a + b
        x_inf = a / total
        new = x_inf + (x - x_inf) * jnp.exp(-total * h)
        return new, new

    out = {}
    for name, (a, b) in rates.items():
        x0 = jnp.asarray(start[name], dtype=V.dtype)
        _, xs = jax.lax.scan(step, x0, (a, b, dt))
        out[name] = jnp.concatenate([x0[None], xs])
    return out
