r"""A second-order fixed-step scheme made for Hodgkin–Huxley-type cells.

At fixed `V` the gates are linear in themselves, and at fixed gates the currents are linear in
`V`. One step from `t₀` to `t₁ = t₀ + h` uses that structure:

1. **Predictor.** `V̂₁ = V₀ + h f₀ + c h²` from the quadratic through `(t₋₁, V₋₁)` and
   `(t₀, V₀)` with slope `f₀ = dV/dt(t₀)` (the previous potential is kept in the solver state;
   for equal steps `V̂₁ = V₋₁ + 2h f₀`). After a jump or on the first step, `c = 0`.
2. **Gates (Rush–Larsen).** With the rates frozen at the trapezoidal potential
   `V_m = (V₀ + V̂₁)/2`: `x(t₀ + τ) = x∞ + (x₀ − x∞) e^{−τ(α+β)}`, `x∞ = α/(α+β)`, taken
   at the half step (`τ = h/2`) and at the end (`τ = h`; the square of the half-step factor,
   so one relaxation factor per gate). The factor `e^{−z}` is evaluated as `1/T₄(z)` (its Taylor
   polynomial of degree 4; its relative error `z⁵/120` moves spike times by < 1e-4 ms), which
   like the exponential lies in (0, 1] and tends to 0, so stiff gates stay in [0, 1] at any step.
3. **Voltage (exponential).** With `G = Σ G_c` and `GE = Σ G_c E_c` averaged over the step
   by Simpson's rule, `G = (G(x₀) + 4 G(x_{½}) + G(x₁))/6` (likewise `GE`), and the input at
   `t₀ + h/2`, `C dV/dt = I + GE − G V` is solved exactly: `V₁ = V∞ + (V₀ − V∞) e^{−z}`,
   `V∞ = (I + GE)/G`, `z = G h / C`, written `V₁ = V₀ + (I + GE − G V₀) h φ₁(z) / C` with
   `φ₁(z) = (1 − e^{−z})/z` (see [`membrane_coefficient`][difflab.neuron._solver.membrane_coefficient]; no
   division by `G`, smooth at `G = 0`). For small `z` this is Crank–Nicolson up to `O(h³)` per step; for large
   `z` it is L-stable, where Crank–Nicolson's factor `(1 − z/2)/(1 + z/2)` tends to −1 and `V` rings about the
   sodium equilibrium. An L5PC soma (NaTs2_t 984 mS/cm², `z` ≈ 19 at `h = 5/128` ms) shows it: spike-time
   error against NEURON 0.40 → 0.094 ms at `h = 5/256`, 0.044 → 0.013 ms at 5/512 ms; the squid axon's
   7 spikes 0.017 → 0.012 ms at the default 5/64 ms and 0.065 → 0.014 ms at 0.1 ms (docs/hh_convergence.md).
   The half-step conductance costs a few multiplications; against the trapezoidal average of the end
   conductances it cut the spike-time drift of the Crank–Nicolson update from 0.042 to 0.010 ms at
   `h = 10/136` ms.
4. **Concentrations** (a cell with a calcium mechanism): updated exactly for their ion current frozen at the
   step's middle, first with the predicted potential (the end value feeds the Nernst potential of step 3)
   and again, after step 3, with the trapezoidal potential `(V₀ + V₁)/2`.

The scheme is second order (the tests check the slope). At the default `h = 5/64` ms the seven
spikes of the 10 µA/cm² squid-axon step are within 0.013 ms of NEURON's converged CVODE solution
(docs/hh_convergence.md). A step costs one rate evaluation (two
exponentials for `hh`, see [`hh_rates`][difflab.neuron.hh_rates]), two divisions per gate, three
conductance evaluations and four divisions for `V`. Dense output (values between steps) is a cubic
Hermite polynomial for `V` and linear for the gates (so saved gates stay in [0, 1]).

The cell is read from `args[0]` (as [`difflab.simulate`][] passes `args=(model, protocol)`);
any [`HodgkinHuxley`][difflab.neuron.HodgkinHuxley] with any ohmic channels works. The step
returns an error estimate (against the first-order step that keeps the old conductances), so it
also runs under `diffrax.PIDController`.

References: Rush & Larsen, IEEE Trans. Biomed. Eng. 25:389 (1978); Hines, Int. J. Biomed.
Comput. 15:69 (1984) for Crank–Nicolson in NEURON; Hochbruck & Ostermann, Acta Numerica 19:209 (2010) for
exponential integrators and φ₁.
"""

from __future__ import annotations

import abc
from typing import ClassVar

import diffrax
import jax.numpy as jnp
from diffrax import AbstractLocalInterpolation, AbstractSolver, AbstractTerm
from jaxtyping import Array

from ..solvers.internal import materialise
from ._sites import Sites


def _relaxation_factor(z):
    r"""`1 / T₄(z)` with `T₄(z) = 1 + z + z²/2 + z³/6 + z⁴/24`: the gates' `e^{−z}` for `z ≥ 0`.

    Relative error `z⁵/120` for small `z` (3e-6 at `z = 0.2`, 3e-4 at 0.5). Like `e^{−z}` it lies in
    (0, 1], falls monotonically and tends to 0 (stiff gates relax to `x∞` at any step), so gates stay
    in [0, 1]. Against `jnp.exp` in the step it changes spike times by at most 1e-4 ms at every step
    from 0.025 to 0.1 ms (docs/hh_convergence.md) and makes a float64 ensemble step about 30 % cheaper
    (float32: 14 %). XLA's float64 `exp` is a long polynomial (an accurate vectorised one of degree 11
    was as slow), and inside the fused step kernels it cost a third of the step.
    """
    return 1 / (1 + z * (1 + z * (1 / 2 + z * (1 / 6 + z / 24))))


def _phi1(z):
    r"""`φ₁(z) = (1 − e^{−z})/z` for `z ≥ 0`, with `e^{−z}` as `1/T₄(z)` (see `_relaxation_factor`).

    `(1 − 1/T₄(z))/z = (1 + z/2 + z²/6 + z³/24)/T₄(z)`: no cancellation at `z → 0` (`φ₁(0) = 1`, smooth, so
    gradients need no guard) and `φ₁(z) → 1/z` for large `z`, as the exact function. Relative error below
    `z⁴/120` for small `z`.
    """
    return (1 + z * (1 / 2 + z * (1 / 6 + z / 24))) / (1 + z * (1 + z * (1 / 2 + z * (1 / 6 + z / 24))))


def membrane_coefficient(C, G, h):
    r"""`C / (h φ₁(G h / C))` (mS/cm²): the exponential update of `C dV/dt = I + GE − G V` as one division.

    With `G`, `GE` and `I` frozen over the step the exact solution is `V₁ = V∞ + (V₀ − V∞) e^{−Gh/C}`,
    `V∞ = (I + GE)/G`, i.e. `V₁ = V₀ + (I + GE − G V₀)/m` with `m` this coefficient. For small `z = Gh/C`,
    `m = C/h + G/2 + G z/12 + …`: Crank–Nicolson's `C/h + G/2` up to a term that changes a step by `O(h³)`,
    so the update stays second order. For large `z`, `m → G`: `V₁ → V∞` (L-stable), where Crank–Nicolson's
    amplification factor `(1 − z/2)/(1 + z/2)` tends to −1 and `V` rings about `V∞` (−0.8 at `z = 19`, an
    L5PC soma's sodium conductance at `h = 5/128` ms). Defined and smooth at `G = 0` (`m = C/h`).
    """
    return C / (h * _phi1(G * h / C))


def crank_nicolson_coefficient(C, G, h):
    """`C/h + G/2` (mS/cm²): Crank–Nicolson's counterpart of `membrane_coefficient` (same update form)."""
    return C / h + G / 2


def _safe_div(num, den, ok):
    """`num / den` where `ok`, else 0, with finite gradients in both branches."""
    return jnp.where(ok, num / jnp.where(ok, den, jnp.ones_like(den)), jnp.zeros_like(num))


def _relax(mechanism, sites: Sites | None, c0, current, h):
    """`mechanism.relax` where the mechanism is; `c0` unchanged elsewhere.

    `sites`: `None` (everywhere: the point cell) or the mechanism's `Sites` in a cell (its parameters given there).
    """
    if sites is None:
        return mechanism.relax(c0, current, h)
    return sites.put(c0, mechanism.relax(sites.take(c0), sites.take(current), h))


def predict_concentrations(mechanisms, y0: dict, I0: dict, h) -> dict:
    """The concentrations at the step's midpoint from the start's ion currents `I0`: `{state: value}`.

    For the rates at the midpoint of the channels that read them (SK_E2's `cai`). `mechanisms` is
    `(ion, mechanism, sites)`: the point cell's `concentration_mechanisms()` (`None`: everywhere) or a cell's
    `SitedMembrane.mechanisms` (`Sites`, the mechanism's parameters there); `I0` is
    `{ion: outward current density (µA/cm²)}` at the start.
    """
    return {m.state: _relax(m, sites, y0[m.state], I0[ion], h / 2) for ion, m, sites in mechanisms}


def advance_concentrations(mechanisms, y0: dict, I_mid: dict, y_half: dict, y1: dict, h) -> None:
    r"""Write the concentrations at the half step and the end into `y_half` and `y1`.

    Exact exponential update of each concentration with its ion current `I_mid` frozen at the step's midpoint
    (the predicted potential, the half-step gates, the predicted concentrations). The pool is linear in itself at
    a given current ($dc/dt = s(I) - c/\tau$), so this is the exponential midpoint rule: second order like the
    rest of the step, stable for any decay/step ratio, and it relaxes exactly to `minCai` without a current.
    Shared by the point cell's step and the cable step (where the compartments without the mechanism keep
    their value).
    """
    for ion, m, sites in mechanisms:
        y_half[m.state] = _relax(m, sites, y0[m.state], I_mid[ion], h / 2)
        y1[m.state] = _relax(m, sites, y0[m.state], I_mid[ion], h)


def correct_concentrations(mechanisms, y0: dict, I_mid: dict, y1: dict, h) -> None:
    """Rewrite the concentrations at the end into `y1` with the ion currents `I_mid` of the solved potential.

    `I_mid` is taken at the trapezoidal potential `(V0 + V1)/2` and the half-step gates. The influx of a spike
    is then that of the solved `V`, not of the predicted one: on the L5PC soma's 9th spike at h = 5/256 ms the
    predicted potential left `cai` 1.1 % and the spike 0.14 ms off; corrected, 0.7 % and 0.09 ms.
    Same exponential update as `advance_concentrations`.
    """
    for ion, m, sites in mechanisms:
        y1[m.state] = _relax(m, sites, y0[m.state], I_mid[ion], h)


def rush_larsen_cn_step(model, protocol, t0, h, y0: dict, V_prev, h_prev, extra=None, coefficient=None):
    """One step of the scheme; returns `(y1, error estimate, dense info)`. See the module docstring.

    ``coefficient(C, G, h)`` gives the voltage update `V₁ = V₀ + (I + GE − G V₀)/coefficient`; by default
    `membrane_coefficient` (exponential), `crank_nicolson_coefficient` for the former Crank–Nicolson update.

    ``extra`` adds conductances that the step does not integrate itself (a network's synapses): their
    ``(G, GE)`` (mS/cm², µA/cm²) at the step's start, their exact mean over the step and at its end. The mean
    replaces their Simpson average, so a conductance that jumps inside the step (a spike's arrival) is exact.
    The mean and the end value may instead be functions of the potential (conductances that depend on it, as
    NMDA's magnesium block does): the mean is then taken at the predicted mid-point potential, where the
    channels' rates are, and the end value at the new potential. `y1` holds the cell's own states only.
    """
    C = model.C
    V0 = y0["V"]
    I = jnp.zeros_like(V0) if protocol is None else model.stimulus_density(protocol, t0 + h / 2)
    Gc0, GEc0 = model.conductances(y0)  # the cell's own
    G0, GE0 = Gc0, GEc0
    if extra is not None:
        (Gx0, GEx0), extra_mean, extra_end = extra
        G0, GE0 = Gc0 + Gx0, GEc0 + GEx0
    f0 = (I + GE0 - G0 * V0) / C
    # 1. predictor: quadratic extrapolation through the previous potential
    has_prev = h_prev > 0
    curv = _safe_div(V_prev - V0 + f0 * h_prev, h_prev * h_prev, has_prev)
    V_mid = V0 + (h / 2) * (f0 + curv * h)
    # written once: otherwise XLA recomputes V_mid (and reads V0, V_prev and the gates again) in each kernel
    # of the rates and gates (float32 ensemble step 11-20 % cheaper, float64 about 10 %); V_mid = V0 when h = 0
    V_mid = materialise(V_mid, V0, h)
    # 2. gates: exponential update with rates frozen at the trapezoidal potential
    # All gates as one (gates, ...) array: XLA then emits the update as one loop instead of one per gate
    # (float64, 1000 cells: 0.085 s against 0.096 s per 1632-step run, saved output included).
    # concentrations (a cell with a calcium mechanism): predicted at the midpoint with the start's ion currents,
    # for the rates of the channels that read them (SK_E2's cai)
    mechanisms = model.concentration_mechanisms()
    if mechanisms:
        c_pred = predict_concentrations(mechanisms, y0, model.ion_currents(V0, y0), h)
        rates = model.gate_rates(V_mid, c_pred)
    else:
        rates = model.gate_rates(V_mid)
    names = tuple(rates)
    a, b = (jnp.stack([jnp.broadcast_to(rates[g][k], V0.shape) for g in names]) for k in (0, 1))
    x0 = jnp.stack([y0[g] for g in names])
    s = a + b
    x_inf = a / s
    decay = _relaxation_factor((h / 2) * s)  # e^{-hs/2}, over half a step; squared for the whole step
    x_half = x_inf + (x0 - x_inf) * decay
    x1 = x_inf + (x0 - x_inf) * (decay * decay)
    y1 = {g: x1[i] for i, g in enumerate(names)}
    y_half = {g: x_half[i] for i, g in enumerate(names)}
    if mechanisms:
        advance_concentrations(mechanisms, y0, model.ion_currents(V_mid, {**y_half, **c_pred}), y_half, y1, h)
    # 3. voltage: exact for the conductances averaged over the step by Simpson's rule (module docstring)
    G1, GE1 = model.conductances(y1)
    G_half, GE_half = model.conductances(y_half)
    G, GE = (Gc0 + 4 * G_half + G1) / 6, (GEc0 + 4 * GE_half + GE1) / 6
    if extra is not None:  # their exact mean, not Simpson's rule (which would smear a jump inside the step)
        Gx_mean, GEx_mean = extra_mean(V_mid) if callable(extra_mean) else extra_mean
        G, GE = G + Gx_mean, GE + GEx_mean
    coefficient = membrane_coefficient if coefficient is None else coefficient
    V1 = V0 + (I + GE - G * V0) / coefficient(C, G, h)
    y1["V"] = V1
    if extra is not None:  # only the dense output's end slope reads them
        Gx1, GEx1 = extra_end(V1) if callable(extra_end) else extra_end
        G1, GE1 = G1 + Gx1, GE1 + GEx1
    if mechanisms:
        correct_concentrations(mechanisms, y0, model.ion_currents((V0 + V1) / 2, y_half), y1, h)
    # error estimate: against the same update with the old conductances (first order)
    V1_low = V0 + (I + GE0 - G0 * V0) / coefficient(C, G0, h)
    err = {k: jnp.zeros_like(v) for k, v in y1.items()}
    err["V"] = V1 - V1_low
    # dense output: slopes of V at both ends (input held at its midpoint value)
    f1 = (I + GE1 - G1 * V1) / C
    return y1, err, (y0, y1, h * f0, h * f1)


class HermiteVoltageInterpolation(AbstractLocalInterpolation):
    """Cubic Hermite in time for `V` (values and slopes at both ends), linear for the gates."""

    # diffrax declares `t0` and `t1` as ClassVars when type checking (its AbstractVar); fields implement them
    t0: Array  # type: ignore[misc]
    t1: Array  # type: ignore[misc]
    y0: dict
    y1: dict
    k0: Array
    k1: Array

    def evaluate(self, t0, t1=None, left=True):
        del left
        if t1 is not None:
            return {k: self.evaluate(t1)[k] - self.evaluate(t0)[k] for k in self.y0}
        s = (t0 - self.t0) / (self.t1 - self.t0)
        out = {k: self.y0[k] + s * (self.y1[k] - self.y0[k]) for k in self.y0 if k != "V"}
        V0, V1 = self.y0["V"], self.y1["V"]
        s2 = s * s
        s3 = s2 * s
        out["V"] = (
            (2 * s3 - 3 * s2 + 1) * V0 + (s3 - 2 * s2 + s) * self.k0 + (3 * s2 - 2 * s3) * V1 + (s3 - s2) * self.k1
        )
        return out


class AbstractVoltageStepSolver(AbstractSolver):
    """A second-order step that advances gates and potentials itself and predicts from the previous step.

    The step function of a concrete solver, `advance(model, protocol, t0, h, y0, V_prev, h_prev)`, returns
    `(y1, err, (ya, yb, k0, k1))`: the new state, its error estimate and the Hermite dense output of the potential.
    The vector field term is not used: the model and the protocol come from `args = (model, protocol)`, exactly
    what [`difflab.simulate`][] passes. The solver state holds the previous potential and step (a scalar: one step
    size for all cells of a batched model; under vmap it is batched like `t`).
    """

    term_structure: ClassVar = AbstractTerm
    interpolation_cls: ClassVar = HermiteVoltageInterpolation
    #: Largest accepted change of a step's `V` by its conductances' change over the step (mV): the gap between the
    #: second-order step and the first-order one that keeps the start's conductances (the step's `err`). A fixed
    #: step has no controller to reject a step that does not resolve the dynamics, so such a step makes `V` NaN:
    #: the solve then fails by name (`throw=True`) or that member reports `succeeded` false. The squid axon at
    #: the default step reaches 8-9 mV up to 200 µA/cm² and 11 mV at 1000 µA/cm² (peak within 0.5 % of a 0.001 ms
    #: solve); at 1500 µA/cm² 27 mV (peak 5 % low), at 5000 µA/cm² 794 mV (peak 65 % high). An adaptive
    #: controller never accepts such a step.
    unresolved_mV: ClassVar[float] = 20.0

    @abc.abstractmethod
    def advance(self, model, protocol, t0, h, y0, V_prev, h_prev):
        """One step of length `h` from `t0`: `(y1, err, (ya, yb, k0, k1))`."""

    def order(self, terms):
        return 2

    def init(self, terms, t0, t1, y0, args):
        V0 = y0["V"]
        return V0, jnp.zeros((), V0.dtype)

    def step(self, terms, t0, t1, y0, args, solver_state, made_jump):
        model, protocol = args
        V_prev, h_prev = solver_state
        # the step, and its start for the stimulus, in the state's dtype: a float64 state may run on float32 times
        # (the state is widened to the times' dtype, never narrowed, so this cast is exact)
        t0, h = jnp.asarray(t0, V_prev.dtype), jnp.asarray(t1 - t0, V_prev.dtype)
        # after a discontinuity the previous potential is not on the same smooth branch
        h_prev = jnp.where(made_jump, jnp.zeros_like(h_prev), h_prev)
        y1, err, (ya, yb, k0, k1) = self.advance(model, protocol, t0, h, y0, V_prev, h_prev)
        y1["V"] = jnp.where(jnp.abs(err["V"]) > self.unresolved_mV, jnp.nan, y1["V"])  # see `unresolved_mV`
        dense_info = dict(y0=ya, y1=yb, k0=k0, k1=k1)
        new_state = (y0["V"], jnp.asarray(h, dtype=h_prev.dtype))
        return y1, err, dense_info, new_state, diffrax.RESULTS.successful

    def func(self, terms, t0, y0, args):
        return terms.vf(t0, y0, args)


class RushLarsenCN(AbstractVoltageStepSolver):
    """Exponential (Rush–Larsen) gates + exponential voltage update with an extrapolated midpoint; order 2.

    The name keeps its Crank–Nicolson origin: the voltage update is Crank–Nicolson for small `G h / C`.

    For [`HodgkinHuxley`][difflab.neuron.HodgkinHuxley] cells: use with `diffrax.ConstantStepSize`
    (the cell's default) or an adaptive controller.
    """

    def advance(self, model, protocol, t0, h, y0, V_prev, h_prev):
        return rush_larsen_cn_step(model, protocol, t0, h, y0, V_prev, h_prev)
