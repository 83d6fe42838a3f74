"""Morris screening: exact elementary effects of a linear model, the trajectories' structure, their spread."""

import jax.numpy as jnp
import numpy as np
import pytest

import difflab
from difflab.sensitivity import Morris, morris
from difflab.sensitivity._morris_design import _most_spread

COEFFICIENTS = np.array([3.0, -0.5, 0.0, 2.0])
BOUNDS = {"c0": (0.0, 1.0), "c1": (0.0, 1.0), "c2": (0.0, 1.0), "c3": (-2.0, 3.0)}


class Linear(difflab.AbstractModel):
    """dy/dt = k . c with y(0) = 0: y(1) = k . c exactly (a constant field)."""

    c0: jnp.ndarray
    c1: jnp.ndarray
    c2: jnp.ndarray
    c3: jnp.ndarray
    states = (difflab.StateInfo("y", "1", "linear response"),)
    time_units = "s"

    def __init__(self, c0=0.0, c1=0.0, c2=0.0, c3=0.0):
        self.c0, self.c1, self.c2, self.c3 = (jnp.asarray(v, dtype=float) for v in (c0, c1, c2, c3))

    def vector_field(self, t, y, args):
        return {"y": jnp.dot(jnp.asarray(COEFFICIENTS), jnp.stack([self.c0, self.c1, self.c2, self.c3]))}

    def initial_state(self):
        return {"y": jnp.zeros(())}


def final(traj):
    return traj.ys["y"][-1]


@pytest.fixture(scope="module")
def effects():
    return morris(Linear(), None, [0.0, 1.0], BOUNDS, {"y": final}, r=6, progress=False)


def test_linear_model_gives_its_coefficients_exactly(effects):
    widths = np.array([hi - lo for lo, hi in BOUNDS.values()])
    np.testing.assert_allclose(effects["mu_star"].sel(output="y"), np.abs(COEFFICIENTS) * widths, atol=1e-12)
    np.testing.assert_allclose(effects["mu"].sel(output="y"), COEFFICIENTS * widths, atol=1e-12)
    np.testing.assert_allclose(effects["sigma"].sel(output="y"), 0.0, atol=1e-12)
    ci = effects["mu_star_ci"].sel(output="y")
    np.testing.assert_allclose(ci.sel(bound="low"), ci.sel(bound="high"), atol=1e-12)  # no spread to resample


def test_each_step_moves_one_parameter_by_delta_on_the_grid():
    design = Morris(5, BOUNDS, levels=6, seed=2)
    u = design.unit().reshape(5, 5, 4)
    assert design.delta == pytest.approx(0.6)
    steps = np.diff(u, axis=1)
    np.testing.assert_allclose(np.sort(np.abs(steps), axis=2)[..., :-1], 0.0)  # one parameter per step
    np.testing.assert_allclose(np.abs(steps).max(axis=2), design.delta)
    np.testing.assert_array_equal(np.sort(np.abs(steps).argmax(axis=2), axis=1), np.tile(np.arange(4), (5, 1)))
    np.testing.assert_allclose(u * 5, np.round(u * 5), atol=1e-12)  # every point on the 6-level grid
    assert u.min() >= 0 and u.max() <= 1


def test_chosen_trajectories_are_more_spread_than_the_first_ones_drawn():
    rng = np.random.default_rng(0)
    trajectories = rng.random((40, 5, 4))

    def spread(idx):
        t = trajectories[idx]
        d = [np.linalg.norm(t[m][:, None] - t[l][None], axis=2).sum() for m in range(len(t)) for l in range(m)]
        return np.sqrt(np.sum(np.square(d)))

    chosen = _most_spread(trajectories, 6)
    assert len(set(chosen)) == 6
    assert spread(chosen) > max(spread(rng.choice(40, 6, replace=False)) for _ in range(200))
