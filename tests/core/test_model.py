"""AbstractModel: parameters by name, replacement, and the abstract/final contract."""

import equinox as eqx
import jax.numpy as jnp
import numpy as np
import pytest
from _systems import Relaxation

import difflab


def test_parameters_are_found_by_name_and_replaced_keeping_dtype():
    model = eqx.tree_at(lambda m: m.tau, Relaxation(), jnp.float32(2.0))
    assert sorted(model.parameters()) == ["tau", "y_init"]
    new = model.replace(tau=5.0)
    assert new.tau.dtype == jnp.float32 and float(new.tau) == 5.0
    assert float(model.tau) == 2.0  # models are immutable


def test_unknown_parameter_lists_the_valid_names():
    with pytest.raises(KeyError, match="unknown parameter 'gNa' for Relaxation; valid names: tau, y_init"):
        Relaxation().resolve("gNa")


def test_batched_replacement_keeps_the_member_axis():
    model = Relaxation().replace(tau=np.array([1.0, 2.0, 3.0]))
    assert model.tau.shape == (3,)


def test_abstract_model_cannot_be_instantiated():
    with pytest.raises(TypeError):
        difflab.AbstractModel()
