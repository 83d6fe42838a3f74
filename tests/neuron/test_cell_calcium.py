"""Calcium in multi-compartment cells: the concentration mechanism per region, against the point cell and NEURON 9.

References: `datasets/neuron/l5pc_channels.nc` (the L5PC soma's current clamp, CVODE at 1e-10) and
`datasets/neuron/calcium_cell.nc` (a soma, an apical tree and a basal dendrite with Hay's mechanisms, CVODE at 1e-9).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _systems import l5pc_soma_calcium, l5pc_soma_channels

import difflab
from difflab.neuron import Cell, Exponential, HodgkinHuxley, IClamp, Morphology, Region, Section, spike_times
from difflab.neuron._solver import RushLarsenCN, crank_nicolson_coefficient, rush_larsen_cn_step
from difflab.neuron.channels import (
    SK_E2,
    AbstractConcentration,
    Ca_HVA,
    Ca_LVAst,
    CaDynamics_E2,
    Ih,
    NaTs2_t,
    SKv3_1,
    pas,
)

AREA_DIAM = 10 / np.sqrt(np.pi)  # µm: L = diam gives the reference's 100 µm² soma


SOMA_CA = l5pc_soma_calcium()


def _spikes(ts, V):
    got = np.asarray(spike_times(jnp.asarray(ts), jnp.asarray(V)))
    return got[np.isfinite(got)]


class _CrankNicolsonPointStep(RushLarsenCN):
    """The point cell's step with the cable step's Crank–Nicolson membrane update (the cable keeps it)."""

    def advance(self, model, protocol, t0, h, y0, V_prev, h_prev):
        return rush_larsen_cn_step(model, protocol, t0, h, y0, V_prev, h_prev, coefficient=crank_nicolson_coefficient)


@pytest.fixture(scope="module")
def one_compartment():
    """The point cell (with the cable's voltage update) and the one-compartment Cell on `l5pc_channels.nc`'s
    current clamp at 1/160 ms."""
    ref = difflab.datasets.load("neuron/l5pc_channels")
    ts = jnp.asarray(ref.cc_time.values)
    point = HodgkinHuxley(l5pc_soma_channels(), concentrations=SOMA_CA, celsius=34.0, v_init=-65.0)
    morph = Morphology([Section.cylinder("soma", AREA_DIAM, AREA_DIAM)])
    cell = Cell(morph, {"soma": Region(l5pc_soma_channels(), concentrations=SOMA_CA)}, celsius=34.0, v_init=-65.0)
    dt = 0.00625  # 10 µA/cm² on the point cell's 100 µm² is the Cell's 0.01 nA
    by_point = difflab.simulate(
        point, difflab.Step(10.0, 20.0, 220.0), ts, dt0=dt, solver=_CrankNicolsonPointStep()
    )  # 0.01 nA
    by_cell = difflab.simulate(cell, IClamp({"soma(0.5)": difflab.Step(0.01, 20.0, 220.0)}), ts, dt0=dt)
    return ref, ts, by_point, by_cell


def test_one_compartment_cell_equals_the_point_cell(one_compartment):
    """Same step (the point cell's, Crank–Nicolson, written for the tree): equal to rounding over 9 spikes."""
    _, _, by_point, by_cell = one_compartment
    # measured 1.3e-6 mV (rounding, amplified on the spikes' upstrokes) and 1.1e-10 relative
    np.testing.assert_allclose(np.asarray(by_cell.ys["V"])[:, 0], np.asarray(by_point.ys["V"]), rtol=0, atol=1e-5)
    np.testing.assert_allclose(np.asarray(by_cell.ys["cai"])[:, 0], np.asarray(by_point.ys["cai"]), rtol=1e-8)


def test_one_compartment_cell_matches_neuron(one_compartment):
    """The 9 spikes within 0.01 ms of NEURON's (measured 0.008), cai within 0.2 % (measured 0.056 %)."""
    ref, ts, _, by_cell = one_compartment
    got, want = _spikes(ts, by_cell.ys["V"][:, 0]), _spikes(ts, ref.cc_V.values)
    assert got.size == want.size == 9
    assert np.max(np.abs(got - want)) < 0.01, got - want
    np.testing.assert_allclose(np.asarray(by_cell.ys["cai"])[:, 0], ref.cc_cai.values, rtol=2e-3)


def _calcium_cell():
    """`calcium_cell.nc`'s cell: Hay's somatic and apical mechanisms, two pools, a basal dendrite without one."""
    S = Section.cylinder
    morph = Morphology([
        S("soma", 20.0, 20.0),
        S("apic[0]", 300.0, 3.0, parent="soma", nseg=7),
        S("apic[1]", 150.0, 1.5, parent="apic[0]", nseg=5),
        S("apic[2]", 120.0, 1.0, parent="apic[0]", nseg=3),
        S("dend[0]", 200.0, 1.0, parent="soma", parent_x=0.0, nseg=5),
    ])  # fmt: skip
    apic = {
        "NaTs2_t": NaTs2_t(gbar=26.145),
        "SKv3_1": SKv3_1(gbar=4.226, E=-85.0),
        "SK_E2": SK_E2(gbar=1.2, E=-85.0),
        "Ca_HVA": Ca_HVA(gbar=0.555),
        "Ca_LVAst": Ca_LVAst(gbar=18.7),
        "Ih": Ih(gbar=0.08),
        "pas": pas(g=0.03, E=-75.0),
    }
    regions = {
        "soma": Region(l5pc_soma_channels(), Ra=100.0, concentrations=SOMA_CA),
        "apic": Region(apic, cm=2.0, Ra=100.0, distributions={"gbar_Ih": Exponential(0.08)},
                       concentrations={"ca": CaDynamics_E2(gamma=0.000509, decay=122.0)}),
        "dend": Region({"Ih": Ih(gbar=0.08), "Ca_HVA": Ca_HVA(gbar=0.2), "pas": pas(g=0.03, E=-75.0)},
                       cm=2.0, Ra=100.0),
    }  # fmt: skip
    return Cell(morph, regions, celsius=34.0, v_init=-65.0)


STIMULUS = IClamp({"soma(0.5)": difflab.Step(0.6, 10.0, 60.0)})


@pytest.fixture(scope="module")
def calcium_run():
    ref = difflab.datasets.load("neuron/calcium_cell")
    cell = _calcium_cell()
    ts = jnp.asarray(ref.time.values)
    traj = difflab.simulate(cell, STIMULUS, ts, dt0=0.005)
    sites = [cell.morphology.node(w) for w in ref.location.values]
    return ref, ts, np.asarray(traj.ys["V"])[:, sites], np.asarray(traj.ys["cai"])[:, sites]


def test_calcium_cell_matches_neuron(calcium_run):
    """At 0.005 ms: spikes within 0.01 ms of NEURON's at the soma (6) and the apical trunk (3), cai within 1 %.

    Measured: spikes within 0.0013 ms, cai within 0.005 % at every site (at 0.025 ms: 0.0085 ms, 0.23 %; at the cell's
    default, 0.0125 ms: 0.0020 ms, 0.04 %). NEURON's spikes are its NetCon's, interpolated within CVODE's step; ours are
    read from the 0.025 ms samples by linear interpolation, which alone moves NEURON's own by up to 0.0011 ms.
    """
    ref, ts, V, cai = calcium_run
    locations = list(ref.location.values)
    for j, where in enumerate(ref.spike_location.values):
        want = ref.spike_times.values[:, j]
        want = want[np.isfinite(want)]
        got = _spikes(ts, V[:, locations.index(where)])
        assert got.size == want.size > 0, where
        assert np.max(np.abs(got - want)) < 0.01, (where, got - want)
    np.testing.assert_allclose(cai, ref.cai.values, rtol=0.01)
    assert np.max(np.abs(V[:, :5] - ref.V.values[:, :5])) < 0.5  # mV (measured 0.29, on a spike's upstroke)


def test_default_step_follows_the_somas_stiffness():
    """Hay's soma opens Σḡ/cm = 1297.3 mS/µF, 1.33 × the cell's bound 976.9: 0.0125 ms."""
    cell = _calcium_cell()
    assert float(np.max(cell.max_conductance())) == pytest.approx(1297.271, rel=1e-12)
    assert cell.default_dt0() == 0.0125


def test_calcium_stays_at_rest_where_no_mechanism_writes_it(calcium_run):
    """The basal dendrite has Ca_HVA but no pool: cai stays at 5e-5 mM (NEURON's cai0) and its eca at 132.458 mV."""
    ref, _, _, cai = calcium_run
    dend = [k for k, w in enumerate(ref.location.values) if w.startswith("dend")]
    assert np.all(cai[:, dend] == 5e-5) and np.all(ref.cai.values[:, dend] == 5e-5)
    assert float(Ca_HVA().E) == pytest.approx(float(ref.eca.sel(eca_location="dend[0](0.5)")[0]), abs=1e-9)
    assert np.max(ref.cai.values[:, 0]) > 2e-4  # the soma's pool did fill (NEURON: 2.7e-4 mM)


def test_pool_parameters_by_name():
    """`"<region>.<field>_<mechanism class>"` names each region's own value; a bad value is refused by that name."""
    cell = _calcium_cell()
    params = cell.parameters()
    assert float(params["soma.gamma_CaDynamics_E2"]) == 0.000609
    assert float(params["apic.decay_CaDynamics_E2"]) == 122.0
    assert "dend.gamma_CaDynamics_E2" not in params
    assert cell.aliases["apic.gamma_CaDynamics_E2"] == "regions.apic.concentrations.ca.gamma"
    names = [s.name for s in cell.states]
    assert names[-1] == "cai" and cell.initial_state()["cai"].shape == (cell.morphology.n_segments,)
    with pytest.raises(ValueError, match=r"apic.decay_CaDynamics_E2 must be > 0 ms"):
        cell.replace(**{"apic.decay_CaDynamics_E2": -1.0})


def test_gradient_through_a_regions_pool():
    """d(mean somatic V)/d(apical gamma) through cai, SK_E2 and eca in the cable: autodiff = central differences.

    A soma and a 3-compartment dendrite with Ca_HVA, SK_E2 and a pool in both (measured agreement 1e-7 relative).
    """
    morph = Morphology([Section.cylinder("soma", 20.0, 20.0),
                        Section.cylinder("apic", 200.0, 2.0, parent="soma", nseg=3)])  # fmt: skip
    keep = ("NaTs2_t", "SKv3_1", "SK_E2", "Ca_HVA", "pas")
    soma = {name: ch for name, ch in l5pc_soma_channels().items() if name in keep}
    apic = {"SK_E2": SK_E2(gbar=1.2, E=-85.0), "Ca_HVA": Ca_HVA(gbar=2.0), "pas": pas(g=0.03, E=-75.0)}
    pool = {"ca": CaDynamics_E2(gamma=0.000509, decay=122.0)}
    regions = {"soma": Region(soma, concentrations=SOMA_CA), "apic": Region(apic, cm=2.0, concentrations=pool)}
    cell = Cell(morph, regions, celsius=34.0)
    stimulus = IClamp({"soma(0.5)": difflab.Step(0.5, 2.0, 20.0)})
    ts = jnp.arange(0.0, 20.0, 0.025)

    def mean_v(gamma):
        model = cell.replace(**{"apic.gamma_CaDynamics_E2": gamma})
        return jnp.mean(difflab.simulate(model, stimulus, ts).ys["V"][:, 0])

    gamma, eps = 0.01, 1e-6
    grad = float(jax.grad(mean_v)(gamma))
    fd = (float(mean_v(gamma + eps)) - float(mean_v(gamma - eps))) / (2 * eps)
    assert np.isfinite(grad) and grad != 0.0
    assert grad == pytest.approx(fd, rel=1e-5)


class _OtherPool(AbstractConcentration):
    ion = "ca"
    state = "cai"
    valence = 2
    c_out: jax.Array
    c_init: jax.Array

    def __init__(self):
        self.c_out, self.c_init = jnp.asarray(2.0), jnp.asarray(5e-5)

    def linear_terms(self, current):
        return 1e-4 / 80.0 + 0 * current, 1 / 80.0

    def physical_checks(self, prefix):
        return {}


def test_refused_and_allowed_mechanisms():
    morph = Morphology([Section.cylinder("soma", 20.0, 20.0), Section.cylinder("dend", 100.0, 1.0, parent="soma")])
    leak = {"pas": pas()}
    with pytest.raises(ValueError, match="region 'dend': channel 'SK_E2' reads 'cai' but no concentration mechanism"):
        Cell(morph, {"soma": Region(leak, concentrations={"ca": CaDynamics_E2()}), "dend": Region({"SK_E2": SK_E2()})})
    with pytest.raises(ValueError, match=r"concentration mechanism of 'ca' must be of one class in every region"):
        Cell(morph, {"soma": Region(leak, concentrations={"ca": CaDynamics_E2()}),
                     "dend": Region(leak, concentrations={"ca": _OtherPool()})})  # fmt: skip
    with pytest.raises(ValueError, match=r"concentrations\['k'\] writes the ion 'ca'; use the key 'ca'"):
        Region(leak, concentrations={"k": CaDynamics_E2()})
    with pytest.raises(TypeError, match=r"concentrations\['ca'\] must be a concentration mechanism; got Ca_HVA"):
        Region(leak, concentrations={"ca": Ca_HVA()})
    # a pool without calcium channels is allowed (NEURON allows it): it stays at rest... relaxing to minCai
    cell = Cell(morph, {"soma": Region(leak, concentrations={"ca": CaDynamics_E2()}), "dend": Region(leak)})
    cai = difflab.simulate(cell, None, jnp.asarray([0.0, 200.0])).ys["cai"]
    np.testing.assert_allclose(np.asarray(cai[-1]), [1e-4 + (5e-5 - 1e-4) * np.exp(-200 / 80), 5e-5], rtol=1e-3)
