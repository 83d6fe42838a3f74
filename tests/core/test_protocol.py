"""Protocols: values, discontinuities, traceability, and refusal of bad samples."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.core._protocol import on_uniform_grid, sample_spacing, search_samples


def test_step_ramp_constant_values_and_jumps():
    step = difflab.Step(2.0, 1.0, 3.0)
    np.testing.assert_array_equal([step(t) for t in (0.5, 1.0, 2.9, 3.0)], [0.0, 2.0, 2.0, 0.0])
    np.testing.assert_array_equal(step.jump_times(), [1.0, 3.0])
    ramp = difflab.Ramp(4.0, 1.0, 3.0)
    np.testing.assert_allclose([ramp(t) for t in (0.0, 1.0, 2.0, 2.5, 3.0)], [0.0, 0.0, 2.0, 3.0, 0.0])
    assert float(difflab.Constant(1.5)(123.0)) == 1.5
    assert difflab.Constant(1.5).jump_times().shape == (0,)


def test_piecewise_linear_and_sampled_interpolate():
    pwl = difflab.PiecewiseLinear([0.0, 1.0, 3.0], [0.0, 2.0, -2.0])
    np.testing.assert_allclose([pwl(t) for t in (-1.0, 0.5, 2.0, 5.0)], [0.0, 1.0, 0.0, -2.0])
    np.testing.assert_array_equal(pwl.jump_times(), [0.0, 1.0, 3.0])
    sampled = difflab.Sampled(jnp.arange(5.0), jnp.arange(5.0) ** 2, mode="linear")
    assert float(sampled(2.5)) == pytest.approx(6.5)
    assert sampled.jump_times().shape == (0,)
    vector = difflab.Sampled([0.0, 1.0], [[0.0, 10.0], [1.0, 20.0]], mode="linear")
    np.testing.assert_allclose(vector(0.25), [0.25, 12.5])


def test_sampled_holds_each_sample_by_default():
    # zero-order hold: u = v_k on [t_k, t_k+1), the first sample before t_0, the last from t_n-1 on
    held = difflab.Sampled([0.0, 0.5, 1.5], [1.0, -2.0, 4.0])
    assert held.mode == "hold"
    np.testing.assert_array_equal([held(t) for t in (-1.0, 0.0, 0.49, 0.5, 1.49, 1.5, 9.0)],
                                  [1.0, 1.0, 1.0, -2.0, -2.0, 4.0, 4.0])  # fmt: skip
    vector = difflab.Sampled([0.0, 1.0], [[0.0, 10.0], [1.0, 20.0]])
    np.testing.assert_array_equal(vector(0.75), [0.0, 10.0])
    grad = jax.grad(lambda v: difflab.Sampled([0.0, 1.0, 2.0], v)(1.2))(jnp.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(grad, [0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match=r"mode must be one of \('hold', 'linear'\); got 'cubic'"):
        difflab.Sampled([0.0, 1.0], [0.0, 1.0], mode="cubic")


def test_protocols_state_their_finest_time_scale():
    assert difflab.Sampled([0.0, 0.025, 0.05, 0.1], [0.0, 1.0, 2.0, 3.0]).time_scale() == pytest.approx(0.025)
    assert difflab.Step(1.0, 2.0, 2.5).time_scale() == pytest.approx(0.5)
    assert difflab.Constant(1.0).time_scale() == np.inf
    total = difflab.Sum(difflab.Step(1.0, 0.0, 3.0), difflab.PiecewiseLinear([0.0, 0.2, 1.0], [0.0, 1.0, 0.0]))
    assert total.time_scale() == pytest.approx(0.2)


def test_sum_adds_values_and_collects_jumps():
    total = difflab.Sum(difflab.Step(1.0, 0.0, 2.0), difflab.Constant(0.5), difflab.Step(2.0, 1.0, 3.0))
    np.testing.assert_allclose([total(t) for t in (0.5, 1.5, 2.5, 3.5)], [1.5, 3.5, 2.5, 0.5])
    np.testing.assert_array_equal(total.jump_times(), [0.0, 2.0, 1.0, 3.0])
    with pytest.raises(TypeError, match=r"protocols\[1\] must be a protocol; got float"):
        difflab.Sum(difflab.Constant(1.0), 2.0)


def test_protocol_numbers_are_differentiable():
    grad = jax.grad(lambda a: difflab.Step(a, 1.0, 2.0)(1.5) * 3.0)(2.0)
    assert float(grad) == 3.0
    grad_start = jax.grad(lambda s: difflab.Ramp(4.0, s, 3.0)(2.0))(1.0)
    np.testing.assert_allclose(grad_start, -1.0)  # d/ds [4 (t - s)/(3 - s)] = 4 (t - 3)/(3 - s)² at s = 1, t = 2


def test_bad_samples_are_refused_with_the_argument_named():
    with pytest.raises(ValueError, match=r"values must be finite; found 1 NaN/inf value\(s\), first at index \[2\]"):
        difflab.Sampled([0.0, 1.0, 2.0], [0.0, 1.0, np.nan])
    with pytest.raises(ValueError, match=r"times must be strictly increasing; times\[2\] = 1.0 follows"):
        difflab.Sampled([0.0, 1.0, 1.0], [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match=r"values must have shape \(3, \.\.\.\) to match times; got \(2,\)"):
        difflab.PiecewiseLinear([0.0, 1.0, 2.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="stop must be > start"):
        difflab.Step(1.0, 5.0, 2.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    ("n", "dt", "t0"), [(40001, 0.025, 0.0), (1000, 0.1, 5.0), (2, 1.0, -3.0), (100000, 0.02, 12.5)]
)
def test_samples_on_a_grid_are_found_without_a_search(dtype, n, dt, t0):
    """On a uniform grid (float32 times of a 1000 ms recording at 0.025 ms included) the direct lookup gives
    `jnp.searchsorted`'s index exactly: at every sample, just before and after it, and at random times."""
    times = jnp.asarray((t0 + np.arange(n) * dt).astype(dtype))
    spacing = sample_spacing(times)
    assert on_uniform_grid(times, spacing)
    rng = np.random.default_rng(0)
    grid = np.asarray(times)
    queries = np.concatenate([grid, np.nextafter(grid, -np.inf), np.nextafter(grid, np.inf),
                              rng.uniform(t0 - 2, t0 + n * dt + 2, 5000)]).astype(dtype)  # fmt: skip
    # XLA's own search as the reference: the CPU flushes subnormal times (the one below 0) to zero, as NumPy does not
    want = np.asarray(jnp.searchsorted(times, jnp.asarray(queries), side="right"))
    np.testing.assert_array_equal(np.asarray(search_samples(times, jnp.asarray(queries), spacing)), want)


def test_recordings_off_a_grid_are_searched():
    """Sample times jittered by up to 0.04 ms around a 0.1 ms grid are not taken for a grid: held and interpolated
    values still follow the samples (exactly; 1e-14 for the interpolation)."""
    rng = np.random.default_rng(1)
    times = np.arange(200) * 0.1 + rng.uniform(-0.04, 0.04, 200)
    values = rng.normal(size=200)
    held = difflab.Sampled(times, values)
    assert not held.on_grid
    assert difflab.Sampled(np.arange(200) * 0.1, values).on_grid
    t = rng.uniform(times[0], times[-1], 300)
    np.testing.assert_array_equal(
        np.asarray(jax.vmap(held)(jnp.asarray(t))), values[np.searchsorted(times, t, "right") - 1]
    )
    linear = difflab.Sampled(times, values, mode="linear")
    np.testing.assert_allclose(
        np.asarray(jax.vmap(linear)(jnp.asarray(t))), np.interp(t, times, values), rtol=0, atol=1e-14
    )
