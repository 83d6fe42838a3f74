"""read_nmodl: mechanisms written in NMODL against difflab's hand-written channels, and bad input refused by name.

The sources (tests/neuron/_nmodl_sources.py) are written from the channels' published equations. Gate kinetics
are compared on −100…50 mV in 0.1 mV steps (exact decimals, so the removable singularities at −40, −55, −32, −60
and −154.9 mV are hit exactly) to 1e-12 relative; cells built with the read channels simulate like the library's
to 1e-10 mV.
"""

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.neuron import (
    SK_E2,
    Ca_HVA,
    CaDynamics_E2,
    Cell,
    HodgkinHuxley,
    IClamp,
    Ih,
    Im,
    LeakChannel,
    NaTs2_t,
    NMODLError,
    PotassiumChannel,
    Region,
    SKv3_1,
    SodiumChannel,
    pas,
    read_nmodl,
)

from . import _nmodl_sources as src

V = jnp.arange(-1000, 501) / 10.0  # mV, exact decimals
GATES = np.linspace(0.05, 0.95, 7)
# (source, library channel, {read gate: library gate}, celsius)
PAIRS = {
    "na": (src.SQUID_NA, SodiumChannel(), {"m_na_hh": "m", "h_na_hh": "h"}, 18.5),
    "k": (src.SQUID_K, PotassiumChannel(), {"n_k_hh": "n"}, 18.5),
    "NaTs2_t": (src.NATS2_T, NaTs2_t(), {"m_NaTs2_t": "m_NaTs2_t", "h_NaTs2_t": "h_NaTs2_t"}, 34.0),
    "Ih": (src.IH, Ih(), {"m_Ih": "m_Ih"}, 34.0),
    "Im": (src.IM, Im(), {"m_Im": "m_Im"}, 34.0),
}


def _rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.max(np.abs(a - b) / np.abs(b))


@pytest.mark.parametrize("name", list(PAIRS))
def test_voltage_gated_rates_match_library(name):
    """(α, β), x∞, τ and the conductance of each read channel equal the library's to 1e-12 relative."""
    text, lib, gates, celsius = PAIRS[name]
    ch = read_nmodl(text)
    assert ch.gates == tuple(gates) and ch.ion in (lib.ion, name)  # the squid classes carry no ion
    got, want = ch.rates(V, jnp.asarray(celsius)), lib.rates(V, jnp.asarray(celsius))
    for gate, lib_gate in gates.items():
        (a, b), (la, lb) = got[gate], want[lib_gate]
        assert _rel(a, la) < 1e-12 and _rel(b, lb) < 1e-12, (gate, _rel(a, la), _rel(b, lb))
        assert _rel(a / (a + b), la / (la + lb)) < 1e-12
        assert _rel(1 / (a + b), 1 / (la + lb)) < 1e-12
    values = {g: jnp.asarray(GATES[::-1] if k else GATES) for k, g in enumerate(gates)}
    G = ch.conductance(values)
    assert _rel(G, lib.conductance({gates[g]: x for g, x in values.items()})) < 1e-12
    assert float(ch.E) == float(lib.E)


@pytest.mark.parametrize("name", ["na", "NaTs2_t"])
def test_rate_gradients_match_library(name):
    """dα/dV and dβ/dV by reverse mode equal the library's to 1e-9 relative, at the 0/0 points (−40, −32, −60 mV,
    behind the text's `if`) too."""
    text, lib, gates, celsius = PAIRS[name]
    ch = read_nmodl(text)

    def total(channel, names, v, k):
        return sum(channel.rates(v, jnp.asarray(celsius))[g][k] for g in names)

    for k in (0, 1):
        got = jax.vmap(jax.grad(lambda v, k=k: total(ch, list(gates), v, k)))(V)
        want = jax.vmap(jax.grad(lambda v, k=k: total(lib, list(gates.values()), v, k)))(V)
        assert np.all(np.isfinite(got)) and _rel(got, want) < 1e-9


def test_calcium_gated_rates_match_library():
    """SK_E2 reads `cai`: x∞ and τ to 1e-12 relative over 1e-8…1e-1 mM and all V, α too; β = (1 − z∞)/τ as the
    text computes it, so to 1e-12 of α + β (the subtraction 1 − z∞ loses β's relative digits where z∞ → 1)."""
    ch, lib = read_nmodl(src.SK_E2), SK_E2()
    assert ch.reads == ("cai",) and ch.gates == ("z_SK_E2",)
    cai = jnp.logspace(-8, -1, 15)
    Vg, cg = (x.ravel() for x in jnp.meshgrid(V[::50], cai))
    (a, b), (la, lb) = ch.rates(Vg, jnp.asarray(34.0), cai=cg)["z_SK_E2"], lib.rates(Vg, 34.0, cai=cg)["z_SK_E2"]
    assert a.shape == Vg.shape
    assert _rel(a, la) < 1e-12 and _rel(a / (a + b), la / (la + lb)) < 1e-12 and _rel(a + b, la + lb) < 1e-12
    assert np.max(np.abs(np.asarray(b - lb) / np.asarray(la + lb))) < 1e-12
    assert (
        _rel(ch.conductance({"z_SK_E2": jnp.asarray(GATES)}), lib.conductance({"z_SK_E2": jnp.asarray(GATES)})) < 1e-12
    )


def test_calcium_pool_matches_library():
    """A mechanism that WRITEs cai becomes a concentration mechanism: s(I) and 1/τ as CaDynamics_E2's, 1e-12."""
    pool, lib = read_nmodl(src.CADYN, gamma=0.0006, depth=0.2), CaDynamics_E2(gamma=0.0006, depth=0.2)
    assert (pool.ion, pool.state, pool.valence) == ("ca", "cai", 2)
    assert float(pool.c_out) == 2.0 and float(pool.c_init) == 5e-5 and float(pool.replace(decay=200.0).decay) == 200
    current = jnp.linspace(-40.0, 10.0, 11)  # µA/cm²
    (s, rate), (ls, lrate) = pool.linear_terms(current), lib.linear_terms(current)
    assert _rel(s, ls) < 1e-12 and _rel(rate, lrate) < 1e-12


def test_units_fields_and_replace():
    """Densities in S/cm² and mho/cm² become mS/cm² (× 1000); E is e_ion or the nonspecific current's PARAMETER."""
    na, k, leak, ih = (read_nmodl(t) for t in (src.SQUID_NA, src.SQUID_K, src.SQUID_LEAK, src.IH))
    assert float(na.gnabar) == 120.0 and float(k.gkbar) == 36.0 and float(leak.gl) == 0.3
    assert float(leak.E) == -54.3 and float(ih.E) == -45.0 and ih.ion is None and not hasattr(ih, "ehcn")
    assert float(read_nmodl(src.SK_E2).gSK_E2bar) == pytest.approx(1e-3, rel=1e-15)
    assert type(read_nmodl(src.SQUID_NA)) is type(na)  # one class per text: cells see one channel class
    assert float(read_nmodl(src.SQUID_NA, gnabar=60.0).conductance({"m_na_hh": 1.0, "h_na_hh": 1.0})) == 60.0
    assert float(na.replace(gnabar=100.0, E=55.0).gnabar) == 100.0
    with pytest.raises(KeyError, match=r"unknown parameter 'gbar'.*gnabar"):
        na.replace(gbar=1.0)
    with pytest.raises(TypeError, match=r"unknown parameter\(s\) \['g'\]"):
        read_nmodl(src.SQUID_NA, g=1.0)
    # differentiable in its parameters: dG/dgbar = m³h
    grad = jax.grad(lambda c: c.conductance({"m_na_hh": 0.5, "h_na_hh": 0.8}))(na)
    assert float(grad.gnabar) == pytest.approx(0.125 * 0.8, rel=1e-15)


def test_squid_axon_simulates_as_library():
    """A 10 µA/cm² step: V of the read Na, K and leak equals the library's squid axon to 1e-10 mV, both as three
    mechanisms and as one `hh` mechanism read once per current."""
    read = HodgkinHuxley(
        channels={"na": read_nmodl(src.SQUID_NA), "k": read_nmodl(src.SQUID_K), "leak": read_nmodl(src.SQUID_LEAK)}
    )
    hh = HodgkinHuxley(channels={c: read_nmodl(src.HH, current=f"i{c}") for c in ("na", "k", "l")})
    assert hh.gate_names == ("m_hh", "h_hh", "n_hh") and float(hh.channels["l"].E) == -54.3
    lib = HodgkinHuxley(channels={"na": SodiumChannel(), "k": PotassiumChannel(), "leak": LeakChannel()})
    ts = jnp.linspace(0.0, 20.0, 201)
    stim = difflab.Step(10.0, 1.0, 20.0)
    want = difflab.simulate(lib, stim, ts)
    assert np.max(np.asarray(want.ys["V"])) > 20.0  # it spikes
    for model, n in ((read, "n_k_hh"), (hh, "n_hh")):
        got = difflab.simulate(model, stim, ts)
        assert np.max(np.abs(np.asarray(got.ys["V"] - want.ys["V"]))) < 1e-10
        assert np.max(np.abs(np.asarray(got.ys[n] - want.ys["n"]))) < 1e-12


def test_ball_and_stick_cell_simulates_as_library():
    """Cell.ball_and_stick's hh densities per region as read channels (one class across regions): V to 1e-10 mV."""

    def hh(gna, gk, gl):
        na, k = read_nmodl(src.SQUID_NA, gnabar=gna), read_nmodl(src.SQUID_K, gkbar=gk)
        return {"na": na, "k": k, "leak": read_nmodl(src.SQUID_LEAK, gl=gl)}

    lib = Cell.ball_and_stick(nseg=3)
    regions = {"soma": Region(hh(120.0, 36.0, 0.3), Ra=100.0), "dend": Region(hh(30.0, 10.0, 0.1), Ra=100.0)}
    read = Cell(lib.morphology, regions)
    assert "n_k_hh" in read.gate_names
    stim = IClamp({"soma(0.5)": difflab.Step(0.25, 1.0, 10.0)})
    ts = jnp.linspace(0.0, 10.0, 41)
    got, want = difflab.simulate(read, stim, ts), difflab.simulate(lib, stim, ts)
    assert np.max(np.asarray(want.ys["V"])) > 20.0  # the soma spikes
    assert np.max(np.abs(np.asarray(got.ys["V"] - want.ys["V"]))) < 1e-10


def test_l5pc_soma_simulates_as_library():
    """The L5PC soma with NaTs2_t, SK_E2, Ih, Im and its calcium pool read from NMODL: V and cai as the library's
    to 1e-10."""

    def soma(na, sk, ih, im, pool):
        channels = {"NaTs2_t": na, "SKv3_1": SKv3_1(gbar=303.472, E=-85.0), "SK_E2": sk, "Ca_HVA": Ca_HVA(gbar=0.994)}
        channels |= {"Ih": ih, "Im": im, "pas": pas(g=0.03, E=-75.0)}
        return HodgkinHuxley(channels=channels, concentrations={"ca": pool}, celsius=34.0, v_init=-65.0)

    read = soma(
        read_nmodl(src.NATS2_T, gNaTs2_tbar=983.955),
        read_nmodl(src.SK_E2, gSK_E2bar=8.407, E=-85.0),
        read_nmodl(src.IH, gIhbar=0.08),
        read_nmodl(src.IM, gImbar=5.0, E=-85.0),
        read_nmodl(src.CADYN, gamma=0.000609, decay=210.485284),
    )
    pool = CaDynamics_E2(gamma=0.000609, decay=210.485284)
    lib = soma(NaTs2_t(gbar=983.955), SK_E2(gbar=8.407, E=-85.0), Ih(gbar=0.08), Im(gbar=5.0, E=-85.0), pool)
    assert read.states == lib.states
    ts = jnp.linspace(0.0, 30.0, 121)
    stim = difflab.Step(10.0, 5.0, 30.0)
    got, want = difflab.simulate(read, stim, ts), difflab.simulate(lib, stim, ts)
    assert np.max(np.asarray(want.ys["V"])) > 0.0  # it spikes
    assert np.max(np.abs(np.asarray(got.ys["V"] - want.ys["V"]))) < 1e-10
    assert _rel(got.ys["cai"], want.ys["cai"]) < 1e-10


BAD = {
    "verbatim": (src.SQUID_LEAK + "\nVERBATIM\n return 0;\nENDVERBATIM\n", "line 7: VERBATIM"),
    "kinetic": (src.SQUID_LEAK + "\nKINETIC scheme {\n}\n", "line 7: KINETIC is not supported"),
    "method": (src.IM.replace("METHOD cnexp", "METHOD derivimplicit"), "line 7: METHOD derivimplicit"),
    "function": (src.IM.replace("exp(-0.1", "expo(-0.1"), "line 14: unknown function 'expo'"),
    "name": (src.IM.replace("qt*3.3e-3*exp(0.1", "q*3.3e-3*exp(0.1"), "line 13: unknown name 'q'"),
    "nonlinear": (src.IM.replace("- mBeta*m", "- mBeta*m*m"), "derivative m' .* is not linear in m"),
    "current": (src.IM.replace("ik = gImbar*m*(v - ek)", "ik = gImbar*m*v*(v - ek)"), "not of the form g"),
    "suffix": (src.SQUID_LEAK.replace("SUFFIX leak_hh ", ""), "no SUFFIX"),
    "syntax": (
        src.IM.replace("exp(0.1*(v + 35))", "exp(0.1*(v + 35)"),
        r"line 14: syntax error: expected ',' or '\)', got 'mBeta'",
    ),
    "pool reads v": (src.CADYN.replace("- (cai - minCai)", "- v*(cai - minCai)"), "line 10: unknown name 'v'"),
    "pool not linear": (src.CADYN.replace("(cai - minCai)/decay", "(cai^2 - minCai)/decay"), "cai' .* not linear"),
    "several currents": (src.HH, r"writes the currents \['il', 'ina', 'ik'\]: read each .* current=<name>"),
    "writes cao": (src.CADYN.replace("WRITE cai", "WRITE cao"), "line 3: USEION ca WRITE cao: extracellular"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_refused_by_name(case):
    text, message = BAD[case]
    with pytest.raises(NMODLError, match=message):
        read_nmodl(text)


def test_path_and_missing_file(tmp_path):
    path = tmp_path / "leak.mod"
    path.write_text(src.SQUID_LEAK)
    assert float(read_nmodl(str(path)).gl) == 0.3 and float(read_nmodl(path).E) == -54.3
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "none.mod"))):
        read_nmodl(str(tmp_path / "none.mod"))
