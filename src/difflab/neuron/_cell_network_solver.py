r"""The step of a [`CellNetwork`][difflab.neuron.CellNetwork]: synapses, every population's cable step, spikes.

From $t_0$ to $t_1 = t_0 + h$:

1. **Synapses** over $[t_0, t_1)$, exactly (`AbstractSynapticNetwork.advance_synapses`): their conductances at
   $t_0$, their mean over the step and at $t_1$, with the spikes that arrive inside it at their exact times.
2. **Every population's predictor** (`cable_predict`, the Hines-ordered arrays batched over its cells), with the
   synapses' and gap junctions' conductances at $t_0$: the midpoint potentials $\hat V$ of all compartments.
3. **Every population's corrector** (`cable_correct`: gates, then the Crank–Nicolson update solved on each tree)
   with the synapses' exact mean over the step in place of Simpson's rule. NMDA's block takes its compartment's
   $\hat V$, and a gap junction its partner's $\hat V$ (each side implicit in its own potential, see
   `GapJunctions`), so that every population's tree is solved on its own and the step stays second order. The
   dense output's end slope takes the outside conductances at the predicted end potential.
4. **Spikes**: upward crossings of the threshold at every cell's detection compartment, timed on the step's
   cubic Hermite potential (`hermite_crossing`), whose error does not add up along chains of synapses as the
   linear interpolation's would.

A synaptic delay must be at least one step and a junction's splitting stable (`GapJunctions`); both are checked
when the solve starts, and a spike that would leave a full buffer before arriving stops the solve by name.
"""

from __future__ import annotations

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ..solvers.internal import materialise_at
from ._cable_solver import _REFRESH_STEPS, axial_term, cable_correct, cable_predict
from ._solver import AbstractVoltageStepSolver
from ._synaptic_network import record_crossings, refuse_lost_spikes, refuse_short_delays


def cell_network_step(net, protocol, t0, h, y0, V_prev, h_prev, axial0):
    """One step of the network; returns `(y1, err, dense, crossed, axial1)` (``axial1``: one per population)."""
    V0 = y0["V"]
    t1 = t0 + h
    # 1. synapses: conductances (µS, unblocked) at t0, their mean over the step, at t1; the new states
    if net.synapses:
        g0, g_mean, g_end, synapses1, plastic1 = materialise_at(
            net.advance_synapses(y0["synapses"], t0, t1, y0["spikes"], y0.get("plasticity")), t0
        )
    else:
        g0 = g_mean = g_end = synapses1 = plastic1 = None
    I = net.stimulus(protocol, t0 + h / 2, V0)
    offsets = net.offsets()
    populations = range(len(net.cells))

    def mine(x, p):  # population p's part of a flat array, (cells, compartments)
        lo, hi = offsets[p : p + 2]
        return x[..., lo:hi].reshape(*x.shape[:-1], net.counts[p], net.cells[p].morphology.n_segments)

    def flat(parts):
        parts = [x.reshape(*x.shape[:-2], -1) for x in parts]
        return jnp.concatenate(parts, axis=-1) if len(parts) > 1 else parts[0]

    def outside(g, V):  # synapses (blocks at V), gap junctions (partners at V) and the injected current
        G, GE = net.to_compartments(g, V, V0)
        Gg, GEg = net.gap_conductance(V, V0)
        return G + Gg, GE + GEg + I

    # 2. every population's predictor, with the outside conductances at t0
    start = outside(g0, V0)
    with shared_parameters():
        preds = [
            cable_predict(
                net.cells[p],
                None,
                t0,
                h,
                net.population_state(p, y0),
                mine(V_prev, p),
                h_prev,
                axial0[p],
                (mine(start[0], p), mine(start[1], p)),
            )
            for p in populations
        ]
    # 3. every population's corrector, with the outside conductances' mean (blocks and partners at the predicted
    # midpoint) and their end values (at the predicted end, for the dense output)
    V_mid = flat([pred.V_mid for pred in preds])
    V_end = flat([pred.V0 + h * (pred.f0 + pred.curv * h) for pred in preds])
    mean, end = outside(g_mean, V_mid), outside(g_end, V_end)
    parts, errs, k0s, k1s, axial1 = [], [], [], [], []
    with shared_parameters():
        for p in populations:
            y1p, errp, (_, _, k0, k1), ax1 = cable_correct(
                net.cells[p], t0, h, net.population_state(p, y0), preds[p],
                (mine(mean[0], p), mine(mean[1], p)), (mine(end[0], p), mine(end[1], p)),
            )  # fmt: skip
            parts.append(y1p)
            errs.append(errp)
            k0s.append(k0)
            k1s.append(k1)
            axial1.append(ax1)
    cells0 = net.cell_states(y0)
    y1 = net.flatten(parts, cells0)
    err = net.flatten(errs, {k: jnp.zeros_like(v) for k, v in cells0.items()})
    # 4. spikes at the detection sites
    sites = np.asarray(net.sites, dtype=int)
    k0, k1 = flat(k0s), flat(k1s)
    y1["spikes"], crossed = record_crossings(
        y0["spikes"], V0[..., sites], y1["V"][..., sites], net.threshold, t0, h, (k0[..., sites], k1[..., sites])
    )
    y1["synapses"] = y0["synapses"] if synapses1 is None else synapses1
    if plastic1 is not None:
        y1["plasticity"] = plastic1
    for key in ("spikes", "synapses", "plasticity"):
        if key in y1:
            err[key] = jnp.zeros_like(y1[key])
    return y1, err, (y0, y1, k0, k1), crossed, tuple(axial1)


def axial_terms(net, y) -> tuple:
    r"""Every population's axial term $s\,(A V)$ (µA/cm², ``(cells, compartments)``) in the flat state ``y``."""
    with shared_parameters():
        return tuple(axial_term(c, net.population_state(p, y)["V"]) for p, c in enumerate(net.cells))


def shared_parameters():
    """Rank promotion allowed: a population's shared parameters meet its cells' states by broadcasting.

    Parameters of shape ``(compartments,)`` meet states of shape ``(cells, compartments)`` deliberately (JAX may be
    set to refuse implicit promotion).
    """
    return jax.numpy_rank_promotion("allow")


class CellNetworkRushLarsenCN(AbstractVoltageStepSolver):
    """The cable step of every population with synapses, gap junctions and spike detection; for `CellNetwork`.

    Reads the network and the protocol from `args = (model, protocol)`. Its state holds each cell's longest
    outgoing delay (for the buffer check), the previous potentials and step (the predictor, and the partners'
    extrapolation), every population's axial term (as `CableRushLarsenCN` carries it) and a step count (below
    float64 the axial term is re-evaluated every few steps, as there).
    """

    def advance(self, model, protocol, t0, h, y0, V_prev, h_prev):
        axial0 = axial_terms(model, y0)
        return cell_network_step(model, protocol, t0, h, y0, V_prev, h_prev, axial0)[:3]

    def init(self, terms, t0, t1, y0, args):
        net = args[0]
        V0 = y0["V"]
        axial0 = axial_terms(net, y0)
        V0 = refuse_short_delays(net, V0, t1 - t0, "CellNetwork")
        rate = net.gap_rate()
        if rate is not None:
            V0 = eqx.error_if(
                V0, rate * (t1 - t0) > 1 + 1e-9,
                "CellNetwork: a gap junction is too strong for the step dt0 (1e5 g dt / (area cm) > 1 on one side), "
                "so its splitting would oscillate; pass a smaller dt0, or leave dt0 to the network's default",
            )  # fmt: skip
        reach = jax.lax.stop_gradient(net.longest_delays())
        return reach, V0, jnp.zeros((), V0.dtype), axial0, jnp.zeros((), jnp.int32)

    def step(self, terms, t0, t1, y0, args, solver_state, made_jump):
        net, protocol = args
        reach, V_prev, h_prev, axial0, count = solver_state
        # the step, and its start for the stimulus, in the state's dtype: a float64 state may run on float32 times
        # (the state is widened to the times' dtype, never narrowed, so this cast is exact)
        t0, h = jnp.asarray(t0, V_prev.dtype), jnp.asarray(t1 - t0, V_prev.dtype)
        h_prev = jnp.where(made_jump, jnp.zeros_like(h_prev), h_prev)
        y1, err, (ya, yb, k0, k1), crossed, axial1 = cell_network_step(net, protocol, t0, h, y0, V_prev, h_prev,
                                                                       axial0)  # fmt: skip
        y1["spikes"] = refuse_lost_spikes(net, y1["spikes"], y0["spikes"], crossed, reach, t1, "CellNetwork")
        if jnp.finfo(y1["V"].dtype).bits < 64:  # as `CableRushLarsenCN`: re-evaluate the axial terms
            count = (count + 1) % _REFRESH_STEPS
            axial1 = jax.lax.cond(
                count == 0,
                lambda: axial_terms(net, y1),
                lambda: axial1,
            )
        new_state = (reach, y0["V"], jnp.asarray(h, dtype=h_prev.dtype), axial1, count)
        return y1, err, dict(y0=ya, y1=yb, k0=k0, k1=k1), new_state, diffrax.RESULTS.successful
