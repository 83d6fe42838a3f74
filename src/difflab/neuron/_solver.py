r"""A second-order fixed-step scheme made for Hodgkin–Huxley-type cells.

Given the cell's structure (gates linear in themselves at fixed ``V``, currents linear in ``V`` at fixed
gates), one step from ``t₀`` to ``t₁ = t₀ + h`` is:

1. **Predictor.** ``V_{½}`` by a backward-Euler half step with the conductances at the old gates
   (first order, unconditionally stable; its O(h²) error enters the gates only at O(h³)).
2. **Gates (Rush–Larsen / exponential midpoint).** With the rates frozen at ``V_{½}``,
   ``x₁ = x∞ + (x₀ − x∞) e^{−h(α+β)}``, ``x∞ = α/(α+β)``: exact for frozen rates, so stiff gates
   stay in [0, 1] at any step.
3. **Voltage (Crank–Nicolson).** With ``G`` and ``Σ G_c E_c`` at the midpoint gates ``(x₀ + x₁)/2``
   and the input at ``t₀ + h/2``:
   ``C (V₁ − V₀)/h = I − G (V₀ + V₁)/2 + Σ G_c E_c``, solved in closed form.

Every stage is second order, so the scheme is: the global error falls as h² (tests check the slope).
A step costs one rate evaluation (two exponentials for ``hh``, see [`hh_rates`][difflab.neuron.hh_rates]),
one exponential per gate and two divisions. The cell is read from ``args[0]`` (as
[`difflab.simulate`][] passes ``args=(model, protocol)``); any [`HodgkinHuxley`][difflab.neuron.HodgkinHuxley]
with any channels works.

The step also returns an error estimate (the difference to the first-order step that uses the old
gates for the voltage), so the scheme runs under ``diffrax.PIDController`` as well.

References: Rush & Larsen, IEEE Trans. Biomed. Eng. 25:389 (1978); Hines, "Efficient computation of
branched nerve equations" (1984) for Crank–Nicolson in NEURON.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import diffrax
import jax.numpy as jnp
from diffrax import AbstractSolver, AbstractTerm, LocalLinearInterpolation

_State = dict


def rush_larsen_cn_step(model, protocol, t0, h, y0: dict) -> tuple[dict, dict]:
    """One step of the scheme: ``(y1, error estimate)``; see the module docstring."""
    C = model.C
    V0 = y0["V"]
    I = jnp.zeros_like(V0) if protocol is None else protocol(t0 + h / 2)
    G0, GE0 = model.conductances(y0)
    # 1. predictor: backward Euler over h/2 with the old conductances
    c_half = 2 * C / h
    V_half = (c_half * V0 + I + GE0) / (c_half + G0)
    # 2. gates: exponential update with rates frozen at the midpoint potential
    y1 = {}
    mid = {}
    for name, (a, b) in model.gate_rates(V_half).items():
        x0 = y0[name]
        s = a + b
        x_inf = a / s
        x1 = x_inf + (x0 - x_inf) * jnp.exp(-h * s)
        y1[name] = x1
        mid[name] = (x0 + x1) / 2
    # 3. voltage: Crank–Nicolson with midpoint conductances
    G, GE = model.conductances(mid)
    c = C / h
    drive = I + GE
    V1 = ((c - G / 2) * V0 + drive) / (c + G / 2)
    y1["V"] = V1
    # Embedded first-order estimate: the same CN update with the old conductances.
    V1_low = ((c - G0 / 2) * V0 + I + GE0) / (c + G0 / 2)
    err = {k: jnp.zeros_like(v) for k, v in y1.items()}
    err["V"] = V1 - V1_low
    return y1, err


class RushLarsenCN(AbstractSolver):
    """Exponential (Rush–Larsen) gates + Crank–Nicolson voltage, second order, for HH-type cells.

    Use with ``diffrax.ConstantStepSize`` (the cell's default) or an adaptive
    controller. The vector field term is not used: the step reads the cell and the protocol from
    ``args = (model, protocol)``, exactly what [`difflab.simulate`][] passes.
    """

    term_structure: ClassVar = AbstractTerm
    interpolation_cls: ClassVar[Callable[..., LocalLinearInterpolation]] = LocalLinearInterpolation

    def order(self, terms):
        return 2

    def init(self, terms, t0, t1, y0, args):
        return None

    def step(self, terms, t0, t1, y0, args, solver_state, made_jump):
        del solver_state, made_jump
        model, protocol = args
        y1, err = rush_larsen_cn_step(model, protocol, t0, t1 - t0, y0)
        dense_info = dict(y0=y0, y1=y1)
        return y1, err, dense_info, None, diffrax.RESULTS.successful

    def func(self, terms, t0, y0, args):
        return terms.vf(t0, y0, args)
