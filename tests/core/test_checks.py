"""The check layer: one set of physical checks, eager on concrete values, error_if or a failed member when traced."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.core._checks import physical_flag
from difflab.core._paths import where_path
from difflab.neuron import HodgkinHuxley

TS = jnp.linspace(0.0, 5.0, 6)
STIM = difflab.Step(10.0, 1.0, 3.0)


@pytest.fixture(scope="module")
def hh():
    return HodgkinHuxley.squid_axon()


def with_gK(model, value):
    return eqx.tree_at(where_path(model.resolve("gK")), model, jnp.asarray(value, dtype=float))


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"C": 0.0}, r"C must be > 0 uF/cm\^2; got 0.0"),
        ({"C": -1.0}, r"C must be > 0 uF/cm\^2; got -1.0"),
        ({"gK": -36.0}, r"gK must be >= 0 mS/cm\^2; got -36.0"),
        ({"gNa": np.nan}, "gNa must be finite; got nan"),
    ],
)
def test_replace_refuses_unphysical_values(hh, values, message):
    with pytest.raises(ValueError, match=message):
        hh.replace(**values)


def test_make_batch_names_the_first_failing_member(hh):
    with pytest.raises(ValueError, match=r"gK must be >= 0 mS/cm\^2; got -36.0 \(member 1; 1 of 3 members"):
        difflab.make_batch(hh, gK=[36.0, -36.0, 36.0])


@pytest.mark.slow
def test_a_traced_unphysical_member_fails_alone(hh):
    """Under vmap the bad member is NaN and not succeeded; the good one equals its own solve."""
    run = jax.vmap(lambda g: difflab.simulate(with_gK(hh, g), STIM, TS, throw=False))
    traj = run(jnp.array([36.0, -36.0]))
    np.testing.assert_array_equal(np.asarray(traj.succeeded), [True, False])
    assert np.isnan(np.asarray(traj.ys["V"][1])).all()
    single = difflab.simulate(hh, STIM, TS)
    np.testing.assert_allclose(np.asarray(traj.ys["V"][0]), np.asarray(single.ys["V"]), rtol=1e-12, atol=1e-12)


def test_run_ensemble_of_traced_values_does_not_report_success(hh):
    """An ensemble built inside jit (values traced) flags the unphysical member instead of returning 5e7 mV."""

    @eqx.filter_jit
    def run(g):
        return difflab.simulate(with_gK(hh, g), STIM, TS, throw=False).succeeded

    assert not bool(run(jnp.asarray(-1.0)))
    assert bool(run(jnp.asarray(36.0)))


def test_jitted_simulate_raises_with_the_message(hh):
    @eqx.filter_jit
    def run(g):
        return difflab.simulate(with_gK(hh, g), STIM, TS).ys["V"]

    with pytest.raises(Exception, match=r"gK must be >= 0 mS/cm\^2"):
        jax.block_until_ready(run(jnp.asarray(-1.0)))
    assert np.isfinite(np.asarray(run(jnp.asarray(36.0)))).all()


def test_a_traced_check_names_a_check_that_fails():
    """The traced checks share one conditional: its message is the first failing check's, and under vmap one that
    some member fails (never one that every member passes)."""
    checks = lambda a, b: {"a must be > 0": (a > 0, a), "b must be > 0": (b > 0, b)}  # noqa: E731
    flag = eqx.filter_jit(lambda a, b: physical_flag(checks(a, b), a, throw=True))
    one, minus_one = jnp.asarray(1.0), jnp.asarray(-1.0)
    assert bool(flag(one, one)[1])
    with pytest.raises(Exception, match="a must be > 0"):
        jax.block_until_ready(flag(minus_one, minus_one))
    with pytest.raises(Exception, match="b must be > 0"):
        jax.block_until_ready(flag(one, minus_one))
    members = jax.vmap(lambda a, b: physical_flag(checks(a, b), a, throw=False)[1])
    np.testing.assert_array_equal(members(jnp.array([1.0, 1.0, -1.0]), jnp.array([1.0, -1.0, 1.0])), [1, 0, 0])
    batched = eqx.filter_jit(jax.vmap(lambda a, b: physical_flag(checks(a, b), a, throw=True)[0]))
    with pytest.raises(Exception, match="b must be > 0"):  # member 1 passes check a and fails check b
        jax.block_until_ready(batched(jnp.array([1.0, 1.0]), jnp.array([1.0, -1.0])))


@pytest.mark.slow
def test_gradient_of_a_physical_member_is_unchanged(hh):
    """The flag adds no gradient path: d V(t_end) / d gK equals a central difference."""

    def v_end(g):
        return difflab.simulate(with_gK(hh, g), STIM, TS, throw=False).ys["V"][-1]

    grad = jax.grad(v_end)(36.0)
    h = 1e-4
    fd = (v_end(36.0 + h) - v_end(36.0 - h)) / (2 * h)
    np.testing.assert_allclose(float(grad), float(fd), rtol=1e-5)


@pytest.mark.parametrize(("gate", "value"), [("m", 1.5), ("h", -0.1)])
def test_gates_outside_0_1_in_y0_are_refused(hh, gate, value):
    y0 = dict(hh.initial_state())
    y0[gate] = jnp.asarray(value)
    with pytest.raises(ValueError, match=rf"y0\['{gate}'\] must lie in \[0, 1\].*got {value}"):
        difflab.simulate(hh, STIM, TS, y0=y0)
