r"""The cable solver: Rush–Larsen gates and a Crank–Nicolson cable step solved on the tree (Hines elimination).

One step from $t_0$ to $t_1 = t_0 + h$ of a [`Cell`][difflab.neuron.Cell] follows
[`RushLarsenCN`][difflab.neuron.RushLarsenCN] compartment by compartment, with the axial currents taken
implicitly:

1. **Predictor.** $\hat V = V_0 + \tfrac h2 (f_0 + c\,h)$ at the midpoint, with $f_0 = dV/dt(t_0)$ (axial
   currents included) and the curvature $c$ from the previous potential (0 on the first step and after a jump).
2. **Gates (Rush–Larsen)** with rates frozen at $\hat V$, at the half step and at the end.
3. **Voltage (Crank–Nicolson)** with the channel conductances averaged by Simpson's rule and the stimulus
   at $t_0 + h/2$. With $\delta = V_1 - V_0$, every compartment $i$ solves

   $$\Big(\frac{c_m}{h} + \frac{G_i}{2}\Big)\delta_i + \frac{s_i}{2}\sum_j g_{ij}(\delta_i - \delta_j)
     = I_i + GE_i - G_i V_{0,i} + s_i \sum_j g_{ij}(V_{0,j} - V_{0,i}), \qquad s_i = 10^5 / A_i,$$

   and every zero-area node keeps its balance at the end of the step, $\sum_j g_{ij}(V_{1,j} - V_{1,i}) = 0$.
   The matrix has the tree's sparsity: the elimination runs from the deepest nodes to the root, one level
   at a time (all nodes of a level at once), and back (Hines 1984). Its cost is linear in the nodes.

Second order in $h$ (the tests check the slope); use it with fixed steps (`diffrax.ConstantStepSize`, the
cell's default, 0.025 ms). The error estimate (corrector minus predictor) also lets an adaptive controller run it.

References: Hines, Int. J. Biomed. Comput. 15:69 (1984); Rush & Larsen, IEEE Trans. Biomed. Eng. 25:389 (1978).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ._solver import AbstractVoltageStepSolver, _relaxation_factor, _safe_div

_DENSITY = 1e5


def _conductances(channels, gates):
    G = GE = 0.0
    for _, ch, mask in channels:
        g = mask * ch.conductance(gates)
        G, GE = G + g, GE + g * ch.E
    return G, GE


def hines_solve(morph, diag, upper, lower, rhs):
    r"""Solve the tree system.

    Row $i$ has `diag[i]` on $\delta_i$, `upper[i]` on its parent's $\delta_p$; row $p$ has `lower[i]` on
    $\delta_i$ for each child $i$. Arrays `(..., n_nodes)`.

    One `lax.scan` over the levels (padded to equal width with a scratch node whose row is the identity), so
    the compiled size does not grow with the tree's depth.
    """
    nodes, parents = morph.level_table
    batch = jnp.broadcast_shapes(diag.shape[:-1], upper.shape[:-1], lower.shape[:-1], rhs.shape[:-1])

    def padded(x, value):
        x = jnp.broadcast_to(x, (*batch, x.shape[-1]))
        return jnp.concatenate([x, jnp.full((*batch, 1), value, x.dtype)], axis=-1)

    D, U, L, R = padded(diag, 1.0), padded(upper, 0.0), padded(lower, 0.0), padded(rhs, 0.0)

    def eliminate(carry, level):
        D, R = carry
        idx, par = level
        f = L[..., idx] / D[..., idx]
        return (D.at[..., par].add(-f * U[..., idx]), R.at[..., par].add(-f * R[..., idx])), None

    (D, R), _ = jax.lax.scan(eliminate, (D, R), (nodes[::-1], parents[::-1]))
    root = morph.root
    x = jnp.zeros_like(R).at[..., root].set(R[..., root] / D[..., root])

    def substitute(x, level):
        idx, par = level
        return x.at[..., idx].set((R[..., idx] - U[..., idx] * x[..., par]) / D[..., idx]), None

    x, _ = jax.lax.scan(substitute, x, (nodes, parents))
    return x[..., :-1]


def cable_step(model, protocol, t0, h, y0, V_prev, h_prev):
    """One step; returns `(y1, error estimate, dense info)`. See the module docstring."""
    morph = model.morphology
    S = morph.n_segments
    V0 = y0["V"]
    s = jnp.asarray(_DENSITY / morph.area[:S], V0.dtype)
    g = model.axial_conductance()
    cm = model.per_section("cm")[..., morph.seg_section]
    channels = model.segment_channels()
    celsius = jnp.asarray(model.celsius)[..., None]
    I = model.stimulus_density(protocol, t0 + h / 2, V0)
    axial0 = model.axial_current(model.node_potentials(V0, g), g)
    G0, GE0 = _conductances(channels, y0)
    f0 = (I + GE0 - G0 * V0 + s * axial0[..., :S]) / cm
    # 1. predictor
    curv = _safe_div(V_prev - V0 + f0 * h_prev, h_prev * h_prev, h_prev > 0)
    V_mid = V0 + (h / 2) * (f0 + curv * h)
    # 2. gates
    y1, y_half = {}, {}
    for _, ch, _ in channels:
        for name, (a, b) in ch.rates(V_mid, celsius).items():
            x_inf = a / (a + b)
            decay = _relaxation_factor((h / 2) * (a + b))
            y_half[name] = x_inf + (y0[name] - x_inf) * decay
            y1[name] = x_inf + (y0[name] - x_inf) * (decay * decay)
    G1, GE1 = _conductances(channels, y1)
    Gh, GEh = _conductances(channels, y_half)
    G, GE = (G0 + 4 * Gh + G1) / 6, (GE0 + 4 * GEh + GE1) / 6
    # 3. voltage: Crank–Nicolson on compartments, balance at the end of the step on zero-area nodes
    delta = hines_solve(morph, *_cable_matrix(morph, g, s, cm / h + G / 2, I + GE - G * V0, axial0))
    V1 = V0 + delta[..., :S]
    y1["V"] = V1
    err = {k: jnp.zeros_like(v) for k, v in y1.items()}
    err["V"] = V1 - (V0 + h * (f0 + curv * h))
    axial1 = model.axial_current(model.node_potentials(V1, g), g)
    f1 = (I + GE1 - G1 * V1 + s * axial1[..., :S]) / cm
    return y1, err, (y0, y1, h * f0, h * f1)


def _cable_matrix(morph, g, s, diag_membrane, rhs_membrane, axial0):
    """Diagonal, parent and child coefficients and right-hand side of the step's tree system."""
    S, N = morph.n_segments, morph.n_nodes
    batch = jnp.broadcast_shapes(g.shape[:-1], diag_membrane.shape[:-1], axial0.shape[:-1])
    ones = jnp.ones((*batch, N - S), g.dtype)
    # row weight: s/2 on compartments (Crank–Nicolson), 1 on zero-area nodes (the balance itself)
    w = jnp.concatenate([jnp.broadcast_to(s / 2, (*batch, S)), ones], axis=-1)
    par = np.where(morph.parent >= 0, morph.parent, morph.root)
    g_sum = g + jnp.zeros_like(g).at[..., par].add(g)  # own edge + edges to the children (root edge is 0)
    membrane = jnp.concatenate([jnp.broadcast_to(diag_membrane, (*batch, S)), 0 * ones], axis=-1)
    diag = membrane + w * g_sum
    upper = -w * g
    lower = -w[..., par] * g
    rhs = jnp.concatenate([jnp.broadcast_to(rhs_membrane, (*batch, S)), 0 * ones], axis=-1)
    rhs = rhs + jnp.concatenate([jnp.broadcast_to(s, (*batch, S)), ones], axis=-1) * axial0
    return diag, upper, lower, rhs


class CableRushLarsenCN(AbstractVoltageStepSolver):
    """Rush–Larsen gates + Crank–Nicolson cable step on the tree (Hines); order 2. For [`Cell`][difflab.neuron.Cell].

    Reads the cell and the protocol from `args = (model, protocol)` as [`difflab.simulate`][] passes them;
    the solver state holds the previous potentials and step (for the predictor).
    """

    def advance(self, model, protocol, t0, h, y0, V_prev, h_prev):
        return cable_step(model, protocol, t0, h, y0, V_prev, h_prev)
