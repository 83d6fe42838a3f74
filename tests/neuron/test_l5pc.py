"""The L5 pyramidal cell builder (`difflab.neuron.l5pc`) from the shipped BluePyOpt parameters file.

Reference: `datasets/neuron/l5pc.nc` (NEURON 9.0.2, the same cell built from the same file, CVODE at 1e-9).
"""

import copy
import json

import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.neuron import IClamp, l5pc, spike_times

# with the validation case of tests/validation/test_l5pc_cases.py: both relax the cell to rest with one compiled solve
pytestmark = pytest.mark.xdist_group("l5pc")


@pytest.fixture(scope="module")
def spec():
    return json.loads(difflab.datasets.path("neuron/l5pc_parameters.json").read_text())


@pytest.fixture(scope="module")
def cell():
    return l5pc()


def test_cell_has_bluepyopts_morphology_and_globals(cell):
    """699 compartments: nseg 1 + 2 int(L/40) everywhere, the axon a 2 × 30 µm stub; 34 °C, v_init −65 mV."""
    morph = cell.morphology
    assert (len(morph.sections), morph.n_segments) == (199, 699)
    assert [s.name for s in morph.sections if s.region == "axon"] == ["axon[0]", "axon[1]"]
    assert float(cell.celsius) == 34.0 and float(cell.v_init) == -65.0


def test_default_step_follows_the_axons_stiffness(cell):
    """Σḡ/cm: axon 5246.4 mS/µF (NaTa_t 3138, SKv3_1 1022, K_Pst 974, ...), soma 1297.3, ratio 5.37 over the
    bound 976.9 -> 0.025 / 8 ms."""
    morph = cell.morphology
    G = np.asarray(cell.max_conductance())
    region = np.array([morph.sections[k].region for k in morph.seg_section])
    assert G[region == "axon"].max() == pytest.approx(5246.413, rel=1e-12)
    assert G[region == "soma"].max() == pytest.approx(1297.271, rel=1e-12)
    assert cell.default_dt0() == 0.003125


def test_regions_follow_the_parameters_file(cell, spec):
    """Every range value of the file (S/cm² × 1000), the pools, cm, Ra, e_pas and the reversal potentials."""
    regions = {"somatic": "soma", "axonal": "axon", "apical": "apic", "basal": "dend"}
    params = cell.parameters()
    for lst, r in regions.items():
        entry = spec["regions"][lst]
        assert sorted(cell.regions[r].channels) + sorted(cell.regions[r].concentrations) == sorted(
            [m for m in entry["mechanisms"] if m != "CaDynamics_E2"] + ["pas"]
        ) + (["ca"] if "CaDynamics_E2" in entry["mechanisms"] else [])
        for p in entry["range"].values():
            mech = p["mechanism"]
            name = f"{r}.gbar_{mech}" if p["parameter"] == f"g{mech}bar" else f"{r}.{p['parameter']}_{mech}"
            scale = 1000 if name.startswith(f"{r}.gbar") else 1
            assert float(params[name]) == pytest.approx(p["value"] * scale, rel=1e-14), name
        assert float(params[f"{r}.g_pas"]) == pytest.approx(0.03, rel=1e-14) and float(params[f"{r}.E_pas"]) == -75.0
        assert float(params[f"{r}.Ra"]) == 100.0
    assert [float(params[f"{r}.cm"]) for r in ("soma", "axon", "apic", "dend")] == [1.0, 1.0, 2.0, 2.0]
    assert float(params["soma.E_NaTs2_t"]) == 50.0 and float(params["axon.E_K_Pst"]) == -85.0
    assert float(params["apic.E_Ih"]) == -45.0 and float(params["axon.decay_CaDynamics_E2"]) == 287.198731


def test_apical_ih_rises_exponentially(cell):
    """BluePyOpt's (-0.8696 + 2.087 exp(0.0031 d)) × 8e-5 S/cm² at every apical compartment's centre."""
    morph = cell.morphology
    ih = {name: ch for name, ch, _ in cell.segment_channels()}["Ih"]
    apic = np.array([morph.sections[k].region == "apic" for k in morph.seg_section])
    d = morph.path_distances()[apic]
    want = (-0.8696 + 2.087 * np.exp(d * 0.0031)) * 0.08
    np.testing.assert_allclose(np.asarray(ih.gbar)[apic], want, rtol=1e-12)
    assert d.max() > 1000.0 and np.asarray(ih.gbar)[apic].max() > 1.0  # the distal tuft: ~15 × the soma's


def test_unknown_distribution_is_refused(spec):
    bad = copy.deepcopy(spec)
    bad["regions"]["apical"]["range"]["gIhbar_Ih"]["distribution"] = "sigmoid"
    with pytest.raises(ValueError, match=r"distribution 'sigmoid' of gIhbar_Ih.apical .* must be 'uniform' or"):
        l5pc(bad)


def test_backpropagating_action_potential_matches_neuron(cell):
    """BluePyOpt's bAP protocol (1.9 nA for 5 ms at 295 ms) at a step of 0.0125 ms over [290, 330] ms, after the
    cell relaxed to rest at NEURON's 0.025 ms over [0, 290) ms (as the validation case `neuron_l5pc_bap` runs it:
    nothing faster than the passive time constants happens there: every figure below is the same to 1e-8 as with
    0.0125 ms from 0 ms, for 25 % less time).

    Against NEURON: the somatic spike (-20 mV crossing) within 0.01 ms (measured 0.0023), the bAP's amplitude at
    the apical sites 654 and 810 µm from the soma within 0.3 mV (measured 0.085 and 0.079 of 53.3 and 30.6 mV), V
    there within 0.5 mV over [290, 330] ms (measured 0.31, 0.20). At 0.025 ms the spike is 0.004 ms early and the
    amplitudes 0.6 mV high; at 0.00625 ms 0.0008 ms and 0.015 mV. In every one of the 699 compartments
    (`l5pc_bap.nc`: 14–115 mV) the amplitude is within 0.3 mV (measured 0.17, in the axon; median 0.05) and the
    peak's time within one sample (0.025 ms).
    """
    ref = difflab.datasets.load("neuron/l5pc")
    every = difflab.datasets.load("neuron/l5pc_bap")
    ts = ref.time_bap.values
    keep = (ts >= 290.0) & (ts <= 330.0)  # every 0.025 ms around the pulse
    ts, want = ts[keep], ref.V_bap.values[keep]
    locations = [str(w) for w in ref.location.values]
    record, info = cell.recorder(locations)
    V_info = next(s for s in cell.states if s.name == "V")

    def observe(t, y, protocol):
        return {**record(t, y, protocol), "V": y["V"]}  # the sites, and every compartment

    clamp = IClamp({"soma[0](0.5)": difflab.Step(1.9, 295.0, 300.0)})
    rest = difflab.simulate(cell, clamp, jnp.asarray([0.0, 290.0]), dt0=0.025)
    y0 = {k: v[-1] for k, v in rest.ys.items()}
    traj = difflab.simulate(cell, clamp, jnp.asarray(ts), y0=y0, dt0=0.0125, observe=observe,
                            observe_info=(*info, V_info))  # fmt: skip
    got = np.stack([np.asarray(traj.ys[w]) for w in locations], axis=1)

    def spike(V):
        return float(spike_times(jnp.asarray(ts), jnp.asarray(V), threshold=-20.0)[0])

    assert abs(spike(got[:, 0]) - spike(want[:, 0])) < 0.01
    assert abs(spike(want[:, 0]) - float(ref.spike_times.sel(protocol="bAP")[0])) < 0.003  # sampled vs NetCon
    window, before = ts >= 295.0, np.flatnonzero(ts < 295.0)[-1]
    for j in (1, 2):
        amplitude = got[window, j].max() - want[before, j]
        assert amplitude == pytest.approx(want[window, j].max() - want[before, j], abs=0.3), locations[j]
        assert np.max(np.abs(got[window, j] - want[window, j])) < 0.5, locations[j]
    morph = cell.morphology
    names = [f"{s.name}({(i + 0.5) / s.nseg:.6g})" for s in morph.sections for i in range(s.nseg)]
    V = np.asarray(traj.ys["V"])
    assert V.shape == (ts.size, 699) and names == [str(n) for n in every.segment.values]
    np.testing.assert_allclose(V[window].max(axis=0) - V[before], every.amplitude.values, rtol=0, atol=0.3)
    np.testing.assert_allclose(ts[window][V[window].argmax(axis=0)], every.t_peak.values, rtol=0, atol=0.026)
