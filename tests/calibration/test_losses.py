"""Losses: masked MSE, spike-time and firing-rate features on traces with known crossings."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from difflab.calibration import MSE, FiringRate, LossSum, SpikeTimes
from difflab.calibration._losses import as_loss
from difflab.core.internal import first_crossings, soft_crossing_count

TS = jnp.linspace(0.0, 10.0, 1001)


def wave(shift=0.0):
    """sin(2π (t − shift) / 2.5) crosses 0 upwards at t = shift + 2.5 k."""
    return jnp.sin(2 * jnp.pi * (TS - shift) / 2.5)


def test_mse_leaves_masked_samples_out():
    pred = {"y": jnp.asarray([1.0, 2.0, 3.0, 4.0])}
    data = {"y": jnp.asarray([1.0, 0.0, 3.0, 2.0])}
    mask = {"y": jnp.asarray([True, False, True, True])}
    assert float(MSE()(pred, data, mask)) == pytest.approx(4.0 / 3.0)


def test_mse_weights_a_variable_given_as_a_dict_or_pairs():
    """w_V (V − V̂)² / n_V + (m − m̂)² / n_m; a dict and its pairs make the same loss (one compiled program)."""
    pred = {"V": jnp.asarray([1.0, 3.0]), "m": jnp.asarray([0.5, 0.5])}
    data = {"V": jnp.asarray([0.0, 1.0]), "m": jnp.asarray([0.1, 0.5])}
    mask = {k: jnp.asarray([True, True]) for k in pred}
    weighted = MSE(weights={"V": 0.25})
    assert weighted == MSE(weights=(("V", 0.25),)) and hash(weighted) == hash(MSE(weights=(("V", 0.25),)))
    assert float(weighted(pred, data, mask)) == pytest.approx(0.25 * 5.0 / 2 + 0.16 / 2)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"weights\['V'\] must be a finite number > 0"):
            MSE(weights={"V": bad})


def test_crossing_times_are_interpolated():
    times, found = first_crossings(TS, wave(0.3), 0.0, 5)
    np.testing.assert_allclose(times, [0.3, 2.8, 5.3, 7.8, 10.0], atol=1e-3)  # the 5th is missing: t_end
    assert found.tolist() == [True, True, True, True, False]


def test_spike_time_loss_is_the_squared_shift_and_differentiable():
    loss = SpikeTimes(variable="y", threshold=0.0, max_spikes=4, ts=TS)
    data, mask = {"y": wave(0.3)}, {"y": jnp.ones(TS.shape, bool)}
    value = loss({"y": wave(0.35)}, data, mask)
    assert float(value) == pytest.approx(0.05**2, rel=1e-2)
    grad = jax.grad(lambda s: loss({"y": wave(s)}, data, mask))(0.35)
    assert float(grad) == pytest.approx(2 * 0.05, rel=2e-2)


def test_an_extra_spike_costs_its_distance_from_the_end_and_is_pushed_out():
    """The data's fourth spike flattened: the prediction's fourth (at 7.85) is compared with the end, t = 10."""
    loss = SpikeTimes(variable="y", threshold=0.0, max_spikes=5, ts=TS)
    data, mask = {"y": jnp.where(TS > 7.0, -1.0, wave(0.3))}, {"y": jnp.ones(TS.shape, bool)}
    assert int(loss.count(data, mask)) == 3
    expected = (3 * 0.05**2 + (7.85 - 10.0) ** 2) / 3
    assert float(loss({"y": wave(0.35)}, data, mask)) == pytest.approx(expected, rel=1e-3)
    # d/ds of the loss: (2/3)(3 · 0.05 − 2.15) < 0, so the fit moves the spikes later, the extra one out
    grad = jax.grad(lambda s: loss({"y": wave(s)}, data, mask))(0.35)
    assert float(grad) == pytest.approx(2 / 3 * (3 * 0.05 - 2.15), rel=1e-2)
    # samples the data leave out (after a window's end) are left out of the prediction: no extra spike
    window = {"y": TS <= 7.0}
    assert float(loss({"y": wave(0.35)}, data, window)) == pytest.approx(0.05**2, rel=1e-2)


def test_a_missing_spike_costs_its_bumps_shortfall_and_is_pulled_up():
    """The prediction's fourth spike squashed to a bump of height h < 0 (from 7 ms on, −1 … h).

    The data's fourth spike (7.8) has no partner: its residual is (10 − 7.8) + s·(0 − h), the three others are
    exact, so L = (2.2 − s h)² / 4 and dL/dh = −s (2.2 − s h) / 2 < 0: the fit raises the bump.
    """
    data, mask = {"y": wave(0.3)}, {"y": jnp.ones(TS.shape, bool)}

    def squashed(h):
        return {"y": jnp.where(TS > 7.0, (wave(0.3) + 1) * (h + 1) / 2 - 1, wave(0.3))}

    for slope in (1.0, 0.25):
        loss = SpikeTimes(variable="y", threshold=0.0, max_spikes=5, ts=TS, missing_slope=slope)
        assert float(loss(squashed(-0.4), data, mask)) == pytest.approx((2.2 + 0.4 * slope) ** 2 / 4, rel=1e-4)
        grad = jax.grad(lambda h: loss(squashed(h), data, mask))(-0.4)  # noqa: B023
        assert float(grad) == pytest.approx(-slope * (2.2 + 0.4 * slope) / 2, rel=1e-4)
    # samples the mask leaves out are not searched: a higher sample at 8.5–8.6 ms, masked, leaves the bump at h
    gap = (TS >= 8.5) & (TS <= 8.6)
    loss = SpikeTimes(variable="y", threshold=0.0, max_spikes=5, ts=TS, missing_slope=1.0)
    hidden = {"y": jnp.where(gap, -0.1, squashed(-0.4)["y"])}
    assert float(loss(hidden, data, {"y": ~gap})) == pytest.approx((2.2 + 0.4) ** 2 / 4, rel=1e-4)
    assert float(loss(hidden, data, mask)) == pytest.approx((2.2 + 0.1) ** 2 / 4, rel=1e-4)
    # no spike at all: the whole trace is searched, not what follows a late dip (the return to rest after a pulse)
    one = {"y": jnp.where(TS < 2.0, wave(0.3), -1.0)}  # one data spike, at 0.3
    loss = SpikeTimes(variable="y", threshold=0.0, max_spikes=5, ts=TS)

    def subthreshold(h):
        return {"y": -1 + (h + 1) * jnp.exp(-((TS - 2) ** 2)) - 2 * jnp.exp(-((TS - 8) ** 2))}

    # the default slope, 0.1 ms/mV: the bump at −0.3 costs 0.03 beyond the distance from the end
    assert float(loss(subthreshold(-0.3), one, mask)) == pytest.approx((10 - 0.3 + 0.1 * 0.3) ** 2, rel=1e-4)
    # slope 0: the distance from the end alone, which no parameter moves
    flat = SpikeTimes(variable="y", threshold=0.0, max_spikes=5, ts=TS, missing_slope=0.0)
    assert float(jax.grad(lambda h: flat(squashed(h), data, mask))(-0.4)) == 0.0
    # a prediction that ends above the threshold has no bump to raise: its missing spikes cost the distance alone
    loss = SpikeTimes(variable="y", threshold=0.0, max_spikes=5, ts=TS)
    plateau = {"y": jnp.where(TS > 7.0, 0.5, -1.0)}
    assert float(loss(plateau, data, mask)) == pytest.approx(
        ((0.3 - 7.0) ** 2 + (2.8 - 10) ** 2 + (5.3 - 10) ** 2 + (7.8 - 10) ** 2) / 4, rel=1e-3
    )
    for bad in (-1.0, float("nan"), float("inf"), "1"):
        with pytest.raises(ValueError, match="missing_slope must be a finite number ≥ 0"):
            SpikeTimes(missing_slope=bad)


def test_spike_time_residuals_keep_float32_under_jit_and_vmap():
    """A float32 fit gets float32 residuals (the spike count is cast, not promoted); shifts 0 and 0.05 per member."""
    loss = SpikeTimes(variable="y", threshold=0.0, max_spikes=5, ts=TS.astype(jnp.float32), refractory=1.0)
    data, mask = {"y": wave(0.3).astype(jnp.float32)}, {"y": jnp.ones(TS.shape, bool)}
    shifted = jax.jit(jax.vmap(lambda s: loss.residuals({"y": wave(s).astype(jnp.float32)}, data, mask)))
    r = shifted(jnp.asarray([0.3, 0.35]))
    assert r.dtype == jnp.float32
    np.testing.assert_allclose(np.sum(np.asarray(r) ** 2, axis=1), [0.0, 0.05**2], rtol=1e-2, atol=1e-9)


def test_a_sum_of_losses_weights_each_terms_residuals():
    """L = MSE + 10 · spike times, residuals [r_MSE, √10 r_t]: Levenberg–Marquardt fits it as one least squares."""
    times = SpikeTimes(variable="y", threshold=0.0, max_spikes=4)
    total = LossSum((MSE(), times), weights=(1.0, 10.0)).with_times(TS)
    assert total.least_squares and total.terms[1].ts is not None
    data, mask = {"y": wave(0.3)}, {"y": jnp.ones(TS.shape, bool)}
    pred = {"y": wave(0.35)}
    mse = float(MSE()(pred, data, mask))
    assert float(total(pred, data, mask)) == pytest.approx(mse + 10 * 0.05**2, rel=1e-3)
    r = total.residuals(pred, data, mask)
    assert r.shape == (TS.size + 4,)
    assert float(jnp.sum(r**2)) == pytest.approx(float(total(pred, data, mask)), rel=1e-12)
    assert int(total.count(data, mask)) == TS.size + 4
    assert not LossSum((MSE(), FiringRate(duration=10.0, variable="y"))).least_squares
    with pytest.raises(ValueError, match=r"LossSum weights\[1\] must be a finite number > 0"):
        LossSum((MSE(), times), weights=(1.0, 0.0))
    with pytest.raises(ValueError, match="one weight per term"):
        LossSum((MSE(), times), weights=(1.0,))
    with pytest.raises(TypeError, match="LossSum terms"):
        LossSum(("mse",))


def test_soft_spike_count_and_rate_loss():
    assert float(soft_crossing_count(20 * wave(0.3), 0.0, 2.0)) == pytest.approx(4.0, abs=0.05)
    loss = FiringRate(duration=10.0, variable="y", width=2.0)
    mask = {"y": jnp.ones(TS.shape, bool)}
    fast = 20 * wave(0.3)  # 4 spikes in 10 ms
    assert float(loss({"y": fast}, {"y": fast}, mask)) == pytest.approx(0.0, abs=1e-4)
    slow = 20 * jnp.sin(2 * jnp.pi * (TS - 0.3) / 5.0)  # 2 spikes
    assert float(loss({"y": slow}, {"y": fast}, mask)) == pytest.approx((2 / 10) ** 2, rel=0.05)


def test_as_loss_names_and_errors():
    assert isinstance(as_loss("mse", np.arange(3.0)), MSE)
    assert isinstance(as_loss("spike_times", np.arange(3.0)), SpikeTimes)
    with pytest.raises(ValueError, match="loss must be"):
        as_loss("huber", np.arange(3.0))


def test_spike_time_loss_is_least_squares_and_ignores_double_crossings_of_one_spike():
    loss = SpikeTimes(variable="y", threshold=0.0, max_spikes=4, ts=TS, refractory=1.0)
    mask = {"y": jnp.ones(TS.shape, bool)}
    noisy = wave(0.3)
    i = int(np.argmin(np.abs(np.asarray(TS) - 0.6)))  # 0.3 ms after the first crossing, still inside the spike
    noisy = noisy.at[i].set(-0.01)  # noise takes the upstroke back below threshold for one sample
    assert int(loss.count({"y": noisy}, mask)) == 4  # four spikes, not five
    r = loss.residuals({"y": wave(0.35)}, {"y": noisy}, mask)
    assert float(jnp.sum(r**2)) == pytest.approx(float(loss({"y": wave(0.35)}, {"y": noisy}, mask)))
    assert float(jnp.sum(r**2)) == pytest.approx(0.05**2, rel=1e-2)
