"""The L5PC channel library against NEURON 9 running the original .mod files (datasets/neuron/l5pc_channels.nc).

Gate curves are closed-form, so they must agree to rounding; the voltage-clamp currents are integrated here with
the library's vector field at a tight tolerance (V held at the command), against NEURON's CVODE at 1e-10.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import difflab
from difflab.neuron import HodgkinHuxley
from difflab.neuron.channels import (
    SK_E2,
    Ca_HVA,
    Ca_LVAst,
    CaDynamics_E2,
    Ih,
    Im,
    K_Pst,
    K_Tst,
    Nap_Et2,
    NaTa_t,
    NaTs2_t,
    SKv3_1,
    nernst,
    pas,
)
from difflab.neuron.channels.calcium import ECA_DEFAULT

CHANNELS = {
    "NaTs2_t": NaTs2_t,
    "NaTa_t": NaTa_t,
    "Nap_Et2": Nap_Et2,
    "K_Tst": K_Tst,
    "K_Pst": K_Pst,
    "SKv3_1": SKv3_1,
    "SK_E2": SK_E2,
    "Ca_HVA": Ca_HVA,
    "Ca_LVAst": Ca_LVAst,
    "Ih": Ih,
    "Im": Im,
}
VOLTAGE_GATED = [name for name in CHANNELS if name != "SK_E2"]
# potentials where the .mod divides 0/0 and NEURON evaluates at V + 1e-4 mV instead
SINGULAR = {"NaTs2_t": (-32.0, -60.0), "NaTa_t": (-38.0, -66.0), "Nap_Et2": (-38.0, -17.0, -64.4), "Ca_HVA": (-27.0,)}
SINGULAR_ALL = {"Ih": (-154.9,)} | SINGULAR
# the generator's voltage-clamp settings (S/cm² there, mS/cm² here)
VC_GBAR = {"NaTs2_t": 0.1, "NaTa_t": 0.1, "Nap_Et2": 0.01, "K_Tst": 0.05, "K_Pst": 0.05, "SKv3_1": 0.1}
VC_GBAR |= {"SK_E2": 0.01, "Ca_HVA": 0.001, "Ca_LVAst": 0.001, "Ih": 0.001, "Im": 0.01}
VC_STEPS = ((-70.0, 10.0), (-20.0, 40.0), (-70.0, 20.0), (20.0, 40.0), (-110.0, 60.0), (-70.0, 30.0))
REVERSAL = {"na": 50.0, "k": -85.0}


@pytest.fixture(scope="module")
def ref():
    return difflab.datasets.load("neuron/l5pc_channels")


def _gate_name(gate: str) -> str:
    return gate.split("_", 1)[0]


@pytest.mark.parametrize("name", VOLTAGE_GATED)
def test_gate_curves_match_neuron(ref, name):
    """x∞ and τx of every gate on −100…50 mV: 1e-12 relative, 1e-4 at the .mod's shifted singular points."""
    V = ref.voltage.values
    a_b = CHANNELS[name]().rates(jnp.asarray(V), jnp.asarray(34.0))
    singular = np.isin(V, SINGULAR.get(name, ()))
    for gate, (a, b) in a_b.items():
        inf, tau = np.asarray(a / (a + b)), np.asarray(1 / (a + b))
        want_inf = ref[f"{name}_{_gate_name(gate)}_inf"].values
        want_tau = ref[f"{name}_{_gate_name(gate)}_tau"].values
        np.testing.assert_allclose(inf[~singular], want_inf[~singular], rtol=1e-12, atol=1e-300, err_msg=gate)
        np.testing.assert_allclose(tau[~singular], want_tau[~singular], rtol=1e-12, err_msg=gate)
        np.testing.assert_allclose(inf[singular], want_inf[singular], rtol=1e-4, err_msg=gate)
        np.testing.assert_allclose(tau[singular], want_tau[singular], rtol=1e-4, err_msg=gate)


def test_sk_e2_calcium_curve_matches_neuron(ref):
    cai = jnp.asarray(ref.cai.values)
    a, b = SK_E2().rates(jnp.asarray(-65.0), jnp.asarray(34.0), cai=cai)["z_SK_E2"]
    np.testing.assert_allclose(np.asarray(a / (a + b)), ref.SK_E2_z_inf.values, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(1 / (a + b)), float(ref.SK_E2_z_tau), rtol=1e-14)


def test_nernst_and_default_eca_match_neuron():
    # NEURON 9.0.2 at 34 °C: eca 140.23660113151266 mV for cai0 5e-5, cao 2 mM; eca 132.4579341637009 mV default
    assert float(nernst(5e-5, 2.0, 2, 34.0)) == pytest.approx(140.23660113151266, rel=1e-14)
    assert ECA_DEFAULT == 132.4579341637009


def _clamp_cell(name):
    """The generator's voltage-clamp cell: the channel alone, Ca channels and SK_E2 with calcium dynamics."""
    cls = CHANNELS[name]
    gbar = 1000 * VC_GBAR[name]
    channel = cls(gbar=gbar, E=REVERSAL[cls.ion]) if cls.ion in REVERSAL else cls(gbar=gbar)
    channels = {name: channel}
    concentrations = None
    if name in ("Ca_HVA", "Ca_LVAst", "SK_E2"):
        concentrations = {"ca": CaDynamics_E2()}
    if name == "SK_E2":
        channels["Ca_HVA"] = Ca_HVA(gbar=1000 * VC_GBAR["Ca_HVA"])
    return HodgkinHuxley(channels, celsius=34.0, v_init=VC_STEPS[0][0], concentrations=concentrations)


def _voltage_clamp(cell, name, times):
    """The channel's current (mA/cm²) and cai with V held at the command, by DOP853 at rtol 1e-12."""
    y0 = cell.initial_state()
    keys = [k for k in y0 if k != "V"]

    @jax.jit
    def rhs(t, x, V):
        y = {k: x[i] for i, k in enumerate(keys)} | {"V": V}
        dy = cell.vector_field(t, y, None)
        return jnp.stack([dy[k] for k in keys])

    @jax.jit
    def current(x, V):
        y = {k: x[i] for i, k in enumerate(keys)} | {"V": V}
        ch = cell.channels[name]
        return ch.conductance(y) * (V - ch.reversal(cell.ion_reversals(y))) / 1000

    x = np.array([float(y0[k]) for k in keys])
    edges = np.cumsum([0.0] + [d for _, d in VC_STEPS])
    I, ca = np.empty_like(times), np.full_like(times, np.nan)
    for k, (V, _) in enumerate(VC_STEPS):
        inside = (times > edges[k]) & (times < edges[k + 1])
        V_ = jnp.asarray(V)
        sol = solve_ivp(
            lambda t, x, V_=V_: np.asarray(rhs(t, jnp.asarray(x), V_)),
            (edges[k], edges[k + 1]),
            x,
            method="DOP853",
            rtol=1e-12,
            atol=1e-16,
            dense_output=True,
        )
        inner = sol.sol(times[inside])
        I[inside] = [float(current(jnp.asarray(s), V_)) for s in inner.T]
        if "cai" in keys:
            ca[inside] = inner[keys.index("cai")]
        x = sol.y[:, -1]
    return I, ca


@pytest.mark.parametrize("name", list(CHANNELS))
def test_voltage_clamp_currents_match_neuron(ref, name):
    """Each channel under six clamp steps (200 ms): current within 1e-6 of its peak, cai within 1e-5."""
    times = ref.vc_time.values
    I, ca = _voltage_clamp(_clamp_cell(name), name, times)
    want = ref[f"vc_{name}_current"].values
    scale = np.max(np.abs(want))
    assert np.max(np.abs(I - want)) < 1e-6 * scale, np.max(np.abs(I - want)) / scale
    if f"vc_{name}_cai" in ref:
        want_ca = ref[f"vc_{name}_cai"].values
        # NEURON's CVODE holds cai (5e-5 to 3e-2 mM) to its absolute tolerance 1e-10 mM
        np.testing.assert_allclose(ca, want_ca, rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_rates_and_gradients_finite_at_singular_voltages(dtype):
    for name, points in SINGULAR_ALL.items():
        channel = CHANNELS[name]()
        for V0 in points:
            V = jnp.asarray(V0, dtype)

            def total(v, channel=channel):
                return sum(a + b for a, b in channel.rates(v, jnp.asarray(34.0, dtype)).values())

            value, grad = jax.value_and_grad(total)(V)
            assert np.isfinite(value) and np.isfinite(grad), (name, V0, value, grad)
    grad = jax.grad(lambda c: SK_E2().rates(jnp.asarray(-65.0), jnp.asarray(34.0), cai=c)["z_SK_E2"][0])
    assert np.isfinite(grad(jnp.asarray(1e-7))) and np.isfinite(grad(jnp.asarray(0.0)))


def test_bad_inputs_refused_by_name():
    with pytest.raises(ValueError, match="gbar must be >= 0"):
        NaTs2_t(gbar=-1.0)
    with pytest.raises(ValueError, match="gbar must be finite"):
        K_Tst(gbar=float("nan"))
    with pytest.raises(ValueError, match="decay must be > 0 ms"):
        CaDynamics_E2(decay=0.0)
    with pytest.raises(ValueError, match="depth must be > 0 um"):
        CaDynamics_E2(depth=-0.1)
    with pytest.raises(ValueError, match=r"gamma must lie in \[0, 1\]"):
        CaDynamics_E2(gamma=1.5)
    with pytest.raises(ValueError, match="gamma must be finite"):
        CaDynamics_E2(gamma=float("nan"))
    with pytest.raises(ValueError, match="channel 'sk' reads 'cai' but no concentration mechanism writes it"):
        HodgkinHuxley({"sk": SK_E2(), "pas": pas()})
    cell = HodgkinHuxley({"hva": Ca_HVA(), "pas": pas()}, celsius=34.0, concentrations={"ca": CaDynamics_E2()})
    with pytest.raises(ValueError, match=r"concentrations.ca.decay must be > 0 ms"):
        cell.replace(**{"concentrations.ca.decay": -1.0}).validate()
    with pytest.raises(ValueError, match=r"channels.hva.gbar must be >= 0"):
        cell.replace(**{"channels.hva.gbar": -1.0}).validate()
    with pytest.raises(ValueError, match=r"y0\['cai'\] must be > 0 mM"):
        cell.check_state(cell.initial_state() | {"cai": jnp.asarray(-1e-4)})
