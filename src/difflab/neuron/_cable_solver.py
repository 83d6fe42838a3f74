r"""The cable solver: Rush–Larsen gates and a Crank–Nicolson cable step solved on the tree (Hines elimination).

One step from $t_0$ to $t_1 = t_0 + h$ of a [`Cell`][difflab.neuron.Cell] follows
[`RushLarsenCN`][difflab.neuron.RushLarsenCN] compartment by compartment, with the axial currents taken
implicitly:

1. **Predictor.** $\hat V = V_0 + \tfrac h2 (f_0 + c\,h)$ at the midpoint, with $f_0 = dV/dt(t_0)$ (axial
   currents included) and the curvature $c$ from the previous potential (0 on the first step and after a jump).
2. **Gates (Rush–Larsen)** with rates frozen at $\hat V$, at the half step and at the end; concentrations
   (`cai`) by the point cell's exponential midpoint update (`advance_concentrations`, corrected with the solved
   potential by `correct_concentrations`), in the compartments whose region has the mechanism. Each channel is
   computed on its own compartments only (`SitedMembrane`): on the L5PC, 2677 of the 12 582 gate updates that
   a mask over all compartments computes, 230 → 128 µs per step (one cell, 2 CPU cores). The gates, their
   conductances and the ion currents stay at the channels' sites through the step, and are summed on each
   set of sites before one spread per set: a 100-member L5PC ensemble's step went from 95–120 to 67–74 µs
   per member (float64, alternated runs), where every channel's Simpson terms had been spread over all compartments.
   Under fixed steps the solver's state holds each gate at its sites between steps too (`state_layout`,
   `CompactGates`), so that no gate is read out of, or written back into, an array over all compartments:
   66 → 53 µs per member and step on the same ensemble; what a solve saves is the model's state.
3. **Voltage (Crank–Nicolson)** with the channel conductances averaged by Simpson's rule and the stimulus
   at $t_0 + h/2$. With $\delta = V_1 - V_0$, every compartment $i$ solves

   $$\Big(\frac{c_m}{h} + \frac{G_i}{2}\Big)\delta_i + \frac{s_i}{2}\sum_j g_{ij}(\delta_i - \delta_j)
     = I_i + GE_i - G_i V_{0,i} + s_i \sum_j g_{ij}(V_{0,j} - V_{0,i}), \qquad s_i = 10^5 / A_i.$$

   The point cell's exponential membrane update (`membrane_coefficient`) is not used here: beside the
   Crank–Nicolson axial terms it weights a stiff membrane more than its axial neighbours, and against NEURON it
   lost accuracy on stiff cells (a soma with Hay's channels and calcium, 0.025 ms: spikes 0.008 → 0.052 ms,
   and at 0.005 ms V 0.29 → 2.1 mV on an upstroke; the L5PC's Step1, five spikes at 0.025 ms: 1.5 → 3.6 ms),
   while on the squid-axon cells it gained little (DA1 lPN 0.0084 → 0.0055 ms).

   and every zero-area node keeps its balance at the end of the step, $\sum_j g_{ij}(V_{1,j} - V_{1,i}) = 0$.
   The matrix has the tree's sparsity: the elimination runs from the deepest nodes to the root, one level
   at a time (all nodes of a level at once), and back (Hines 1984; `_tree.NodeTree.solve`). Its cost is
   linear in the nodes.

**No axial currents are evaluated in a step.** The explicit term $a_0 = s\,A V_0$ (with
$(A V)_i = \sum_j g_{ij}(V_i - V_j)$) comes from the solver state, and the solve's own rows give it at the end
of the step: $\tfrac{s}{2} A\delta = \text{rhs} - (\tfrac{c_m}{h} + \tfrac G2)\,\delta$, so
$a_1 = a_0 + 2\,(\text{rhs} - (\tfrac{c_m}{h} + \tfrac G2)\,\delta)$, exact to rounding (the zero-area nodes'
potentials are linear in their neighbours'). Only the first step computes $a_0$ from the tree. Evaluating
the currents from the node potentials twice per step (for $f_0$ and the dense output's $f_1$) had cost a
third of the step. Below float64 the update's difference cancels tens of ulp per step, a random walk away
from $s\,A V$ (the 113-compartment benchmark cell's float32 spikes drifted 0.002–0.005 ms from float64 over
100 ms), so there the term is evaluated from the potentials every `_REFRESH_STEPS` = 4 steps (0.0002–0.0004 ms; +10 %
per float32 step, where every step's evaluation cost +47 %).

Forward-mode sensitivities (what calibration uses) write the tangents of the averaged conductances to memory
once (`materialise_tangent`); left to itself XLA recomputed the whole gating chain's tangents in each of their
consumers (one cell, six tangents: 0.36 → 0.26 s for 100 ms). The plain solve is unchanged.

Second order in $h$ (the tests check the slope); use it with fixed steps (`diffrax.ConstantStepSize`, the
cell's default: 0.025 ms, shorter for stiff cells, see `Cell.default_dt0`). The error estimate (corrector minus
predictor) also lets an adaptive controller run it.

References: Hines, Int. J. Biomed. Comput. 15:69 (1984); Rush & Larsen, IEEE Trans. Biomed. Eng. 25:389 (1978).
"""

from __future__ import annotations

from typing import NamedTuple

import diffrax
import jax
import jax.numpy as jnp
from jaxtyping import Array

from ..solvers.internal import materialise, materialise_tangent
from ._compact_gates import compact_gates
from ._sited_membrane import SitedMembrane
from ._solver import (
    AbstractVoltageStepSolver,
    _relaxation_factor,
    _safe_div,
    advance_concentrations,
    correct_concentrations,
    crank_nicolson_coefficient,
    predict_concentrations,
)

_DENSITY = 1e5
#: below float64, steps between evaluations of the axial term from the potentials
_REFRESH_STEPS = 4


def hines_solve(morph, diag, upper, lower, rhs):
    r"""Solve the tree system of `morph`; arrays `(..., n_nodes)`.

    Row $i$ has `diag[i]` on $x_i$ and `upper[i]` on its parent's $x_p$; row $p$ has `lower[i]` on $x_i$ for each
    child $i$. See `NodeTree.solve`.
    """
    return morph.tree.solve(diag, upper, lower, rhs)


class Prediction(NamedTuple):
    """What a step's predictor leaves for its corrector (see `cable_predict`)."""

    V0: Array
    f0: Array  # dV/dt at t0 (mV/ms), outside currents included
    curv: Array  # the curvature of V from the previous step (0 on the first step and after a jump)
    V_mid: Array  # the predicted midpoint potential (mV)
    I: Array  # the injected current density at the midpoint (µA/cm²)
    G0: Array  # the channels' conductance at t0 (mS/cm²)
    GE0: Array
    axial0: Array
    g: Array  # axial conductances (µS)
    cm: Array
    sited: SitedMembrane  # the channels at their compartments, for the corrector too
    gates0: dict  # every gate at t0 at its channel's sites
    g0: list  # every channel's conductance at t0 at its sites (mS/cm²)
    E0: list  # and its reversal potential (mV)


def cable_step(model, protocol, t0, h, y0, V_prev, h_prev, axial0=None):
    r"""One step; returns `(y1, error estimate, dense info, axial term at the end)`. See the module docstring.

    `axial0` is $s\,(A V_0)$ on the compartments (µA/cm²), as the previous step returned it; `None` computes it.
    """
    pred = cable_predict(model, protocol, t0, h, y0, V_prev, h_prev, axial0)
    return cable_correct(model, t0, h, y0, pred)


def cable_predict(model, protocol, t0, h, y0, V_prev, h_prev, axial0=None, start=None) -> Prediction:
    r"""The step's predictor: $f_0$, the curvature and the midpoint potential $\hat V$ (step 1 of the module).

    `start` adds conductances from outside the cell at $t_0$ (a network's synapses and gap junctions): `(G, GE)`
    per compartment (mS/cm², µA/cm²); `None` adds nothing.
    """
    V0 = y0["V"]
    g = model.axial_conductance()
    cm = model.per_section("cm")[..., model.morphology.seg_section]
    I = model.stimulus_density(protocol, t0 + h / 2, V0)
    if axial0 is None:
        axial0 = axial_term(model, V0, g)
    sited = SitedMembrane(model)  # each channel where it is (_sited_membrane)
    gates0 = sited.gates_at_sites(y0)
    g0, E0 = sited.local_conductances(gates0), sited.reversals(y0)
    G0, GE0 = sited.totals(g0, E0, V0)
    G_in, GE_in = (G0, GE0) if start is None else (G0 + start[0], GE0 + start[1])  # with the outside ones
    f0 = (I + GE_in - G_in * V0 - axial0) / cm
    curv = _safe_div(V_prev - V0 + f0 * h_prev, h_prev * h_prev, h_prev > 0)
    V_mid = V0 + (h / 2) * (f0 + curv * h)
    # written once, as in the point cell's step: otherwise XLA recomputes V_mid, and under forward-mode
    # differentiation its tangents, in each kernel of the rates and gates (V_mid = V0 when h = 0)
    V_mid = materialise(V_mid, V0, h)
    return Prediction(V0, f0, curv, V_mid, I, G0, GE0, axial0, g, cm, sited, gates0, g0, E0)


def cable_correct(model, t0, h, y0, pred: Prediction, mean=None, end=None):
    r"""The step's gates and Crank–Nicolson voltage update from its predictor (steps 2 and 3 of the module).

    Returns `(y1, error estimate, dense info, axial term at the end)`. `mean` and `end` add conductances from
    outside the cell, `(G, GE)` per compartment: their mean over the step (taken in place of the channels'
    Simpson average, so exact for a synaptic conductance that jumps inside the step) and their values at $t_1$
    (for the dense output); `None` adds nothing.

    The gates, conductances and currents stay at each channel's sites (`SitedMembrane`) until their sums are
    spread over the compartments; the gates are written back into the full arrays once, for `y1`.
    """
    morph = model.morphology
    S = morph.n_segments
    V0, f0, curv, V_mid, I, G0, GE0, axial0, g, cm, sited, gates0, g0, E0 = pred
    s = jnp.asarray(_DENSITY / morph.area[:S], V0.dtype)
    mechanisms, celsius = sited.mechanisms, sited.celsius
    # 2. gates (the concentrations that channels read predicted at the midpoint, as in the point cell's step)
    if mechanisms:
        c_pred = predict_concentrations(mechanisms, y0, sited.local_ion_currents(V0, g0, E0), h)
    else:
        c_pred = {}
    half, one = {}, {}  # the gates at the half step and the end, at their sites
    for (_, ch, sites), V_at in zip(sited.channels, sited.take_per_channel(V_mid), strict=True):
        reads = {k: sites.take(c_pred[k]) for k in ch.reads}
        for name, (a, b) in ch.rates(V_at, celsius, **reads).items():
            x_inf = a / (a + b)
            decay = _relaxation_factor((h / 2) * (a + b))
            x0 = gates0[name]
            half[name] = x_inf + (x0 - x_inf) * decay
            one[name] = x_inf + (x0 - x_inf) * (decay * decay)
    y1 = sited.put_gates(y0, one)
    c_half: dict[str, Array] = {}
    g_half = sited.local_conductances(half)
    if mechanisms:  # exponential midpoint update of the concentrations (shared with the point cell)
        I_mid = sited.local_ion_currents(V_mid, g_half, sited.reversals({**y0, **c_pred}))
        advance_concentrations(mechanisms, y0, I_mid, c_half, y1, h)
    E_half = sited.reversals({**y0, **c_half})
    g1, E1 = sited.local_conductances(one), sited.reversals(y1)
    # Simpson's rule on each channel at its sites, then one spread per set of sites
    g_mean = [(a + 4 * b + c) / 6 for a, b, c in zip(g0, g_half, g1, strict=True)]
    gE_mean = [(a * Ea + 4 * b * Eb + c * Ec) / 6
               for a, Ea, b, Eb, c, Ec in zip(g0, E0, g_half, E_half, g1, E1, strict=True)]  # fmt: skip
    G, GE = sited.spread_sum(g_mean, V0), sited.spread_sum(gE_mean, V0)
    G1, GE1 = sited.totals(g1, E1, V0)
    if mean is not None:  # the outside conductances enter with their exact mean, not Simpson's rule
        G, GE = G + mean[0], GE + mean[1]
    # forward-mode sensitivities: XLA would recompute the tangents of G and GE in each of their consumers
    G, GE = materialise_tangent((G, GE), (G0, GE0), h)
    # 3. voltage: δ = V1 − V0 on compartments, balance at the end of the step on zero-area nodes
    membrane = crank_nicolson_coefficient(cm, G, h)
    rhs = I + GE - G * V0 - axial0
    delta = hines_solve(morph, *_cable_matrix(morph, g, s / 2, membrane, rhs))[..., :S]
    V1 = V0 + delta
    y1["V"] = V1
    if mechanisms:  # the influx of the solved potential, as in the point cell's step
        correct_concentrations(mechanisms, y0, sited.local_ion_currents((V0 + V1) / 2, g_half, E_half), y1, h)
    # the axial term at the end from the solve's own rows: (s/2) A δ = rhs − membrane·δ, and A V1 = A V0 + A δ
    axial1 = axial0 + 2 * (rhs - membrane * delta)
    err = {k: jnp.zeros_like(v) for k, v in y1.items()}
    err["V"] = V1 - (V0 + h * (f0 + curv * h))
    if end is not None:
        G1, GE1 = G1 + end[0], GE1 + end[1]
    f1 = (I + GE1 - G1 * V1 - axial1) / cm
    return y1, err, (y0, y1, h * f0, h * f1), axial1


def axial_term(model, V, g=None):
    r"""$s\,(A V)$ on the compartments (µA/cm²): minus the axial current density into each compartment."""
    morph = model.morphology
    g = model.axial_conductance() if g is None else g
    s = jnp.asarray(_DENSITY / morph.area[: morph.n_segments], V.dtype)
    return -s * model.axial_current(model.node_potentials(V, g), g)[..., : morph.n_segments]


def _cable_matrix(morph, g, w_segments, membrane, rhs_membrane):
    r"""Diagonal, parent and child coefficients and right-hand side of the step's tree system.

    Compartment rows: $\text{membrane}_i x_i + w_i \sum_j g_{ij} (x_i - x_j) = \text{rhs}_i$; zero-area rows:
    $\sum_j g_{ij}(x_i - x_j) = 0$.
    """
    S, N = morph.n_segments, morph.n_nodes
    batch = jnp.broadcast_shapes(g.shape[:-1], membrane.shape[:-1], rhs_membrane.shape[:-1])
    ones = jnp.ones((*batch, N - S), g.dtype)
    # row weight: w on compartments (s/2 for Crank–Nicolson), 1 on zero-area nodes (the balance itself)
    w = jnp.concatenate([jnp.broadcast_to(w_segments, (*batch, S)), ones], axis=-1)
    par = morph.tree.parent_or_self
    g_sum = g + morph.tree.children(g)  # own edge + edges to the children (root edge is 0)
    diag = jnp.concatenate([jnp.broadcast_to(membrane, (*batch, S)), 0 * ones], axis=-1) + w * g_sum
    upper = -w * g
    lower = -w[..., par] * g
    rhs = jnp.concatenate([jnp.broadcast_to(rhs_membrane, (*batch, S)), 0 * ones], axis=-1)
    return diag, upper, lower, rhs


class CableRushLarsenCN(AbstractVoltageStepSolver):
    """Rush–Larsen gates + Crank–Nicolson cable step on the tree (Hines); order 2. For [`Cell`][difflab.neuron.Cell].

    Reads the cell and the protocol from `args = (model, protocol)` as [`difflab.simulate`][] passes them;
    the solver state holds the previous potentials and step (for the predictor), the axial term at the
    current state, which each step returns from its own solve (so a step never evaluates axial currents in
    float64), and a step count for the float32 re-evaluation (module docstring).
    """

    def advance(self, model, protocol, t0, h, y0, V_prev, h_prev):
        return cable_step(model, protocol, t0, h, y0, V_prev, h_prev)[:3]

    def state_layout(self, model, y0):
        """Each gate on its channel's compartments only, between fixed steps (`CompactGates`)."""
        return compact_gates(model, y0)

    def init(self, terms, t0, t1, y0, args):
        V_prev, h_prev = super().init(terms, t0, t1, y0, args)
        return V_prev, h_prev, axial_term(args[0], y0["V"]), jnp.zeros((), jnp.int32)

    def step(self, terms, t0, t1, y0, args, solver_state, made_jump):
        model, protocol = args
        V_prev, h_prev, axial0, count = solver_state
        # the step, and its start for the stimulus, in the state's dtype: a float64 state may run on float32 times
        # (the state is widened to the times' dtype, never narrowed, so this cast is exact)
        t0, h = jnp.asarray(t0, V_prev.dtype), jnp.asarray(t1 - t0, V_prev.dtype)
        h_prev = jnp.where(made_jump, jnp.zeros_like(h_prev), h_prev)
        y1, err, (ya, yb, k0, k1), axial1 = cable_step(model, protocol, t0, h, y0, V_prev, h_prev, axial0)
        if jnp.finfo(y1["V"].dtype).bits < 64:
            # the update from the solve's rows cancels digits (a random walk of tens of ulp per step); below
            # float64 the term is re-evaluated from the potentials every few steps
            count = (count + 1) % _REFRESH_STEPS
            axial1 = jax.lax.cond(count == 0, lambda: axial_term(model, y1["V"]), lambda: axial1)
        new_state = (y0["V"], jnp.asarray(h, dtype=h_prev.dtype), axial1, count)
        return y1, err, dict(y0=ya, y1=yb, k0=k0, k1=k1), new_state, diffrax.RESULTS.successful
