r"""Sodium channels of the L5 pyramidal cell model (Hay et al. 2011): `NaTs2_t`, `NaTa_t`, `Nap_Et2`.

All three are `I = ḡ m³ h (V − E_Na)` with rates in 1/ms, `V` in mV, written with
[`vtrap`][difflab.neuron.vtrap] where the .mod files divide 0/0 (they shift `V` by 1e-4 mV instead), so values
and gradients stay finite at every potential. Rates are multiplied by the channel's temperature rule
`qt = 2.3^((34 − 21)/10)` (a [`Q10`][difflab.neuron.channels.Q10]; the .mod files fix it at 34 °C).

Conductances: difflab's `gbar` is in mS/cm², 1000 × the .mod's `g<name>bar` in S/cm² (default 1e-5 S/cm² =
0.01 mS/cm²). `E` defaults to NEURON's `ena` 50 mV.

Reference: Hay, Hill, Schürmann, Markram & Segev, PLoS Comput Biol 7:e1002107 (2011); ModelDB 139653; the .mod
files of BluePyOpt's L5PC example (after Colbert & Pan 2002 and Magistretti & Alonso 1999).
"""

from __future__ import annotations

from jaxtyping import Array

from .._rates import vtrap, vtrap_pair
from ._gating import AbstractRuledChannel, boltzmann, inf_tau


def _transient(V: Array, m_half: float, h_half: float, qt: Array) -> dict[str, tuple[Array, Array]]:
    """The shared kinetics of `NaTs2_t` (halves −32, −60 mV) and `NaTa_t` (−38, −66 mV), `(α, β)` × `qt`."""
    m_pos, m_neg = vtrap_pair(V - m_half, 6.0)  # each α, β pair shares its exponential
    h_pos, h_neg = vtrap_pair(V - h_half, 6.0)
    am, bm = 0.182 * m_neg, 0.124 * m_pos
    ah, bh = 0.015 * h_pos, 0.015 * h_neg
    return {"m": (qt * am, qt * bm), "h": (qt * ah, qt * bh)}


class NaTs2_t(AbstractRuledChannel):
    r"""Fast inactivating (transient) sodium current of the soma, `I = ḡ m³ h (V − E)`.

    $$\alpha_m = \frac{0.182\,(V + 32)}{1 - e^{-(V + 32)/6}},\quad
    \beta_m = \frac{0.124\,(-V - 32)}{1 - e^{(V + 32)/6}},\quad
    \alpha_h = \frac{-0.015\,(V + 60)}{1 - e^{(V + 60)/6}},\quad
    \beta_h = \frac{-0.015\,(-V - 60)}{1 - e^{-(V + 60)/6}}$$

    (1/ms, × `qt`). Gates `m_NaTs2_t`, `h_NaTs2_t`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (.mod 1e-5 S/cm²).
        E: reversal potential E_Na (mV); default 50.
        temperature: rate factor rule; default `Q10(2.3, 21, celsius=34)`.
    """

    gates = ("m_NaTs2_t", "h_NaTs2_t")
    ion = "na"
    default_E = 50.0

    def rates(self, V, celsius):
        r = _transient(V, -32.0, -60.0, self.temperature.factor(celsius))
        return {"m_NaTs2_t": r["m"], "h_NaTs2_t": r["h"]}

    def conductance(self, gates):
        m = gates["m_NaTs2_t"]
        return self.gbar * (m * m * m) * gates["h_NaTs2_t"]


class NaTa_t(AbstractRuledChannel):
    r"""Fast inactivating sodium current of the axon, `I = ḡ m³ h (V − E)`: `NaTs2_t`'s rates shifted by −6 mV.

    $$\alpha_m = \frac{0.182\,(V + 38)}{1 - e^{-(V + 38)/6}},\quad
    \beta_m = \frac{0.124\,(-V - 38)}{1 - e^{(V + 38)/6}},\quad
    \alpha_h = \frac{-0.015\,(V + 66)}{1 - e^{(V + 66)/6}},\quad
    \beta_h = \frac{-0.015\,(-V - 66)}{1 - e^{-(V + 66)/6}}$$

    (1/ms, × `qt`). Gates `m_NaTa_t`, `h_NaTa_t`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (.mod 1e-5 S/cm²).
        E: reversal potential E_Na (mV); default 50.
        temperature: rate factor rule; default `Q10(2.3, 21, celsius=34)`.
    """

    gates = ("m_NaTa_t", "h_NaTa_t")
    ion = "na"
    default_E = 50.0

    def rates(self, V, celsius):
        r = _transient(V, -38.0, -66.0, self.temperature.factor(celsius))
        return {"m_NaTa_t": r["m"], "h_NaTa_t": r["h"]}

    def conductance(self, gates):
        m = gates["m_NaTa_t"]
        return self.gbar * (m * m * m) * gates["h_NaTa_t"]


class Nap_Et2(AbstractRuledChannel):
    r"""Persistent sodium current, `I = ḡ m³ h (V − E)`, with steady states and time constants.

    $$m_\infty = \frac{1}{1 + e^{-(V + 52.6)/4.6}},\quad \tau_m = \frac{6}{(\alpha_m + \beta_m)\,q_t}
    \ (\alpha_m, \beta_m \text{ of NaTa\_t}),\quad h_\infty = \frac{1}{1 + e^{(V + 48.8)/10}},\quad
    \tau_h = \frac{1}{(\alpha_h + \beta_h)\,q_t}$$

    with `α_h = 2.88e-6 (V + 17)/(e^{(V + 17)/4.63} − 1)`, `β_h = 6.94e-6 (V + 64.4)/(1 − e^{−(V + 64.4)/2.63})`
    (1/ms), τ in ms. Gates `m_Nap_Et2`, `h_Nap_Et2`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (.mod 1e-5 S/cm²).
        E: reversal potential E_Na (mV); default 50.
        temperature: rate factor rule; default `Q10(2.3, 21, celsius=34)`.
    """

    gates = ("m_Nap_Et2", "h_Nap_Et2")
    ion = "na"
    default_E = 50.0

    def rates(self, V, celsius):
        qt = self.temperature.factor(celsius)
        m_pos, m_neg = vtrap_pair(V + 38.0, 6.0)
        am, bm = 0.182 * m_neg, 0.124 * m_pos
        m_inf, m_rest = boltzmann(V, -52.6, 4.6)
        ah = 2.88e-6 * vtrap(V + 17.0, 4.63)
        bh = 6.94e-6 * vtrap(-(V + 64.4), 2.63)
        h_inf, h_rest = boltzmann(V, -48.8, -10.0)
        return {
            "m_Nap_Et2": inf_tau(m_inf, 6 / ((am + bm) * qt), m_rest),
            "h_Nap_Et2": inf_tau(h_inf, 1 / ((ah + bh) * qt), h_rest),
        }

    def conductance(self, gates):
        m = gates["m_Nap_Et2"]
        return self.gbar * (m * m * m) * gates["h_Nap_Et2"]
