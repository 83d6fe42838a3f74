"""Rate functions: NEURON hh formulas, removable singularities with finite values and gradients."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from difflab.neuron import hh_rates, q10_factor, vtrap, z_over_expm1
from difflab.neuron._rates import vtrap_pair


def naive_rates(V):
    """hh.mod formulas written directly (singular at -40 and -55 mV)."""
    return {
        "m": (0.1 * (V + 40) / (1 - np.exp(-(V + 40) / 10)), 4 * np.exp(-(V + 65) / 18)),
        "h": (0.07 * np.exp(-(V + 65) / 20), 1 / (1 + np.exp(-(V + 35) / 10))),
        "n": (0.01 * (V + 55) / (1 - np.exp(-(V + 55) / 10)), 0.125 * np.exp(-(V + 65) / 80)),
    }


def test_rates_match_the_hh_formulas_away_from_singularities():
    V = np.linspace(-120.0, 60.0, 721) + 0.0123  # avoids -40 and -55 exactly
    got = jax.jit(hh_rates)(jnp.asarray(V))
    want = naive_rates(V)
    for gate in "mhn":
        for k in range(2):
            np.testing.assert_allclose(got[gate][k], want[gate][k], rtol=1e-12)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
@pytest.mark.parametrize(("gate", "V", "limit"), [("m", -40.0, 1.0), ("n", -55.0, 0.1)])
def test_singular_points_have_finite_values_and_gradients(dtype, gate, V, limit):
    V = jnp.asarray(V, dtype=dtype)
    rates = jax.jit(hh_rates)(V)
    grads = jax.jit(jax.jacfwd(hh_rates))(V)
    alpha = rates[gate][0]
    assert alpha.dtype == dtype
    np.testing.assert_allclose(alpha, limit, rtol=1e-6)
    # d/dV of 0.1 x/(1-e^{-x/10}) at x = 0 is 0.1 * 1/2 (m); 0.01 * 1/2 (n)
    np.testing.assert_allclose(grads[gate][0], limit / 20, rtol=1e-4)
    reverse = jax.jit(jax.grad(lambda v: sum(a + b for a, b in hh_rates(v).values())))(V)
    assert all(np.isfinite(g) for pair in grads.values() for g in pair)
    assert np.isfinite(reverse)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_rates_are_smooth_across_the_series_branch(dtype):
    """Values and slopes agree on both sides of the switch to the series (|z| = 0.05)."""
    z = jnp.asarray([-0.0501, -0.0499, 0.0499, 0.0501], dtype=dtype)
    values = jax.jit(z_over_expm1)(z)
    exact = np.asarray(z, dtype=np.float64) / np.expm1(np.asarray(z, dtype=np.float64))
    np.testing.assert_allclose(values, exact, rtol=2e-6 if dtype == jnp.float32 else 1e-13)
    slopes = jax.jit(jax.vmap(jax.grad(z_over_expm1)))(z)
    np.testing.assert_allclose(slopes, -0.5 + np.asarray(z, dtype=np.float64) / 6, rtol=1e-3)


def test_vtrap_matches_neuron_definition():
    x = jnp.asarray([-15.0, -1e-9, 0.0, 3.0])
    want = [-15 / (np.exp(-1.5) - 1), 10 * (1 + 1e-10 / 2), 10.0, 3 / (np.exp(0.3) - 1)]
    np.testing.assert_allclose(vtrap(x, 10.0), want, rtol=1e-12)


def test_vtrap_pair_equals_two_vtraps_and_stays_finite():
    """`vtrap_pair(x, y) = (vtrap(x, y), vtrap(−x, y))` to 1e-14 relative over ±200 mV, through the series branch at 0;
    in float32 both members and their derivatives stay finite out to ±10 V (the clip at |x/y| = 80)."""
    x = jnp.concatenate([jnp.linspace(-200.0, 200.0, 4001), jnp.array([0.0, 1e-9, -1e-9])])
    pos, neg = vtrap_pair(x, 6.0)
    np.testing.assert_allclose(pos, vtrap(x, 6.0), rtol=1e-14, atol=0)
    np.testing.assert_allclose(neg, vtrap(-x, 6.0), rtol=1e-14, atol=0)
    far = jnp.array([-1e4, -480.0, 0.0, 480.0, 1e4], jnp.float32)
    pos32, neg32 = vtrap_pair(far, jnp.float32(6.0))
    slopes = jax.vmap(jax.grad(lambda v: sum(vtrap_pair(v, jnp.float32(6.0)))))(far)
    assert np.all(np.isfinite(pos32)) and np.all(np.isfinite(neg32)) and np.all(np.isfinite(slopes))


def test_q10_factor():
    np.testing.assert_allclose(q10_factor(6.3), 1.0)
    np.testing.assert_allclose(q10_factor(16.3), 3.0)
    np.testing.assert_allclose(q10_factor(36.3), 27.0, rtol=1e-12)


def test_channel_rates_carry_the_temperature_factor():
    from difflab.neuron import HodgkinHuxley

    V = jnp.asarray(-50.0)
    cold = HodgkinHuxley.squid_axon().gate_rates(V)
    warm = HodgkinHuxley.squid_axon().replace(celsius=16.3).gate_rates(V)
    for gate in "mhn":
        np.testing.assert_allclose(np.asarray(warm[gate]), 3.0 * np.asarray(cold[gate]), rtol=1e-12)
