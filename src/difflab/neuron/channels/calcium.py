r"""Calcium channels of the L5 pyramidal cell model (Hay et al. 2011): `Ca_HVA` and `Ca_LVAst`.

`Ca_HVA` is high-voltage activated, `Ca_LVAst` low-voltage activated (T-type).

Both carry calcium (`ion = "ca"`): their current drives a calcium mechanism
([`CaDynamics_E2`][difflab.neuron.channels.CaDynamics_E2]) and, when the cell has one, their reversal potential
is calcium's Nernst potential from `cai` (as in NEURON when a mechanism writes `cai`); otherwise `E`.

Conductances: difflab's `gbar` is in mS/cm², 1000 × the .mod's `g<name>bar` in S/cm² (default 1e-5 S/cm² =
0.01 mS/cm²). `E` defaults to NEURON's `eca` for its default concentrations (132.458 mV).

Reference: Hay, Hill, Schürmann, Markram & Segev, PLoS Comput Biol 7:e1002107 (2011); ModelDB 139653; the .mod
files of BluePyOpt's L5PC example (after Reuveni et al. 1993 and Avery & Johnston 1996).
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

from .._channels import AbstractChannel, channel_param
from .._rates import vtrap
from ._gating import AbstractRuledChannel, boltzmann, conductance_param, inf_tau

#: NEURON's default `eca` (mV) when no mechanism writes `cai`.
ECA_DEFAULT = 132.4579341637009


class Ca_HVA(AbstractChannel):
    r"""High-voltage-activated calcium current, `I = ḡ m² h (V − E_Ca)`, no temperature factor.

    $$\alpha_m = \frac{0.055\,(-27 - V)}{e^{(-27 - V)/3.8} - 1},\quad \beta_m = 0.94\, e^{(-75 - V)/17},\quad
    \alpha_h = 0.000457\, e^{(-13 - V)/50},\quad \beta_h = \frac{0.0065}{e^{(-V - 15)/28} + 1}$$

    (1/ms; `α_m` through [`vtrap`][difflab.neuron.vtrap], finite at −27 mV). Gates `m_Ca_HVA`, `h_Ca_HVA`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (.mod 1e-5 S/cm²).
        E: reversal potential E_Ca (mV) when the cell does not compute `cai`; default 132.458.
    """

    gates = ("m_Ca_HVA", "h_Ca_HVA")
    ion = "ca"
    gbar: Array
    E: Array

    def __init__(self, gbar: ArrayLike = 0.01, E: ArrayLike = ECA_DEFAULT):
        self.gbar = conductance_param(gbar)
        self.E = channel_param(E, "E", "mV")

    def rates(self, V, celsius):
        am = 0.055 * vtrap(-27.0 - V, 3.8)
        bm = 0.94 * jnp.exp((-75.0 - V) / 17.0)
        ah = 0.000457 * jnp.exp((-13.0 - V) / 50.0)
        bh = 0.0065 * boltzmann(V, -15.0, 28.0)[0]
        return {"m_Ca_HVA": (am, bm), "h_Ca_HVA": (ah, bh)}

    def conductance(self, gates):
        m = gates["m_Ca_HVA"]
        return self.gbar * (m * m) * gates["h_Ca_HVA"]


class Ca_LVAst(AbstractRuledChannel):
    r"""Low-voltage-activated (T-type) calcium current, `I = ḡ m² h (V − E_Ca)`, with `u = V + 10` mV.

    $$m_\infty = \frac{1}{1 + e^{-(u + 30)/6}},\ \tau_m = \frac{5 + 20/(1 + e^{(u + 25)/5})}{q_t},\quad
    h_\infty = \frac{1}{1 + e^{(u + 80)/6.4}},\ \tau_h = \frac{20 + 50/(1 + e^{(u + 40)/7})}{q_t}.$$

    Gates `m_Ca_LVAst`, `h_Ca_LVAst`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (.mod 1e-5 S/cm²).
        E: reversal potential E_Ca (mV) when the cell does not compute `cai`; default 132.458.
        temperature: rate factor rule; default `Q10(2.3, 21, celsius=34)`.
    """

    gates = ("m_Ca_LVAst", "h_Ca_LVAst")
    ion = "ca"
    default_E = ECA_DEFAULT

    def rates(self, V, celsius):
        qt = self.temperature.factor(celsius)
        u = V + 10.0
        m_inf, m_rest = boltzmann(u, -30.0, 6.0)
        h_inf, h_rest = boltzmann(u, -80.0, -6.4)
        tau_m = (5.0 + 20.0 * boltzmann(u, -25.0, -5.0)[0]) / qt
        tau_h = (20.0 + 50.0 * boltzmann(u, -40.0, -7.0)[0]) / qt
        return {"m_Ca_LVAst": inf_tau(m_inf, tau_m, m_rest), "h_Ca_LVAst": inf_tau(h_inf, tau_h, h_rest)}

    def conductance(self, gates):
        m = gates["m_Ca_LVAst"]
        return self.gbar * (m * m) * gates["h_Ca_LVAst"]
