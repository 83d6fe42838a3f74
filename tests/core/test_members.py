"""`vmap_members`: the same arrays as `jax.vmap`, without batching a single member."""

import jax
import jax.numpy as jnp
import numpy as np

from difflab.core.internal import vmap_members


def _decay_until(k, y0):
    """A while loop whose trip count depends on the member: y decays by exp(-k) per step until below 1e-3."""

    def cond(c):
        return c[0] > 1e-3

    def body(c):
        return c[0] * jnp.exp(-k), c[1] + 1

    y, n = jax.lax.while_loop(cond, body, (y0, jnp.asarray(0)))
    return {"y": y, "steps": n}


def test_one_member_equals_vmap_and_is_not_batched():
    k, y0 = jnp.array([0.7]), jnp.array([2.0])
    got = vmap_members(_decay_until, k, y0)
    want = jax.vmap(_decay_until)(k, y0)
    for name in want:
        assert got[name].shape == want[name].shape and got[name].dtype == want[name].dtype
        np.testing.assert_array_equal(got[name], want[name])
    # the single member's program holds no batched while loop: its loop carries the scalar state
    jaxpr = jax.make_jaxpr(lambda a, b: vmap_members(_decay_until, a, b))(k, y0)
    loop = next(e for e in jaxpr.jaxpr.eqns if e.primitive.name == "while")
    assert [v.aval.shape for v in loop.outvars] == [(), ()]


def test_several_members_are_vmapped():
    k, y0 = jnp.array([0.7, 0.2, 1.5]), jnp.array([2.0, 1.0, 3.0])
    got = vmap_members(_decay_until, k, y0)
    want = [int(np.ceil(np.log(y / 1e-3) / r)) for r, y in zip([0.7, 0.2, 1.5], [2.0, 1.0, 3.0], strict=True)]
    np.testing.assert_array_equal(got["steps"], want)  # each member its own trip count
    for i in range(3):  # and each the value it gets alone
        alone = vmap_members(_decay_until, k[i : i + 1], y0[i : i + 1])
        np.testing.assert_allclose(got["y"][i], alone["y"][0], rtol=1e-15)
