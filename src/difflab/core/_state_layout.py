r"""A solver's own layout of the state between its steps; the model's layout for everything a solve returns.

A fixed-step solver may carry the state in a smaller form than the model's (`pack`), as long as every saved value
is in the model's form again (`unpack`): the multi-compartment cable step keeps each gate only on the
compartments where its channel is present (`difflab.neuron`), where the model's state holds it on every
compartment. [`simulate`][difflab.simulate] packs the initial state, runs the solve on the packed state, and
unpacks the state before `observe` or the saving of the whole state, so that trajectories, recorders and
gradients see the model's layout only.

A solver offers a layout through `state_layout(model, y0) -> AbstractStateLayout`. It is used under fixed
steps only: an adaptive controller's error norm averages over every entry of the state, and a packed state
would change that average (and so the steps taken).
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any

import diffrax
import equinox as eqx


class AbstractStateLayout(eqx.Module):
    """`pack` (the model's state to the solver's) and `unpack` (back); `unpack(pack(y))` equals `y`."""

    @abc.abstractmethod
    def pack(self, y: Any) -> Any:
        """The solver's form of the model's state `y`."""

    @abc.abstractmethod
    def unpack(self, y: Any) -> Any:
        """The model's form of the solver's state `y`."""


def solver_layout(solver, model, y0, controller) -> AbstractStateLayout | None:
    """The layout `solver` carries `model`'s state in between fixed steps, or `None` (the model's own)."""
    make = getattr(solver, "state_layout", None)
    if make is None or not isinstance(controller, diffrax.ConstantStepSize):
        return None
    return make(model, y0)


class SaveUnpacked(eqx.Module):
    """A solve's save function `save(t, y, args)` given the model's state from the solver's packed one.

    A module (equal for equal parts), so that a second solve of the same shapes reuses the first one's program.
    """

    save: Callable
    layout: AbstractStateLayout

    def __call__(self, t, y, args):
        return self.save(t, self.layout.unpack(y), args)


class PackedVectorField(eqx.Module):
    """A model's `vector_field(t, y, args)` given the solver's packed state: unpacked, evaluated, packed again.

    The solver steps the packed state itself, but diffrax evaluates the term once before a solve that runs
    through its own loop (a traced `simulate`, or more steps than the fixed-step scan holds) to check the
    derivative's structure against the state's. The model's vector field on the packed state would fail there.
    A module (equal for equal parts), so that a second solve of the same shapes reuses the first one's program.
    """

    vector_field: Callable
    layout: AbstractStateLayout

    def __call__(self, t, y, args):
        return self.layout.pack(self.vector_field(t, self.layout.unpack(y), args))
