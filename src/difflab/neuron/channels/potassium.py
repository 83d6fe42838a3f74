r"""Potassium channels of the L5 pyramidal cell model (Hay et al. 2011).

`K_Tst` (fast inactivating), `K_Pst` (slow inactivating), `SKv3_1` (fast non-inactivating, Kv3.1), `Im`
(muscarinic, slow) and `SK_E2` (small-conductance calcium-activated, gated by `cai`). Steady states are
dimensionless, time constants in ms, rates in 1/ms, `V` in mV. Where the .mod computes `qt = 2.3^((34 − 21)/10)`
the rates carry the channel's [`Q10`][difflab.neuron.channels.Q10] rule (fixed at 34 °C by default, as there).
`K_Tst`, `K_Pst` evaluate their curves at `V + 10` mV, as their .mod files do.

Conductances: difflab's `gbar` is in mS/cm², 1000 × the .mod's `g<name>bar` in S/cm² (default 1e-5 S/cm² =
0.01 mS/cm²; `SK_E2` 1e-6 S/cm² = 0.001 mS/cm²). `E` defaults to NEURON's `ek` −77 mV (the L5PC uses −85).

Reference: Hay, Hill, Schürmann, Markram & Segev, PLoS Comput Biol 7:e1002107 (2011); ModelDB 139653; the .mod
files of BluePyOpt's L5PC example (after Korngreen & Sakmann 2000, Rettig et al. 1992, Adams et al. 1982,
Köhler et al. 1996).
"""

from __future__ import annotations

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike

from .._channels import AbstractChannel, channel_param
from ._gating import AbstractRuledChannel, boltzmann, conductance_param, inf_tau


class K_Tst(AbstractRuledChannel):
    r"""Fast inactivating potassium current, `I = ḡ m⁴ h (V − E)`, with `u = V + 10` mV.

    $$m_\infty = \frac{1}{1 + e^{-u/19}},\ \tau_m = \frac{0.34 + 0.92\, e^{-((u + 71)/59)^2}}{q_t},\quad
    h_\infty = \frac{1}{1 + e^{(u + 66)/10}},\ \tau_h = \frac{8 + 49\, e^{-((u + 73)/23)^2}}{q_t}.$$

    Gates `m_K_Tst`, `h_K_Tst`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (.mod 1e-5 S/cm²).
        E: reversal potential E_K (mV); default −77.
        temperature: rate factor rule; default `Q10(2.3, 21, celsius=34)`.
    """

    gates = ("m_K_Tst", "h_K_Tst")
    ion = "k"
    default_E = -77.0

    def rates(self, V, celsius):
        qt = self.temperature.factor(celsius)
        u = V + 10.0
        m_inf, m_rest = boltzmann(u, 0.0, 19.0)
        h_inf, h_rest = boltzmann(u, -66.0, -10.0)
        tau_m = (0.34 + 0.92 * jnp.exp(-(((u + 71.0) / 59.0) ** 2))) / qt
        tau_h = (8.0 + 49.0 * jnp.exp(-(((u + 73.0) / 23.0) ** 2))) / qt
        return {"m_K_Tst": inf_tau(m_inf, tau_m, m_rest), "h_K_Tst": inf_tau(h_inf, tau_h, h_rest)}

    def conductance(self, gates):
        m2 = gates["m_K_Tst"] * gates["m_K_Tst"]
        return self.gbar * (m2 * m2) * gates["h_K_Tst"]


class K_Pst(AbstractRuledChannel):
    r"""Slow inactivating (persistent) potassium current, `I = ḡ m² h (V − E)`, with `u = V + 10` mV.

    $$m_\infty = \frac{1}{1 + e^{-(u + 1)/12}},\ \tau_m = \begin{cases} (1.25 + 175.03\, e^{0.026 u})/q_t & u < -50
    \\ (1.25 + 13\, e^{-0.026 u})/q_t & \text{else} \end{cases},$$
    $$h_\infty = \frac{1}{1 + e^{(u + 54)/11}},\
    \tau_h = \frac{360 + (1010 + 24 (u + 55))\, e^{-((u + 75)/48)^2}}{q_t}.$$

    Gates `m_K_Pst`, `h_K_Pst`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (.mod 1e-5 S/cm²).
        E: reversal potential E_K (mV); default −77.
        temperature: rate factor rule; default `Q10(2.3, 21, celsius=34)`.
    """

    gates = ("m_K_Pst", "h_K_Pst")
    ion = "k"
    default_E = -77.0

    def rates(self, V, celsius):
        qt = self.temperature.factor(celsius)
        u = V + 10.0
        m_inf, m_rest = boltzmann(u, -1.0, 12.0)
        h_inf, h_rest = boltzmann(u, -54.0, -11.0)
        # both branches stay finite on the other's side, so the where has finite gradients
        tau_m = jnp.where(u < -50.0, 1.25 + 175.03 * jnp.exp(0.026 * u), 1.25 + 13.0 * jnp.exp(-0.026 * u)) / qt
        tau_h = (360.0 + (1010.0 + 24.0 * (u + 55.0)) * jnp.exp(-(((u + 75.0) / 48.0) ** 2))) / qt
        return {"m_K_Pst": inf_tau(m_inf, tau_m, m_rest), "h_K_Pst": inf_tau(h_inf, tau_h, h_rest)}

    def conductance(self, gates):
        m = gates["m_K_Pst"]
        return self.gbar * (m * m) * gates["h_K_Pst"]


class SKv3_1(AbstractChannel):
    r"""Fast non-inactivating Kv3.1 potassium current, `I = ḡ m (V − E)`, no temperature factor.

    $$m_\infty = \frac{1}{1 + e^{(V - 18.7)/(-9.7)}},\qquad
    \tau_m = \frac{0.2 \cdot 20}{1 + e^{(V + 46.56)/(-44.14)}}.$$

    Gate `m_SKv3_1`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (.mod 1e-5 S/cm²).
        E: reversal potential E_K (mV); default −77.
    """

    gates = ("m_SKv3_1",)
    ion = "k"
    gbar: Array
    E: Array

    def __init__(self, gbar: ArrayLike = 0.01, E: ArrayLike = -77.0):
        self.gbar = conductance_param(gbar)
        self.E = channel_param(E, "E", "mV")

    def rates(self, V, celsius):
        m_inf, m_rest = boltzmann(V, 18.7, 9.7)
        tau_m = 4.0 * boltzmann(V, -46.56, 44.14)[0]
        return {"m_SKv3_1": inf_tau(m_inf, tau_m, m_rest)}

    def conductance(self, gates):
        return self.gbar * gates["m_SKv3_1"]


class Im(AbstractRuledChannel):
    r"""Muscarinic (M-type) potassium current, `I = ḡ m (V − E)`.

    $$\alpha_m = 3.3\times10^{-3}\, e^{0.1 (V + 35)},\quad \beta_m = 3.3\times10^{-3}\, e^{-0.1 (V + 35)}
    \quad (1/\text{ms}, \times q_t).$$

    Gate `m_Im`.

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.01 (.mod 1e-5 S/cm²).
        E: reversal potential E_K (mV); default −77.
        temperature: rate factor rule; default `Q10(2.3, 21, celsius=34)`.
    """

    gates = ("m_Im",)
    ion = "k"
    default_E = -77.0

    def rates(self, V, celsius):
        qt = self.temperature.factor(celsius)
        z = 0.1 * (V + 35.0)
        return {"m_Im": (qt * 3.3e-3 * jnp.exp(z), qt * 3.3e-3 * jnp.exp(-z))}

    def conductance(self, gates):
        return self.gbar * gates["m_Im"]


class SK_E2(AbstractChannel):
    r"""Small-conductance calcium-activated potassium current, `I = ḡ z (V − E)`, gated by `cai` (mM).

    $$z_\infty = \frac{1}{1 + (0.00043 / c)^{4.8}},\qquad \tau_z = 1\ \text{ms},\qquad
    c = \mathrm{cai} + 10^{-7} \text{ where } \mathrm{cai} < 10^{-7}\ \text{mM (as the .mod)}.$$

    Gate `z_SK_E2`; reads `cai`, so the cell needs a calcium mechanism
    ([`CaDynamics_E2`][difflab.neuron.channels.CaDynamics_E2]).

    Attributes:
        gbar: maximal conductance (mS/cm²); default 0.001 (.mod 1e-6 S/cm²).
        E: reversal potential E_K (mV); default −77.
        zTau: time constant of `z` (ms, > 0); default 1.
    """

    gates = ("z_SK_E2",)
    ion = "k"
    reads = ("cai",)
    gbar: Array
    E: Array
    zTau: Array

    def __init__(self, gbar: ArrayLike = 0.001, E: ArrayLike = -77.0, zTau: ArrayLike = 1.0):
        self.gbar = conductance_param(gbar)
        self.E = channel_param(E, "E", "mV")
        self.zTau = channel_param(zTau, "zTau", "ms", positive=True)

    def rates(self, V, celsius, *, cai):
        c = jnp.where(cai < 1e-7, cai + 1e-7, cai)
        # (0.00043/c)^4.8 as an exponential of a difference of logs: no overflow as c → 1e-7 mM
        ratio = jnp.exp(4.8 * (jnp.log(0.00043) - jnp.log(c)))
        z_inf = 1 / (1 + ratio)
        z_rest = ratio / (1 + ratio)
        tau = jnp.broadcast_to(self.zTau, jnp.broadcast_shapes(jnp.shape(V), jnp.shape(c), jnp.shape(self.zTau)))
        return {"z_SK_E2": inf_tau(z_inf, tau, z_rest)}

    def conductance(self, gates):
        return self.gbar * gates["z_SK_E2"]
