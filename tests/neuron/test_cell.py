"""Multi-compartment cells: NEURON's geometry, the tree solve, a passive cable's exact profile, order 2,
NEURON's ball-and-stick spikes, gradients, batches and parameters by region."""

import json
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from _host_devices import run_with_default_compiler

import difflab
from difflab.neuron import Cell, IClamp, LeakChannel, Morphology, Region, Section, spike_times
from difflab.neuron._cable_solver import cable_step, hines_solve


@pytest.fixture(scope="module")
def reference():
    return difflab.datasets.load("neuron/ball_and_stick")


def test_geometry_is_neurons(reference):
    """Areas (µm²) and resistances to the parent node (MΩ) equal NEURON's seg.area() and seg.ri()."""
    cell = Cell.ball_and_stick()
    m = cell.morphology
    g = np.asarray(cell.axial_conductance())
    np.testing.assert_allclose(m.area[: m.n_segments], reference["area"].values, rtol=1e-12)
    np.testing.assert_allclose(1 / g[: m.n_segments], reference["ri"].values, rtol=1e-12)


def test_tapered_section_integrates_frusta():
    """A cone 10 → 2 µm over 100 µm in one segment: lateral area and ∫4Ra/(πd²) dx exactly."""
    sec = Section("cone", "dend", ((0, 0, 0, 10.0), (100, 0, 0, 2.0)), nseg=1)
    m = Morphology([Section.cylinder("soma", 10, 10), Section("cone", "dend", sec.points, "soma", 1.0, 1)])
    d = lambda s: 10 - 8 * s / 100  # noqa: E731
    slant = np.sqrt(50**2 + 2**2)
    expected_area = np.pi * (d(0) + d(50)) / 2 * slant + np.pi * (d(50) + d(100)) / 2 * slant
    assert m.area[1] == pytest.approx(expected_area, rel=1e-12)
    # left half to the soma's 1-end: 1e-2 · 4·50/(π d0 d50) MΩ per Ω·cm
    assert m.q[1] == pytest.approx(1e-2 * 4 * 50 / (np.pi * d(0) * d(50)), rel=1e-12)


def test_hines_solve_matches_dense_solve():
    """The level-by-level elimination on a branched tree equals a dense solve of the same matrix."""
    secs = [Section.cylinder("soma", 10, 10, nseg=3)]
    secs += [Section.cylinder(f"d{i}", 50 + 10 * i, 1.0 + i / 4, parent=p, parent_x=x, nseg=2 + i % 3)
             for i, (p, x) in enumerate([("soma", 1.0), ("soma", 0.0), ("soma", 0.5), ("d0", 1.0), ("d0", 1.0),
                                         ("d3", 0.3)])]  # fmt: skip
    m = Morphology(secs)
    rng = np.random.default_rng(0)
    n = m.n_nodes
    diag, upper, lower, rhs = (rng.uniform(1, 2, n) + 4, rng.uniform(-1, 0, n), rng.uniform(-1, 0, n),
                               rng.normal(size=n))  # fmt: skip
    dense = np.diag(diag)
    for i, p in enumerate(m.parent):
        if p >= 0:
            dense[i, p], dense[p, i] = upper[i], lower[i]
    x = hines_solve(m, *map(jnp.asarray, (diag, upper, lower, rhs)))
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(dense, rhs), rtol=1e-12, atol=1e-12)


def test_passive_cable_matches_the_cable_equation():
    r"""Sealed cable, current $I$ at one end, steady state: $V - E = I r_a λ \cosh((L-x)/λ)/\sinh(L/λ)$."""
    L, d, Ra, g = 1000.0, 2.0, 100.0, 0.1  # µm, µm, Ω·cm, mS/cm²
    m = Morphology([Section.cylinder("cable", L, d, nseg=101)])
    cell = Cell(m, {"cable": Region({"leak": LeakChannel(g, -65.0)}, Ra=Ra)})
    I = 0.05  # nA
    # 10 membrane time constants; Crank–Nicolson damps the fastest cable mode by 0.98 per 0.1 ms step
    traj = difflab.simulate(cell, IClamp({"cable(0.001)": difflab.Constant(I)}), jnp.array([0.0, 100.0]), dt0=0.1)
    lam = np.sqrt(d * 1e-4 / (4 * Ra * g * 1e-3)) * 1e4  # µm
    ra = 4 * Ra / (np.pi * (d * 1e-4) ** 2) * 1e-6  # MΩ/cm
    x = (np.arange(101) + 0.5) / 101 * L
    exact = -65.0 + I * ra * lam * 1e-4 * np.cosh((L - x) / lam) / np.sinh(L / lam)
    np.testing.assert_allclose(np.asarray(traj["V"][-1]), exact, rtol=0, atol=2e-3 * (exact[0] + 65))


@pytest.fixture(scope="module")
def short_run():
    """A jitted ball-and-stick run over 0..12 ms (one somatic spike) with the step as an argument."""
    cell = Cell.ball_and_stick(nseg=7)
    stim = IClamp({"soma(0.5)": difflab.Step(0.4, 1.0, 12.0)})
    ts = jnp.linspace(0.0, 12.0, 49)

    @eqx.filter_jit
    def run(cell, dt):  # dt is passed as an array: one compilation for every step size
        return difflab.simulate(cell, stim, ts, dt0=dt, max_steps=4000)["V"]

    return cell, run


def test_second_order(short_run):
    cell, run = short_run
    ref = run(cell, jnp.asarray(12.0 / 3840))
    errors = [float(jnp.max(jnp.abs(run(cell, jnp.asarray(12.0 / n)) - ref))) for n in (240, 480, 960)]
    slopes = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all((slopes > 1.7) & (slopes < 2.4)), (errors, slopes)


def test_ball_and_stick_matches_neuron(reference):
    """Default step (0.025 ms): first spike within 0.05 ms at the soma and the distal dendrite, V at five places.

    The whole 60 ms run is the validation case `neuron_ball_and_stick`."""
    cell = Cell.ball_and_stick()
    stim = IClamp({"soma(0.5)": difflab.Step(0.25, 5.0, 45.0), "dend(0.8)": difflab.Step(0.1, 20.0, 30.0)})
    ts = reference["time"].values[:721]  # 0..18 ms: the first spike at both sites
    observe, info = cell.recorder(list(reference["location"].values))
    traj = difflab.simulate(cell, stim, ts, observe=observe, observe_info=info)
    for k, loc in enumerate(reference["location"].values):
        V_ref = reference["V"].values[:721, k]
        assert np.sqrt(np.mean((np.asarray(traj[loc]) - V_ref) ** 2)) < 0.05, loc
    for site in reference["spike_site"].values:
        ref = reference["spike_times"].sel(spike_site=site).values
        ref = ref[np.isfinite(ref) & (ref < ts[-1])]
        got = np.asarray(spike_times(ts, traj[site]))
        got = got[np.isfinite(got)]
        assert got.size == ref.size == 1
        assert np.max(np.abs(got - ref)) < 0.05, (site, got, ref)


def test_gradient_wrt_regional_parameters():
    """Reverse-mode gradients of the cable step wrt densities, Ra and cm by region equal central differences."""
    cell = Cell.ball_and_stick(nseg=5)
    stim = IClamp({"soma(0.5)": difflab.Step(0.4, 0.0, 12.0)})
    names = ["dend.gbar_na", "dend.gbar_k", "soma.Ra", "dend.cm"]
    y0 = cell.initial_state()
    y0 = {**y0, "V": y0["V"] + jnp.linspace(0.0, 30.0, 6)}  # off rest, so that every parameter matters

    def loss(values):
        model = cell.replace(**dict(zip(names, values, strict=True)))
        y1 = cable_step(model, stim, 0.0, 0.05, y0, y0["V"], 0.0)[0]
        return jnp.sum(y1["V"] ** 2) + jnp.sum(y1["m"])

    x = jnp.array([30.0, 10.0, 100.0, 1.0])
    grad = jax.jit(jax.grad(loss))(x)
    for k in range(len(names)):
        e = jnp.zeros(4).at[k].set(1e-4 * x[k])
        fd = (loss(x + e) - loss(x - e)) / (2e-4 * x[k])
        assert float(grad[k]) == pytest.approx(float(fd), rel=1e-5), names[k]


def test_batch_equals_single_runs(short_run):
    cell, run = short_run
    batch = difflab.make_batch(cell, **{"dend.gbar_na": jnp.array([10.0, 30.0, 60.0])})
    V = eqx.filter_vmap(run, in_axes=(0, None))(batch, jnp.asarray(0.05))
    single = run(cell.replace(**{"dend.gbar_na": 60.0}), jnp.asarray(0.05))
    np.testing.assert_allclose(np.asarray(V[2]), np.asarray(single), rtol=1e-12)
    assert not np.allclose(np.asarray(V[0]), np.asarray(V[2]))


def test_parameters_by_region_and_branch():
    cell = Cell.ball_and_stick(nseg=3)
    changed = cell.replace(**{"dend.gbar_na": 7.0})
    gbar = np.asarray(changed.segment_channels()[0][1].gbar)
    np.testing.assert_array_equal(gbar, [120.0, 7.0, 7.0, 7.0])
    assert changed.resolve("soma.Ra") == "regions.soma.Ra"
    # per-branch values: one per section of the region
    secs = [Section.cylinder("soma", 10, 10), Section.cylinder("dend[0]", 50, 1, parent="soma", nseg=2),
            Section.cylinder("dend[1]", 50, 1, parent="soma", nseg=1)]  # fmt: skip
    regions = {"soma": Region({"leak": LeakChannel(0.3)}), "dend": Region({"leak": LeakChannel(jnp.array([0.1, 0.2]))})}
    cell = Cell(Morphology(secs), regions)
    np.testing.assert_array_equal(np.asarray(cell.segment_channels()[0][1].g), [0.3, 0.1, 0.1, 0.2])


def test_bad_input_is_refused_by_name():
    soma = Section.cylinder("soma", 10, 10)
    with pytest.raises(ValueError, match="parent 'axon' is not a section"):
        Morphology([soma, Section.cylinder("dend", 10, 1, parent="axon")])
    with pytest.raises(ValueError, match="cycle: a -> b -> a"):
        Morphology([soma, Section.cylinder("a", 10, 1, parent="b"), Section.cylinder("b", 10, 1, parent="a")])
    with pytest.raises(ValueError, match="section 'dend': diameters must be > 0"):
        Morphology([soma, Section.cylinder("dend", 10, 0.0, parent="soma")])
    with pytest.raises(ValueError, match="nseg must be an integer >= 1"):
        Morphology([Section.cylinder("soma", 10, 10, nseg=0)])
    cell = Cell.ball_and_stick(nseg=3)
    with pytest.raises(KeyError, match="unknown section 'apic'; sections: soma, dend"):
        cell.recorder(["apic(0.5)"])
    with pytest.raises(ValueError, match="x must be in \\[0, 1\\]"):
        cell.morphology.node("dend(1.5)")
    with pytest.raises(ValueError, match="missing \\['dend'\\], unknown \\['axon'\\]"):
        Cell(cell.morphology, {"soma": Region({}), "axon": Region({})})
    with pytest.raises(ValueError, match="one value per section \\(1\\); got shape \\(3,\\)"):
        Cell(cell.morphology, {"soma": Region({}), "dend": Region({"leak": LeakChannel(jnp.ones(3))})})


def test_unphysical_regional_parameters_are_refused_eagerly_under_jit_and_per_member():
    """As the point cell and the network: by name when concrete, eqx.error_if under jit, a failed member in vmap."""
    cell = Cell.ball_and_stick(nseg=3)
    with pytest.raises(ValueError, match=r"dend.gbar_na must be >= 0 mS/cm\^2; got -20.0"):
        cell.replace(**{"dend.gbar_na": -20.0})
    with pytest.raises(ValueError, match=r"soma.cm must be > 0 uF/cm\^2; got 0.0"):
        cell.replace(**{"soma.cm": 0.0})
    with pytest.raises(ValueError, match=r"dend.Ra must be > 0 ohm cm; got -1.0 \(member 1"):
        difflab.make_batch(cell, **{"dend.Ra": [100.0, -1.0]})
    ts = jnp.arange(0.0, 0.5, 0.025)
    with pytest.raises(Exception, match=r"dend.gbar_na must be >= 0 mS/cm\^2"):
        run = jax.jit(lambda g: difflab.simulate(cell.replace(**{"dend.gbar_na": g}), None, ts)["V"])
        run(-20.0).block_until_ready()
    members = jax.vmap(lambda r: difflab.simulate(cell.replace(**{"dend.Ra": r}), None, ts, throw=False).succeeded)
    assert np.asarray(members(jnp.array([100.0, -1.0]))).tolist() == [True, False]


def test_float32_cell_is_solved_in_float32():
    """`astype(float32)` reaches every array of the solve (a float64 channel mask once promoted it back to float64),
    and the float32 spikes stay within 0.01 ms of the float64 ones (first 20 ms, one spike). The save times are
    float32 too: the time grid's dtype is the solve's time dtype."""
    clamp = IClamp({"soma(0.5)": difflab.Step(0.25, 1.0, 19.0)})
    ts = np.arange(0.0, 20.0, 0.025, dtype=np.float32)
    runs = {dt: difflab.simulate(Cell.ball_and_stick().astype(dt), clamp, ts) for dt in (jnp.float32, jnp.float64)}
    assert runs[jnp.float32].ys["V"].dtype == jnp.float32
    spikes = {dt: np.asarray(spike_times(ts, np.asarray(r.ys["V"])[:, 0], max_spikes=4)) for dt, r in runs.items()}
    got, want = (s[np.isfinite(s)] for s in (spikes[jnp.float32], spikes[jnp.float64]))
    assert got.size == want.size >= 1
    np.testing.assert_allclose(got, want, atol=0.01)


def test_float32_axial_term_stays_consistent_with_the_potentials():
    """The axial term carried between steps is re-evaluated from the potentials every few steps in float32: a
    branched cell's six somatic spikes over 100 ms stay within 0.001 ms of float64 (measured 0.0002–0.0004 ms; carried
    from the solve's rows alone, its rounding walks the spikes 0.0023 ms away). Run with JAX's default compiler, as
    users run it: the suite's fast-compiling flags round float32 differently (0.0012 ms)."""
    spikes = json.loads(run_with_default_compiler(Path(__file__).with_name("_float32_axial_check.py")))
    got, want = np.asarray(spikes["float32"]), np.asarray(spikes["float64"])
    assert got.size == want.size >= 5
    np.testing.assert_allclose(got, want, atol=0.001)
