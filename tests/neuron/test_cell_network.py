"""Networks of multi-compartment cells: exact limits, gap junctions against their closed form, gradients, bad input."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.neuron import (
    Cell,
    CellNetwork,
    Exp2Synapses,
    ExpSynapses,
    GapJunctions,
    IClamp,
    Morphology,
    NMDASynapses,
    Region,
    Section,
    TsodyksMarkram,
    pas,
)

pytestmark = pytest.mark.xdist_group("cell_network")

STIM = difflab.Step(0.25, 5.0, 45.0)  # nA: the ball-and-stick fires three spikes
TS = jnp.arange(0.0, 50.0, 0.025)


def _passive_ball(diam: float = 20.0) -> Cell:
    """One passive compartment: L = diam (µm), g 0.1 mS/cm², E −65 mV, cm 1 µF/cm²."""
    return Cell(Morphology([Section.cylinder("soma", diam, diam)]), {"soma": Region({"pas": pas(0.1, -65.0)})},
                v_init=-65.0)  # fmt: skip


@pytest.fixture(scope="module")
def ball_and_stick():
    return Cell.ball_and_stick(nseg=7)


def test_an_unconnected_cell_equals_its_own_solve(ball_and_stick):
    """With a silent synapse, the stimulated cell of a network is the `Cell` alone, to rounding (1e-8 mV)."""
    alone = difflab.simulate(ball_and_stick, IClamp({"soma(0.5)": STIM}), TS)["V"]
    net = CellNetwork(ball_and_stick, ExpSynapses([0], [1], 0.0, 1.5), where="dend(0.7)", counts=2)
    V = difflab.simulate(net, IClamp({"cell0.soma(0.5)": STIM}), TS)["V"]
    np.testing.assert_allclose(V[:, :8], alone, atol=1e-8, rtol=0)  # 8 compartments per cell
    assert float(np.abs(V[:, 8:] + 65.0).max()) < 0.5  # cell 1 stays near its initial rest


def test_a_dendritic_synapse_drives_the_next_cell(ball_and_stick):
    """Three presynaptic spikes at dend(0.7) make cell 1 fire three times, each 3.5–4 ms after its cause."""
    net = CellNetwork(ball_and_stick, ExpSynapses([0], [1], 0.02, 1.5), where="dend(0.7)", counts=2)
    out = difflab.simulate(net, IClamp({"cell0.soma(0.5)": STIM}), TS)
    spikes = np.sort(np.asarray(out["spikes"])[-1], axis=-1)[:, ::-1]
    pre, post = spikes[0, :3], spikes[1, :3]
    assert (pre > 0).all() and (post > 0).all()
    assert np.all((post - pre > 3.0) & (post - pre < 4.5))


def test_a_plain_protocol_drives_every_cells_root_section(ball_and_stick):
    """One protocol of one current per cell equals the `IClamp` that names each cell's soma(0.5), bit for bit."""
    net = CellNetwork(ball_and_stick, ExpSynapses([0], [1], 0.02, 1.5), where="dend(0.7)", counts=2)
    ts = TS[:400]
    plain = difflab.simulate(net, difflab.Step(jnp.array([0.25, 0.1]), 5.0, 45.0), ts)["V"]
    named = difflab.simulate(net, IClamp({"cell0.soma(0.5)": STIM, "cell1.soma(0.5)": difflab.Step(0.1, 5.0, 45.0)}),
                             ts)["V"]  # fmt: skip
    np.testing.assert_array_equal(plain, named)
    with pytest.raises(ValueError, match=r"protocol: a plain protocol gives one current per cell \(2,\)"):
        difflab.simulate(net, difflab.Step(jnp.ones(3), 5.0, 45.0), ts)


def _gap_pair(g: float, I: float = 0.05):
    """Two passive compartments (area 400π µm²) joined by ``g`` µS, ``I`` nA into cell 0 from 1 ms."""
    net = CellNetwork(_passive_ball(), counts=2, gaps=GapJunctions([0], "soma(0.5)", [1], "soma(0.5)", g))
    return net, IClamp({"cell0.soma(0.5)": difflab.Step(I, 1.0, 100.0)})


def _gap_pair_exact(t, g: float, I: float = 0.05):
    """The pair's closed form: sum and difference modes relax at gL/c and (gL + 2 s g)/c, s = 1e5 / area."""
    s, gL = 1e5 / (np.pi * 400.0), 0.1
    on = np.clip(t - 1.0, 0.0, None)
    total = s * I / gL * (1 - np.exp(-gL * on))
    diff = s * I / (gL + 2 * s * g) * (1 - np.exp(-(gL + 2 * s * g) * on))
    return -65.0 + (total + diff) / 2, -65.0 + (total - diff) / 2


def test_gap_junction_matches_its_closed_form_to_second_order():
    """Two passive cells joined by a junction: within 3e-4 mV at 0.025 ms, the error falling 4× per halving.

    The error is Crank–Nicolson's on the pair's difference mode, which relaxes at 8 /ms (λh = 0.2 at 0.025 ms).
    """
    g = 0.002  # µS: 1e5 g / A = 0.16 mS/cm², comparable to the leak's 0.1
    net, clamp = _gap_pair(g)
    ts = jnp.arange(0.0, 30.0, 0.05)
    exact = np.stack(_gap_pair_exact(np.asarray(ts), g), axis=-1)
    errors = [float(np.abs(np.asarray(difflab.simulate(net, clamp, ts, dt0=dt)["V"]) - exact).max())
              for dt in (0.05, 0.025)]  # fmt: skip
    assert errors[1] < 3e-4
    assert 3.5 < errors[0] / errors[1] < 4.5
    assert float(np.abs(exact[:, 0] - exact[:, 1]).max()) > 1.0  # the junction matters: 1.3 mV apart at most


def test_a_strong_junction_takes_a_shorter_default_step_and_refuses_a_long_one():
    """1e5 g h / (A cm) must stay <= 1: the default step halves until it does; a longer dt0 is refused by name.

    At the bound the splitting is stable and 0.018 mV off the closed form (0.003 mV at half the step).
    """
    net, clamp = _gap_pair(1.0)  # 80 mS/cm² on each side: h <= 0.0125 ms
    assert net.default_dt0() == 0.0125
    ts = jnp.arange(0.0, 5.0, 0.05)
    exact = np.stack(_gap_pair_exact(np.asarray(ts), 1.0), axis=-1)
    np.testing.assert_allclose(difflab.simulate(net, clamp, ts)["V"], exact, atol=0.025)
    with pytest.raises(Exception, match="a gap junction is too strong for the step dt0"):
        difflab.simulate(net, clamp, ts, dt0=0.025)["V"].block_until_ready()


def test_mixed_cell_types_and_per_cell_parameters():
    """Two populations (a ball-and-stick pair with per-cell ḡNa, a passive ball) each equal their own solves."""
    bs = Cell.ball_and_stick(nseg=3).replace(**{"soma.gbar_na": jnp.array([120.0, 0.0])})
    ball = _passive_ball()
    net = CellNetwork([bs, ball], [], where=[])
    assert net.counts == (2, 1) and net.n_cells == 3
    clamp = IClamp({"cell0.soma(0.5)": STIM, "cell1.soma(0.5)": STIM, "cell2.soma(0.5)": difflab.Step(0.05, 1.0, 9.0)})
    V = np.asarray(difflab.simulate(net, clamp, TS[:800])["V"])
    for k, (gbar, cols) in enumerate([(120.0, slice(0, 4)), (0.0, slice(4, 8))]):
        cell = Cell.ball_and_stick(nseg=3).replace(**{"soma.gbar_na": gbar})
        alone = difflab.simulate(cell, IClamp({"soma(0.5)": STIM}), TS[:800])["V"]
        np.testing.assert_allclose(V[:, cols], alone, atol=1e-8, err_msg=f"cell {k}")
    ball_alone = difflab.simulate(ball, IClamp({"soma(0.5)": difflab.Step(0.05, 1.0, 9.0)}), TS[:800])["V"]
    np.testing.assert_allclose(V[:, 8:], ball_alone, atol=1e-8)


def test_gradient_of_a_dendritic_potential_matches_finite_differences(ball_and_stick):
    """d V(cell 1, dend(0.7), 20 ms) / d weight of an NMDA synapse with plasticity, against central differences."""
    syn = NMDASynapses([0], [1], 0.01, 1.0, tau1=2.0, tau2=20.0, plasticity=TsodyksMarkram(0.5, 100.0, 50.0))
    net = CellNetwork(ball_and_stick, syn, where="dend(0.7)", counts=2)
    clamp = IClamp({"cell0.soma(0.5)": STIM})
    observe, info = net.recorder(["cell1.dend(0.7)"])
    ts = jnp.array([0.0, 20.0])

    def v(w):
        return difflab.simulate(net.replace(**{"synapses.0.weight": w}), clamp, ts, observe=observe,
                                observe_info=info)["cell1.dend(0.7)"][-1]  # fmt: skip

    w, eps = jnp.array([0.01]), 1e-6
    grad = float(jax.grad(lambda w: v(w))(w)[0])
    fd = (float(v(w + eps)) - float(v(w - eps))) / (2 * eps)
    assert abs(fd) > 10.0  # mV per µS: the synapse matters
    assert grad == pytest.approx(fd, rel=1e-5)


def test_bad_networks_are_refused_by_name(ball_and_stick):
    syn = Exp2Synapses([0], [1], 0.01, 1.0)
    with pytest.raises(ValueError, match=r"where\[0\]: 'apical\(0.5\)' is not a place with membrane on cell 1"):
        CellNetwork(ball_and_stick, syn, where="apical(0.5)", counts=2)
    with pytest.raises(ValueError, match=r"where\[0\]: compartment 99 is outside cell 1"):
        CellNetwork(ball_and_stick, syn, where=[99], counts=2)
    with pytest.raises(ValueError, match=r"synapses\[0\].post names cell 1, which is not in the network"):
        CellNetwork(ball_and_stick, syn, where="dend(0.5)", counts=1)
    with pytest.raises(ValueError, match=r"where must give a location for each of the 1 synapse populations"):
        CellNetwork(ball_and_stick, syn, counts=2)
    with pytest.raises(ValueError, match=r"detect: 'soma\(1\)' is not a place with membrane"):
        CellNetwork(ball_and_stick, syn, where="dend(0.5)", counts=2, detect="soma(1)")
    with pytest.raises(ValueError, match=r"gap junction 0 joins compartment 'dend\(0.5\)' of cell 0 to itself"):
        CellNetwork(ball_and_stick, counts=2, gaps=GapJunctions([0], "dend(0.5)", [0], "dend(0.52)", 0.001))
    with pytest.raises(ValueError, match="g must be finite and >= 0 uS"):
        GapJunctions([0], "dend(0.5)", [1], "dend(0.5)", -0.001)
    with pytest.raises(ValueError, match=r"mg must be > 0 mM"):
        NMDASynapses([0], [1], 0.01, 1.0, mg=0.0)
    with pytest.raises(ValueError, match=r"U must"):
        TsodyksMarkram(U=1.5)
    with pytest.raises(ValueError, match=r"counts must be one integer >= 1 per population \(1\)"):
        CellNetwork(ball_and_stick, counts=0)
    with pytest.raises(ValueError, match=r"cells\[0\]'s parameters must be scalars or \(3,\) for its 3 cells"):
        CellNetwork(ball_and_stick.replace(**{"soma.gbar_na": jnp.ones(2)}), counts=3)
    net = CellNetwork(ball_and_stick, syn, where="dend(0.5)", counts=2)
    with pytest.raises(ValueError, match=r"protocol: 'soma\(0.5\)' must name a cell and a place, like 'cell0.soma"):
        difflab.simulate(net, IClamp({"soma(0.5)": STIM}), TS[:10])
    with pytest.raises(ValueError, match=r"synapses.0.weight must be >= 0 uS"):
        net.replace(**{"synapses.0.weight": jnp.array([-1.0])})


def test_traced_densities_and_junctions_solve_under_jit():
    """Fitted parameters are traced: the default step follows them under `jit`, and the solve equals the eager one."""
    net = CellNetwork(Cell.ball_and_stick(nseg=3), ExpSynapses([0], [1], 0.02, 1.5), where="dend(0.7)", counts=2,
                      gaps=GapJunctions([0], "dend(0.5)", [1], "dend(0.5)", 0.001))  # fmt: skip
    clamp = IClamp({"cell0.soma(0.5)": STIM})
    ts = jnp.arange(0.0, 20.0, 0.1)

    def v(gbar, g):
        model = net.replace(**{"cells.0.dend.gbar_na": gbar, "gaps.g": g})
        return difflab.simulate(model, clamp, ts)["V"][-1, 5]

    eager = float(v(30.0, jnp.array([0.001])))
    assert float(jax.jit(v)(30.0, jnp.array([0.001]))) == pytest.approx(eager, abs=1e-9)
    assert np.isfinite(float(jax.grad(v)(30.0, jnp.array([0.001]))))
