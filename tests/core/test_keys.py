"""check_key: one JAX random key (typed or legacy uint32 pair), concrete or traced; anything else refused by name."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from difflab.core.internal import check_key


@pytest.mark.parametrize("key", [jax.random.key(0), jax.random.PRNGKey(0)], ids=["typed", "legacy"])
def test_one_key_is_accepted_concrete_and_traced(key):
    check_key(key)

    @jax.jit
    def draw(k):
        check_key(k)  # a tracer: its shape and dtype are checked
        return jax.random.uniform(k)

    assert 0.0 <= float(draw(key)) < 1.0


@pytest.mark.parametrize(
    ("key", "received"),
    [
        (0, r"int 0"),
        (None, r"NoneType None"),
        (np.zeros(2, dtype=np.uint32), r"ndarray of dtype uint32 and shape \(2,\)"),  # raw data, not a jax key
        (jnp.zeros(3, dtype=jnp.uint32), r"ArrayImpl of dtype uint32 and shape \(3,\)"),
        (jnp.zeros(2, dtype=jnp.int32), r"ArrayImpl of dtype int32 and shape \(2,\)"),
        (jax.random.split(jax.random.key(0), 3), r"PRNGKeyArray of dtype key<fry> and shape \(3,\)"),
        (jax.random.split(jax.random.PRNGKey(0), 3), r"ArrayImpl of dtype uint32 and shape \(3, 2\)"),
    ],
    ids=["int", "None", "numpy-pair", "uint32-triple", "int32-pair", "typed-batch", "legacy-batch"],
)
def test_anything_else_is_refused_with_one_message(key, received):
    how = r"must be one JAX random key, made by jax\.random\.key\(seed\) \(or the legacy jax\.random\.PRNGKey\(seed\)\)"
    with pytest.raises(TypeError, match=rf"^seed_key {how}; got {received}$"):
        check_key(key, "seed_key")


def test_a_traced_batch_is_refused_at_trace_time():
    traced = r"got \w*Tracer of dtype key<fry> and shape \(2,\)"
    with pytest.raises(TypeError, match=rf"^key must be one JAX random key, .*; {traced}"):
        jax.jit(check_key)(jax.random.split(jax.random.key(0), 2))
