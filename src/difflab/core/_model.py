"""The model concept: an immutable Equinox module that knows its equations, states and units."""

from __future__ import annotations

import abc
import dataclasses
from typing import Any, ClassVar, Self

import diffrax
import equinox as eqx
import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, PyTree

from ._backend import default_solver
from ._checks import check_numeric, raise_if_unphysical
from ._paths import get_path, iter_parameters, set_paths


@dataclasses.dataclass(frozen=True)
class StateInfo:
    """Name, units and description of one state variable (CF ``units`` / ``long_name``)."""

    name: str
    units: str
    long_name: str


State = dict[str, Array]


class AbstractModel(eqx.Module):
    """A system of ordinary differential equations ``dy/dt = f(t, y, args)``.

    Subclasses are final Equinox modules whose parameters are array fields (so a new
    value never triggers recompilation). The state ``y`` is a ``dict`` that maps each
    state name of [`AbstractModel.states`][] to an array.

    The driving input (a stimulus current, a control pulse, a source track) is passed
    as ``args``: [`difflab.simulate`][] hands the protocol over unchanged.
    """

    #: Names, units and descriptions of the state variables, in output order.
    states: eqx.AbstractClassVar[tuple[StateInfo, ...]]
    #: Units of the independent variable (e.g. ``"ms"``, ``"ns"``, ``"s"``).
    time_units: eqx.AbstractClassVar[str]

    @abc.abstractmethod
    def vector_field(self, t: ArrayLike, y: State, args: Any) -> State:
        """The right-hand side ``dy/dt`` at time ``t`` for state ``y`` and input ``args``."""

    @abc.abstractmethod
    def initial_state(self) -> State:
        """The default initial state (e.g. rest with gates at steady state)."""

    # Hooks with defaults: a model may know which scheme suits its structure best.
    def default_solver(self) -> Any:
        """The solver [`difflab.simulate`][] uses when none is given.

        Default: [`difflab.UnrolledTsit5`][] on the CPU, ``diffrax.Tsit5`` on accelerators; see docs/backends.md.
        """
        return default_solver()

    def default_stepsize_controller(self) -> Any:
        """The step-size controller used when none is given (default: PID, rtol 1e-6, atol 1e-8)."""
        return diffrax.PIDController(rtol=1e-6, atol=1e-8)

    def default_dt0(self) -> float | Array | None:
        """The initial step (``None`` lets an adaptive controller choose)."""
        return None

    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        """The model's physical constraints on its parameters, `{"<name> must be <expected>": (ok, value)}`.

        `ok` is a boolean array, true where the constraint holds (the batch shape for a batch of models). These
        checks are the one source of truth for parameters: they run eagerly on concrete values (construction,
        `replace`, [`difflab.make_batch`][], [`difflab.simulate`][]) and, on traced values, inside
        [`difflab.simulate`][] as `eqx.error_if` or as a failed member of an ensemble. The default checks that
        every floating parameter is finite.
        """
        names = {path: alias for alias, path in self.aliases.items()}
        return {
            f"{names.get(path, path)} must be finite": (jnp.isfinite(value), value)
            for path, value in iter_parameters(self)
        }

    # Parameters by name ---------------------------------------------------------------
    #: Short names for dotted parameter paths, e.g. ``{"gNa": "channels.na.gbar"}``.
    aliases: ClassVar[dict[str, str]] = {}
    #: Units of parameters by (short or dotted) name, for labelled output.
    parameter_units: ClassVar[dict[str, str]] = {}
    #: Parameters that set the model's default step (`default_dt0`), named when that step is too small to run.
    step_parameters: ClassVar[tuple[str, ...]] = ()

    def parameters(self) -> dict[str, Array]:
        """All floating array fields by dotted name (``"channels.na.gbar"``), plus aliases."""
        found = dict(iter_parameters(self))
        return {**{a: get_path(self, p) for a, p in self.aliases.items()}, **found}

    def resolve(self, name: str) -> str:
        """The dotted path of parameter ``name`` (an alias or a path); clear error if unknown."""
        path = self.aliases.get(name, name)
        valid = self.parameters()
        if path not in valid:
            raise KeyError(
                f"unknown parameter {name!r} for {type(self).__name__}; valid names: {', '.join(sorted(valid))}"
            )
        return path

    def replace(self, **values: ArrayLike) -> Self:
        """A copy with parameters replaced by name, ``model.replace(gNa=110.0)``.

        Values keep the dtype of the field they replace (a float32 model stays float32).
        """
        for name, value in values.items():  # by the name the user gave (set_paths would name the dotted path)
            kind = get_path(self, self.resolve(name)).dtype.kind
            check_numeric(value, name, complex_ok=kind == "c")
        model = set_paths(self, {self.resolve(name): value for name, value in values.items()})
        raise_if_unphysical(model.physical_checks())
        return model

    def check_state(self, y: PyTree) -> None:
        """Validate a user-supplied initial state eagerly; raises ``ValueError``."""
        expected = {s.name for s in self.states}
        if not isinstance(y, dict) or set(y) != expected:
            got = sorted(y) if isinstance(y, dict) else type(y).__name__
            raise ValueError(f"y0 must be a dict with keys {sorted(expected)}; got {got}")
