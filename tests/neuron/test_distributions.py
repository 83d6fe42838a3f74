"""Densities that vary with the path distance from the soma: distances, closed forms, names, gradients, bad input."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.neuron import (
    Cell,
    Exponential,
    IClamp,
    Ih,
    Linear,
    Morphology,
    Region,
    Section,
    Sigmoid,
    Uniform,
    Window,
    pas,
)


def _tree():
    """soma (20 µm) with apic at soma(1) (1000 µm, 10 compartments), a basal dend at soma(0.5) (100 µm, 2) and a
    branch at apic(0.3) (200 µm, 4)."""
    return Morphology(
        [
            Section.cylinder("soma", 20.0, 20.0),
            Section.cylinder("apic[0]", 1000.0, 2.0, parent="soma", nseg=10),
            Section.cylinder("dend", 100.0, 1.0, parent="soma", parent_x=0.5, nseg=2),
            Section.cylinder("apic[1]", 200.0, 1.0, parent="apic[0]", parent_x=0.3, nseg=4),
        ]
    )


def test_path_distances_are_neurons_distance_from_the_soma_centre():
    d = _tree().path_distances()
    apic0 = 10.0 + (np.arange(10) + 0.5) * 100.0  # soma(1) is 10 µm from soma(0.5)
    dend = 0.0 + (np.arange(2) + 0.5) * 50.0  # attached at soma(0.5): distance 0
    apic1 = 10.0 + 300.0 + (np.arange(4) + 0.5) * 50.0  # apic[0](0.3) is 10 + 300 µm away
    morph = _tree()
    for name, want in [("soma", [0.0]), ("apic[0]", apic0), ("dend", dend), ("apic[1]", apic1)]:
        k = morph.names.index(name)
        got = d[morph.seg_start[k] : morph.seg_start[k] + morph.sections[k].nseg]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def _cell(distribution):
    channels = {"Ih": Ih(gbar=0.08), "pas": pas(g=0.03, E=-75.0)}
    regions = {
        "soma": Region(dict(channels)),
        "apic": Region(dict(channels), distributions={"gbar_Ih": distribution}),
        "dend": Region(dict(channels)),
    }
    return Cell(_tree(), regions, celsius=34.0)


@pytest.mark.parametrize(
    ("distribution", "closed_form"),
    [
        (Uniform(0.5), lambda d: np.full_like(d, 0.5)),
        (Linear(0.1, 0.002), lambda d: 0.1 + 0.002 * d),
        (Exponential(0.08), lambda d: 0.08 * (-0.8696 + 2.087 * np.exp(0.0031 * d))),
        (Sigmoid(2.0, 0.25, 500.0, 50.0), lambda d: 2.0 * (0.25 + 0.75 / (1 + np.exp(-(d - 500.0) / 50.0)))),
        (Window(1.0, 0.1, 685.0, 885.0), lambda d: np.where((d >= 685.0) & (d <= 885.0), 1.0, 0.1)),
    ],
)
def test_each_distribution_gives_its_closed_form_in_its_region_only(distribution, closed_form):
    cell = _cell(distribution)
    gbar = np.asarray({c: ch for c, ch, _ in cell.segment_channels()}["Ih"].gbar)
    d = cell.morphology.path_distances()
    apic = np.array([cell.morphology.sections[k].region == "apic" for k in cell.morphology.seg_section])
    np.testing.assert_allclose(gbar[apic], closed_form(d[apic]), rtol=1e-14)
    np.testing.assert_array_equal(gbar[~apic], 0.08)  # the other regions keep the channel's own value


def test_distribution_parameters_are_named_replaceable_and_differentiable():
    cell = _cell(Exponential(0.08))
    for name in ("apic.gbar_Ih", "apic.gbar_Ih.a", "apic.gbar_Ih.b", "apic.gbar_Ih.rate"):
        assert name in cell.aliases
    assert float(cell.replace(**{"apic.gbar_Ih.rate": 0.002}).regions["apic"].distributions["gbar_Ih"].rate) == 0.002
    d = cell.morphology.path_distances()
    apic = np.array([cell.morphology.sections[k].region == "apic" for k in cell.morphology.seg_section])

    def total(rate):
        channels = {c: ch for c, ch, _ in cell.replace(**{"apic.gbar_Ih.rate": rate}).segment_channels()}
        return jnp.sum(jnp.where(apic, channels["Ih"].gbar, 0.0))

    exact = np.sum(0.08 * 2.087 * d[apic] * np.exp(0.0031 * d[apic]))  # d/drate of the apical densities' sum
    np.testing.assert_allclose(jax.grad(total)(0.0031), exact, rtol=1e-12)
    # and through a solve: the soma's potential responds to the apical Ih density's scale
    ts, stim = jnp.linspace(0.0, 5.0, 6), IClamp({"soma(0.5)": difflab.Step(0.1, 1.0, 4.0)})
    grad = jax.grad(lambda g: difflab.simulate(cell.replace(**{"apic.gbar_Ih": g}), stim, ts)["V"][-1, 0])(0.08)
    assert np.isfinite(grad) and grad != 0.0


def test_bad_distributions_are_refused_by_name():
    unknown = (
        r"distributions\['gbar_NaTs2_t'\] must name a parameter of a channel of this region as '<field>_<channel>'"
    )
    with pytest.raises(ValueError, match=unknown + r"; the region's are E_Ih, gbar_Ih"):
        Region({"Ih": Ih()}, distributions={"gbar_NaTs2_t": Uniform(1.0)})
    with pytest.raises(TypeError, match=r"distributions\['gbar_Ih'\] must be a distribution .*; got 0\.5"):
        Region({"Ih": Ih()}, distributions={"gbar_Ih": 0.5})
    with pytest.raises(ValueError, match=r"distributions\['gbar_Ih'\]\.value must be a scalar; got shape \(2,\)"):
        Region({"Ih": Ih()}, distributions={"gbar_Ih": Uniform(jnp.array([1.0, 2.0]))})
    with pytest.raises(ValueError, match=r"slope must be finite"):
        Linear(0.1, float("nan"))
    # a density that turns negative somewhere along the region (0.1 - 0.001 · 960 µm at the apical tip)
    with pytest.raises(ValueError, match=r"apic.gbar_Ih must be >= 0 mS/cm\^2 in every compartment; got -0\.86"):
        _cell(Linear(0.1, -0.001))


def test_a_leak_given_in_siemens_is_flagged_by_its_time_constant():
    """g_pas 3e-5 (S/cm², the L5PC's) typed into mS/cm²: tau = 2 µF/cm² / 3e-5 mS/cm² = 66.7 s, flagged; the
    same leak in mS/cm² (0.03: 66.7 ms) and the squid axon (gL 0.3: 3.3 ms) are not."""
    import warnings

    from difflab.neuron import HodgkinHuxley, LeakChannel, Region

    with pytest.warns(UserWarning, match=r"channels\['pas'\]\.g = 3e-05 mS/cm² gives a resting membrane time "
                                         r"constant of 66\.7 s .* looks like S/cm² .* multiply by 1000"):  # fmt: skip
        Region({"pas": pas(g=3e-5, E=-75.0)}, cm=2.0)
    with pytest.warns(UserWarning, match=r"channels\['leak'\]\.g = 0\.0003 mS/cm² .* 3\.33 s"):
        HodgkinHuxley({"leak": LeakChannel(g=3e-4, E=-54.3)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Region({"pas": pas(g=0.03, E=-75.0)}, cm=2.0)
        HodgkinHuxley.squid_axon()
        Region({"pas": pas(g=0.0, E=-75.0)})  # no leak at all is not a unit slip
