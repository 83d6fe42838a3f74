"""Piecewise-constant controls and GRAPE (`PiecewiseControls`, `piecewise_propagator`, `optimize_gate`).

Systems: a qubit under a constant drive (exact rotation), a three-level transmon (α/2π = −200 MHz, rotating frame)
with x and y drive quadratures, times in ns, amplitudes in rad/ns. The X gate in 20 ns with 40 slices, |u| <
2π × 100 MHz and a slew bound of 2π × 50 MHz/ns reaches 1 − F ≈ 1e-8 with default L-BFGS in about 15 steps.
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import difflab.quantum as q
from difflab.quantum import _grape

TWO_PI = 2 * np.pi
U_MAX = TWO_PI * 0.1  # rad/ns
SLEW = TWO_PI * 0.05  # rad/ns²
DURATION, SLICES = 20.0, 40


def transmon():
    a = np.asarray(q.destroy(3))
    ad = a.conj().T
    H0 = 0.5 * (TWO_PI * -0.2) * ad @ ad @ a @ a
    return H0, [0.5 * (a + ad), 0.5j * (ad - a)]


@pytest.fixture(scope="module")
def x_gate():
    H0, ops = transmon()
    with jax.numpy_dtype_promotion("strict"):
        return q.optimize_gate(
            H0, {"x": ops[0], "y": ops[1]}, q.X_GATE, DURATION, SLICES, subspace=(0, 1), u_max=U_MAX, slew_rate=SLEW
        )


def test_constant_drive_is_an_exact_rotation():
    # H = (u/2) σx held over three uneven slices: U = cos(uT/2) I − i sin(uT/2) σx
    u, T = 0.7, 3.0
    controls = q.PiecewiseControls(np.full((1, 3), u), T, times=[0.0, 0.5, 2.0, T])
    U = q.piecewise_propagator(np.zeros((2, 2)), [0.5 * np.asarray(q.sigmax())], controls)
    exact = np.cos(u * T / 2) * np.eye(2) - 1j * np.sin(u * T / 2) * np.asarray(q.sigmax())
    np.testing.assert_allclose(U, exact, atol=1e-13)


def test_product_matches_sepropagator():
    H0, ops = transmon()
    amplitudes = np.random.default_rng(3).uniform(-0.4, 0.4, (2, 7))
    controls = q.PiecewiseControls(amplitudes, 5.0)
    U = q.piecewise_propagator(H0, ops, controls)
    reference = q.sepropagator(H0, jnp.array([0.0, 5.0]), drives=controls.drives(ops), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(U, reference.propagators[-1], atol=1e-8)
    np.testing.assert_allclose(U.conj().T @ U, np.eye(3), atol=1e-13)


def test_gradient_matches_finite_differences():
    H0, ops = transmon()

    def infidelity(u):
        U = q.piecewise_propagator(H0, ops, q.PiecewiseControls(u, 4.0))
        return 1.0 - q.gate_fidelity(U, q.X_GATE, (0, 1))

    infidelity = jax.jit(infidelity)  # one compilation for the 13 evaluations
    u = jnp.asarray(np.random.default_rng(5).uniform(-0.5, 0.5, (2, 3)))
    grad = jax.grad(infidelity)(u)
    h = 1e-6
    fd = np.zeros((2, 3))
    for index in np.ndindex(2, 3):
        step = jnp.zeros((2, 3)).at[index].set(h)
        fd[index] = (infidelity(u + step) - infidelity(u - step)) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-10)


def test_x_gate_on_a_transmon(x_gate):
    assert x_gate.fidelity >= 0.9999
    assert x_gate.leakage <= 1e-5
    assert x_gate.history[0] > 0.1 and x_gate.history.size < 100  # a random start; L-BFGS needs few steps
    # The reported figures are those of the returned amplitudes.
    H0, ops = transmon()
    U = q.piecewise_propagator(H0, ops, x_gate.controls)
    assert float(q.gate_fidelity(U, q.X_GATE, (0, 1))) == pytest.approx(x_gate.fidelity, abs=1e-12)
    assert float(q.leakage(U, (0, 1))) == pytest.approx(x_gate.leakage, abs=1e-12)


def test_bounds_hold_exactly(x_gate):
    u = x_gate.amplitudes
    assert np.abs(u).max() < U_MAX
    assert np.abs(np.diff(u, axis=1)).max() <= SLEW * DURATION / SLICES * (1 + 1e-12)


def test_bound_holds_when_the_optimum_lies_beyond_it():
    # Area-π needs a mean |Ω_x| of π/20 ns ≈ 0.157 rad/ns; a bound of 0.1 rad/ns pins the optimiser at it.
    H0, ops = transmon()
    deltas = TWO_PI * np.array([-1e-3, 0.0, 1e-3])
    options = q.GrapeOptions(steps=40, optimizer=optax.adam(0.1))
    result = q.optimize_gate(H0, ops, q.X_GATE, 20.0, 10, subspace=(0, 1), u_max=0.1, detunings=deltas, options=options)
    assert np.abs(result.amplitudes).max() < 0.1
    assert np.abs(result.amplitudes[0]).max() > 0.099  # pressed against the bound
    assert result.fidelity < 0.99 and result.ensemble_fidelity.shape == (3,)
    assert result.ensemble_fidelity[1] == pytest.approx(result.fidelity, abs=1e-12)  # δ = 0 is the nominal system


def test_random_starts_until_the_tolerance_return_the_best():
    """Without `initial`, up to `starts` random starts (seeds 0, 1, 2) run while none reaches `tol`; the returned
    one is the lowest loss of the three runs made alone, with its seed and its own history. A given start is kept.
    """
    H0, ops = transmon()
    arguments = {"subspace": (0, 1), "u_max": 0.1}  # the bound keeps the X gate out of reach: tol is never met
    alone = [q.optimize_gate(H0, ops, q.X_GATE, 20.0, 10, **arguments,
                             options=q.GrapeOptions(steps=8, optimizer=optax.adam(0.1), seed=s, starts=1))
             for s in range(3)]  # fmt: skip
    best = min(alone, key=lambda r: r.loss)
    assert len({r.loss for r in alone}) == 3  # three different local results
    result = q.optimize_gate(H0, ops, q.X_GATE, 20.0, 10, **arguments,
                             options=q.GrapeOptions(steps=8, optimizer=optax.adam(0.1)))  # fmt: skip
    assert result.loss == best.loss and result.seed == best.seed and result.history.size == 8
    np.testing.assert_array_equal(result.amplitudes, best.amplitudes)
    assert result.to_xarray().attrs["start"] == f"random, seed {best.seed}"
    given = q.optimize_gate(H0, ops, q.X_GATE, 20.0, 10, **arguments, initial=best.amplitudes * 0.5,
                            options=q.GrapeOptions(steps=8, optimizer=optax.adam(0.1)))  # fmt: skip
    assert given.seed is None and given.history.size == 8  # one run, from the given pulse
    with pytest.raises(ValueError, match=r"GrapeOptions.starts must be an integer >= 1; got 0"):
        q.GrapeOptions(starts=0)


def test_dataset(x_gate):
    ds = x_gate.to_xarray()
    assert ds["amplitude"].dims == ("control", "time") and ds["amplitude"].attrs["units"] == "rad/ns"
    assert list(ds["control"].values) == ["x", "y"]
    np.testing.assert_allclose(ds["time"].values, np.arange(SLICES) * DURATION / SLICES)
    assert ds["time"].attrs["units"] == "ns" and ds.attrs["fidelity"] == x_gate.fidelity
    assert ds["infidelity"].shape == x_gate.history.shape


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"slices": 0}, "slices must be an integer >= 1"),
        ({"controls": [np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])]}, r"controls\[0\] must be Hermitian"),
        ({"target": np.eye(3)}, r"target must be a \(2, 2\) unitary"),
        ({"subspace": (0, 1, 2, 0)}, "subspace has 4 levels but the space of H0 has only 3"),
        ({"subspace": (0, 3)}, r"subspace must be distinct level indices in \[0, 3\)"),
        ({"duration": -1.0}, "duration must be a finite number > 0"),
        ({"u_max": 0.0}, "u_max must be finite and > 0"),
        ({"initial": q.PiecewiseControls(np.zeros((2, 4)), 15.0)}, r"initial must cover the duration \[0, 20.0\]"),
        ({"initial": np.full((2, 4), 1.0), "u_max": 0.5}, "initial must lie strictly within"),
        ({"detunings": [np.nan]}, "detunings must be a non-empty 1-D sequence of finite values"),
    ],
)
def test_bad_input_is_refused_by_name(change, match):
    H0, ops = transmon()
    arguments = {"controls": ops, "target": q.X_GATE, "duration": 20.0, "slices": 4, "subspace": (0, 1)} | change
    with pytest.raises(ValueError, match=match):
        q.optimize_gate(H0, **arguments)


def test_time_grid_must_cover_the_duration():
    with pytest.raises(
        ValueError, match=r"times must cover the duration, from 0 to 20\.0 ns; got edges from 0\.0 to 15\.0"
    ):
        q.PiecewiseControls(np.zeros((1, 3)), 20.0, times=[0.0, 5.0, 10.0, 15.0])
    with pytest.raises(ValueError, match="times must hold n_slices"):
        q.PiecewiseControls(np.zeros((1, 3)), 20.0, times=[0.0, 20.0])
    with pytest.raises(ValueError, match=r"controls\[1\] must be Hermitian"):
        q.piecewise_propagator(
            np.eye(2), [np.eye(2), np.triu(np.ones((2, 2)))], q.PiecewiseControls(np.ones((2, 1)), 1)
        )


def test_second_call_does_not_recompile(monkeypatch):
    # The loss is traced only when the jitted step compiles: new values of the same shapes must not trace it again.
    traces = []

    def counting_loss(params, problem):
        traces.append(1)
        return _grape_loss(params, problem)

    _grape_loss = _grape.loss
    monkeypatch.setattr(_grape, "loss", counting_loss)
    ops = [0.5 * np.asarray(q.sigmax()), 0.5 * np.asarray(q.sigmay())]
    options = q.GrapeOptions(steps=3, optimizer=optax.adam(0.1))
    q.optimize_gate(np.zeros((2, 2)), ops, q.X_GATE, 5.0, 4, u_max=1.0, options=options)
    first = len(traces)
    q.optimize_gate(0.1 * np.asarray(q.sigmaz()), ops, np.eye(2), 7.0, 4, u_max=2.0, options=options)
    assert first > 0 and len(traces) == first
