"""The cell: states, parameters by name, presets, user channels, eager input checks."""

import tomllib

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.data.internal import resource_dir
from difflab.neuron import (
    AbstractChannel,
    HodgkinHuxley,
    LeakChannel,
    PotassiumChannel,
    SodiumChannel,
    load_preset,
)

TS = jnp.linspace(0.0, 5.0, 21)


def test_states_initial_state_and_aliases():
    model = HodgkinHuxley.squid_axon()
    assert [s.name for s in model.states] == ["V", "m", "h", "n"]
    assert model.states[0].units == "mV"
    y0 = model.initial_state()
    # NEURON finitialize(-65): gates at steady state (values from the reference dataset)
    np.testing.assert_allclose([y0[k] for k in "mhn"], [0.052932, 0.596121, 0.317677], atol=1e-6)
    params = model.parameters()
    assert {k: float(params[k]) for k in ("gNa", "gK", "gL", "ENa", "EK", "EL")} == {
        "gNa": 120.0,
        "gK": 36.0,
        "gL": 0.3,
        "ENa": 50.0,
        "EK": -77.0,
        "EL": -54.3,
    }
    changed = model.replace(gNa=110.0, EK=-80.0)
    assert float(changed.channels["na"].gbar) == 110.0
    assert float(changed.channels["k"].E) == -80.0
    assert float(model.channels["na"].gbar) == 120.0


def test_preset_toml_equals_classmethod():
    assert "hodgkin_huxley/squid_axon" in difflab.datasets.available_presets("hodgkin_huxley")
    with pytest.raises(difflab.datasets.PresetError, match=r"group must be one of .*hodgkin_huxley.*; got 'hh'"):
        difflab.datasets.available_presets("hh")
    with pytest.warns(DeprecationWarning, match=r"difflab.neuron.available_presets is deprecated"):
        assert difflab.neuron.available_presets() == ["squid_axon"]
    assert eqx.tree_equal(load_preset("hodgkin_huxley/squid_axon"), load_preset("squid_axon"))
    spec = tomllib.loads((resource_dir("models") / "hodgkin_huxley" / "squid_axon.toml").read_text())
    a = load_preset("squid_axon")
    b = HodgkinHuxley.squid_axon()
    pa, pb = a.parameters(), b.parameters()
    assert set(pa) == set(pb)
    for name in pa:
        assert float(pa[name]) == float(pb[name]), name
    for name, entry in spec["parameters"].items():
        assert float(pb[name]) == entry["value"]
        assert entry["units"] == b.parameter_units[name]
    assert a.channel_order == b.channel_order


def test_float32_preset_stays_float32():
    model = load_preset("squid_axon", dtype=jnp.float32)
    assert all(p.dtype == jnp.float32 for p in model.parameters().values())
    traj = difflab.simulate(model, difflab.Step(10.0, 1.0, 4.0), TS.astype(jnp.float32))
    assert traj.ys["V"].dtype == jnp.float32


def test_unknown_preset_lists_available():
    with pytest.raises(ValueError, match=r"unknown preset 'giant_squid'.*available: .*squid_axon"):
        load_preset("giant_squid")


class CalciumT(AbstractChannel):
    """A toy extra channel with gates 'a' and 'b' (only for the test)."""

    gates = ("a", "b")
    gbar: jax.Array
    E: jax.Array

    def __init__(self, gbar=0.5, E=120.0):
        self.gbar = jnp.asarray(gbar, dtype=float)
        self.E = jnp.asarray(E, dtype=float)

    def rates(self, V, celsius):
        return {"a": (0.2 * jnp.exp((V + 50) / 20), 0.2 * jnp.exp(-(V + 50) / 20)), "b": (0.01 + 0 * V, 0.02 + 0 * V)}

    def conductance(self, gates):
        return self.gbar * gates["a"] ** 2 * gates["b"]


def test_user_channel_adds_states_and_current_without_editing_the_cell():
    channels = {"na": SodiumChannel(), "k": PotassiumChannel(), "leak": LeakChannel(), "ca": CalciumT()}
    model = HodgkinHuxley(channels)
    assert [s.name for s in model.states] == ["V", "m", "h", "n", "a", "b"]
    y0 = model.initial_state()
    np.testing.assert_allclose(y0["b"], 1 / 3)
    dy = model.vector_field(0.0, y0, None)
    base = HodgkinHuxley.squid_axon().vector_field(0.0, {k: y0[k] for k in "Vmhn"}, None)
    i_ca = 0.5 * y0["a"] ** 2 * y0["b"] * (-65.0 - 120.0)
    np.testing.assert_allclose(dy["V"], base["V"] - i_ca, rtol=1e-12)
    # the extra inward current depolarises the cell from -65 mV; the tailored solver and a
    # generic diffrax solver agree
    traj = difflab.simulate(model, None, TS)
    tsit = difflab.simulate(model, None, TS, solver=diffrax.Tsit5())
    assert float(traj.ys["V"][-1]) > -64.0
    np.testing.assert_allclose(traj.ys["V"], tsit.ys["V"], atol=2e-3)


def test_gate_name_clash_is_refused():
    with pytest.raises(ValueError, match="gate name 'n' of channel 'k2' clashes with channel 'k'"):
        HodgkinHuxley({"k": PotassiumChannel(), "k2": PotassiumChannel()})


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: SodiumChannel(gbar=-1.0), r"gbar must be >= 0 mS/cm\^2; got -1.0"),
        (lambda: LeakChannel(g=-0.3), r"g must be >= 0 mS/cm\^2; got -0.3"),
        (lambda: HodgkinHuxley.squid_axon().replace(gK=-36.0).initial_state(), r"gK must be >= 0 mS/cm\^2"),
        (lambda: HodgkinHuxley.squid_axon().replace(C=0.0).initial_state(), r"C must be > 0 uF/cm\^2; got 0.0"),
        (lambda: HodgkinHuxley(SodiumChannel()), "channels must be a non-empty dict"),
        (
            lambda: HodgkinHuxley.squid_axon().replace(gNa=jnp.ones(3), gK=jnp.ones(4)).initial_state(),
            r"parameter shapes do not broadcast together.*gK \(4,\), gNa \(3,\)",
        ),
        (lambda: HodgkinHuxley.squid_axon().replace(gL=jnp.nan).initial_state(), "gL must be finite"),
    ],
)
def test_bad_parameters_are_refused_naming_the_argument(build, message):
    with pytest.raises((ValueError, TypeError), match=message):
        build()


def test_bad_simulation_input_is_refused_through_the_cell():
    model = HodgkinHuxley.squid_axon()
    with pytest.raises(ValueError, match=r"ts must be strictly increasing"):
        difflab.simulate(model, difflab.Step(10.0, 1.0, 2.0), jnp.asarray([0.0, 1.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="values must be finite"):
        difflab.Sampled(jnp.asarray([0.0, 1.0, 2.0]), jnp.asarray([0.0, jnp.nan, 1.0]))
    with pytest.raises(ValueError, match="gNa must be >= 0"):
        difflab.simulate(model.replace(gNa=-1.0), None, TS)
    with pytest.raises(ValueError, match="y0 must be a dict with keys"):
        difflab.simulate(model, None, TS, y0={"V": jnp.asarray(-65.0)})


def test_currents_in_nA_with_a_membrane_area():
    """NEURON's one-segment soma, L = diam = 18.8 µm (area pi L diam = 1110.36 µm²): 0.1 nA is 1e5 × 0.1 / area
    = 9.0061 µA/cm². The IClamp and the density step give the same trajectory to rounding, under the default
    solver and under diffrax's Tsit5 (the vector field)."""
    area = np.pi * 18.8 * 18.8
    cell = _with_area(area)
    clamp = difflab.neuron.IClamp({"soma(0.5)": difflab.Step(0.1, 1.0, 4.0)})
    density = difflab.Step(1e5 * 0.1 / area, 1.0, 4.0)
    assert float(cell.stimulus_density(clamp, 2.0)) == pytest.approx(9.00605, rel=1e-5)
    for kwargs in ({}, {"solver": diffrax.Tsit5(), "dt0": 0.01}):
        a = difflab.simulate(cell, clamp, TS, **kwargs).ys["V"]
        b = difflab.simulate(HodgkinHuxley.squid_axon(), density, TS, **kwargs).ys["V"]
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-11)
        assert float(a[-1] - a[0]) > 5.0  # the current depolarised the cell
    two = difflab.neuron.IClamp({"soma(0.5)": difflab.Step(0.06, 1.0, 4.0), "soma(0.2)": difflab.Step(0.04, 1.0, 4.0)})
    assert float(cell.stimulus_density(two, 2.0)) == pytest.approx(9.00605, rel=1e-5)  # one compartment: they add


def _with_area(area):
    return HodgkinHuxley.squid_axon(area=area)


def test_an_iclamp_needs_the_area_and_the_area_must_be_positive():
    clamp = difflab.neuron.IClamp({"soma(0.5)": difflab.Step(0.1, 1.0, 4.0)})
    with pytest.raises(ValueError, match=r"an IClamp gives currents in nA.*pass area= \(µm²"):
        difflab.simulate(HodgkinHuxley.squid_axon(), clamp, TS)
    with pytest.raises(ValueError, match=r"area must be > 0 um\^2"):
        _with_area(-5.0)
