"""The check layer: one set of checks that holds for concrete and for traced values.

Concrete values (a model built at the prompt, a time grid, a config value) are checked eagerly and the error names
the argument, what was expected and what was received. Values inside `jax.jit`, `jax.vmap` or `jax.grad` are
tracers: there the same checks become [`equinox.error_if`](https://docs.kidger.site/equinox/api/errors/) (which
raises when the compiled program runs) or, where one bad member must not stop an ensemble, a per-member flag that the
caller turns into a failed member (`Trajectory.succeeded` false, its values NaN). Every message has one style:
`<name> must be <expected>; got <received>`.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike


def is_concrete(*xs) -> bool:
    """True when no leaf of `xs` is a tracer: values exist (outside jit/vmap/grad) and can be checked eagerly."""
    return not any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree.leaves(xs))


def check_numeric(x, name: str, *, complex_ok: bool = False) -> None:
    """Raise `TypeError` naming `name` if `x` is not a number or an array of numbers (real unless `complex_ok`).

    Strings, objects and complex values where a real one is expected would otherwise fail deep inside NumPy or JAX
    with a message that names neither the argument nor what it should be.
    """
    kinds = "biufc" if complex_ok else "biuf"
    try:
        kind = np.dtype(jnp.result_type(x)).kind if not is_concrete(x) else np.asarray(x).dtype.kind
    except (TypeError, ValueError):
        kind = "O"
    if kind not in kinds:
        shown = repr(x) if len(repr(x)) <= 60 else repr(x)[:57] + "..."
        expected = "a number or an array of numbers" if complex_ok else "a real number or an array of real numbers"
        raise TypeError(f"{name} must be {expected}; got {type(x).__name__} {shown}")


def check_finite(x, name: str) -> None:
    """Raise `ValueError` naming `name` if concrete `x` holds NaN or inf."""
    if is_concrete(x):
        arr = np.asarray(x)
        bad = ~np.isfinite(arr)
        if bad.any():
            first = np.argwhere(bad)[0].tolist()
            raise ValueError(f"{name} must be finite; found {int(bad.sum())} NaN/inf value(s), first at index {first}")


def as_float(x: ArrayLike, name: str, *, allow_inf: bool = False, complex_ok: bool = False) -> Array:
    """`x` as a floating (or, with `complex_ok`, complex) array, refused by name if it is not numeric or not finite.

    Integers become floats; Python floats stay weakly typed, so a float32 model stays float32. `allow_inf` lets
    ±inf through (a step that never ends). Tracers pass unchecked (their values are not known yet).
    """
    check_numeric(x, name, complex_ok=complex_ok)
    arr = jnp.asarray(x)
    if not jnp.issubdtype(arr.dtype, jnp.floating) and not jnp.issubdtype(arr.dtype, jnp.complexfloating):
        arr = arr.astype(float)
    check_finite(jnp.where(jnp.isinf(arr), 0.0, arr) if allow_inf else arr, name)
    return arr


def check_increasing(x, name: str) -> None:
    """Raise `ValueError` if concrete 1-D `x` is not strictly increasing."""
    if is_concrete(x):
        arr = np.asarray(x)
        steps = np.diff(arr)
        if (steps <= 0).any():
            i = int(np.argmax(steps <= 0))
            raise ValueError(
                f"{name} must be strictly increasing; {name}[{i + 1}] = {arr[i + 1]} follows {name}[{i}] = {arr[i]}"
            )


def check_nonnegative(x, name: str, units: str = "") -> None:
    """Raise `ValueError` if concrete `x` has a negative entry."""
    if is_concrete(x):
        arr = np.asarray(x)
        if (arr < 0).any():
            raise ValueError(f"{name} must be >= 0 {units}".rstrip() + f"; got {arr.min()}")


def check_positive(x, name: str, units: str = "") -> None:
    """Raise `ValueError` if concrete `x` has an entry <= 0."""
    if is_concrete(x):
        arr = np.asarray(x)
        if (arr <= 0).any():
            raise ValueError(f"{name} must be > 0 {units}".rstrip() + f"; got {arr.min()}")


# ---------------------------------------------------------------- physical checks of a model's parameters
Checks = Mapping[str, tuple[jax.Array, jax.Array]]
"""`{"<name> must be <expected>": (ok, value)}`: `ok` a boolean array (the batch shape of the model, or scalar),
`value` the parameter it judges (shown in the message)."""


def _first_failure(checks: Checks) -> str | None:
    """The message of the first failing concrete check, with the offending value and member."""
    for message, (passed, checked) in checks.items():
        ok = np.asarray(passed)
        if ok.all():
            continue
        value = np.broadcast_to(np.asarray(checked), ok.shape) if np.ndim(checked) <= ok.ndim else np.asarray(checked)
        if ok.ndim == 0:
            return f"{message}; got {value.item() if value.ndim == 0 else value}"
        index = np.argwhere(~ok)
        first = tuple(index[0].tolist())
        where = f"member {first[0]}" if len(first) == 1 else f"member {first}"
        shown = value[first] if value.shape == ok.shape else value
        return f"{message}; got {shown} ({where}; {len(index)} of {ok.size} members fail this check)"
    return None


def raise_if_unphysical(checks: Checks) -> None:
    """Eager form: raise `ValueError` for the first failing check when every value is concrete."""
    if is_concrete([ok for ok, _ in checks.values()]):
        message = _first_failure(checks)
        if message is not None:
            raise ValueError(message)


def physical_flag(checks: Checks, x, *, throw: bool):
    """Traced form: `(x, ok)` with `ok` true where every check holds (one flag per simulated member).

    With `throw`, a failing check raises when the compiled program runs (`eqx.branched_error_if`, attached to `x` so
    that the error is raised before `x` is used); its message is that of the first failing check. All checks share
    one conditional: each `eqx.error_if` costs tens of milliseconds to trace (it walks the Python stack), and a cell
    has tens of checks.
    """
    if not checks:
        return x, jnp.asarray(True)
    passed = jnp.stack([jnp.all(jnp.asarray(p)) for p, _ in checks.values()])
    ok = jnp.all(passed)
    if throw:
        # the first failing check (under vmap, the largest such index over the members: a member that passes every
        # check contributes 0, so the message is always one that some member fails)
        x = eqx.branched_error_if(x, ~ok, jnp.argmin(passed), list(checks))
    return x, ok


def check_state_shapes(model, y0) -> None:
    """Refuse a state variable whose shape does not broadcast with that of `model.initial_state()`.

    For models whose states have fixed shapes (cells: one value per compartment); their `check_state` calls it.
    Models whose states take extra axes of their own (a quantum state with one column per propagated basis state)
    do not.

    A larger state is allowed: a vector protocol (one amplitude per cell of an F-I curve) drives a scalar-parameter
    model over a leading axis that only `y0` and the protocol carry.
    """
    expected = jax.eval_shape(model.initial_state)
    leads: dict[str, tuple[int, ...]] = {}
    for name, value in y0.items():
        want = getattr(expected.get(name) if isinstance(expected, dict) else None, "shape", None)
        if want is None or isinstance(value, dict | list | tuple):
            continue  # a structured state: left to the model's check_state
        want, got = tuple(want), tuple(jnp.shape(value))
        try:
            np.broadcast_shapes(got, want)
        except ValueError:
            raise ValueError(
                f"y0[{name!r}] must have shape {want} (as model.initial_state()) or one that broadcasts with it; "
                f"got shape {got}"
            ) from None
        leads[name] = got[: max(len(got) - len(want), 0)]
    if len(set(leads.values())) > 1:  # a leading axis on some states only: the vector field cannot match it
        shown = ", ".join(f"y0[{k!r}] {v}" for k, v in leads.items())
        raise ValueError(f"y0 entries must share one leading shape beyond model.initial_state()'s; got {shown}")


# ---------------------------------------------------------------- solver options (simulate, sesolve, mesolve)
def check_solve_options(solver=None, stepsize_controller=None, adjoint=None, max_steps: int | None = None) -> None:
    """Refuse solver options of the wrong kind or value, naming the keyword (before diffrax meets them).

    A string solver or adjoint would fail deep inside diffrax with an `AttributeError`, and `max_steps=-1` with a
    `math domain error`; the controller's settings are checked by `check_stepsize_controller`.
    """
    for name, value, kind, example in (
        ("solver", solver, diffrax.AbstractSolver, "diffrax.Tsit5()"),
        ("adjoint", adjoint, diffrax.AbstractAdjoint, "diffrax.RecursiveCheckpointAdjoint()"),
    ):
        if value is not None and not isinstance(value, kind):
            raise TypeError(
                f"{name} must be a diffrax {kind.__name__} instance, e.g. {example}, or None; got {value!r}"
            )
    check_stepsize_controller(stepsize_controller)
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, numbers.Integral)):
        raise TypeError(f"max_steps must be a positive integer or None; got {max_steps!r}")
    if max_steps is not None and max_steps < 1:
        raise ValueError(f"max_steps must be a positive integer or None; got {max_steps}")


def check_stepsize_controller(controller, name: str = "stepsize_controller") -> None:
    """Refuse a step-size controller whose concrete settings cannot give a correct solve, naming the field.

    diffrax accepts `PIDController(rtol=-1, atol=1e-8)` and runs it: the error test `err / (atol + rtol |y|) < 1` then
    accepts nearly any step (a wrong answer reported as success), and `rtol = atol = 0` rejects every step until
    `max_steps` runs out, with advice (raise `max_steps`) that cannot help. Traced settings are not checked.
    """
    if controller is None:
        return
    if not isinstance(controller, diffrax.AbstractStepSizeController):
        if isinstance(controller, type):
            shown = f"the class {controller.__name__} (call it: {controller.__name__}(...))"
        else:
            shown = f"{type(controller).__name__} {controller!r}"
        raise TypeError(
            f"{name} must be a diffrax step-size controller instance, e.g. diffrax.PIDController(rtol=1e-6, "
            f"atol=1e-8) or diffrax.ConstantStepSize(); got {shown}"
        )
    if isinstance(controller, diffrax.ClipStepSizeController):
        check_stepsize_controller(controller.controller, f"{name}.controller")
        for field in ("step_ts", "jump_ts"):
            if getattr(controller, field) is not None:
                check_finite(getattr(controller, field), f"{name}.{field}")
    elif isinstance(controller, diffrax.PIDController):
        _check_pid(controller, name)
    elif isinstance(controller, diffrax.StepTo):
        check_finite(controller.ts, f"{name}.ts")
        check_increasing(controller.ts, f"{name}.ts")


#: PID settings that diffrax accepts but that cannot give a correct solve: (field, test, what is expected).
#: NaN fails every test; dtmax = inf and factormax = inf mean "no bound" and pass.
_PID_RULES = (
    ("rtol", lambda x: np.isfinite(x) & (x >= 0), "finite and >= 0 (a tolerance)"),
    ("atol", lambda x: np.isfinite(x) & (x >= 0), "finite and >= 0 (a tolerance)"),
    ("dtmin", lambda x: x > 0, "> 0 (or None)"),
    ("dtmax", lambda x: x > 0, "> 0 (or None)"),
    ("error_order", lambda x: x > 0, "> 0 (or None)"),
    ("pcoeff", np.isfinite, "finite"),
    ("icoeff", np.isfinite, "finite"),
    ("dcoeff", np.isfinite, "finite"),
    ("factormin", lambda x: (x > 0) & (x <= 1), "in (0, 1] (a rejected step shrinks by at least it)"),
    ("factormax", lambda x: x >= 1, ">= 1 (an accepted step grows by at most it)"),
    ("safety", lambda x: (x > 0) & (x <= 1), "in (0, 1]"),
)


def _check_pid(c: diffrax.PIDController, name: str) -> None:
    """The PID controller's tolerances, step bounds, coefficients and factors (see `check_stepsize_controller`)."""
    values = {field: getattr(c, field) for field, _, _ in _PID_RULES}
    if not is_concrete(list(values.values())):
        return
    v = {k: np.asarray(x, dtype=float) for k, x in values.items() if x is not None}
    for field, test, expected in _PID_RULES:
        if field in v and not np.all(test(v[field])):
            raise ValueError(f"{name}.{field} must be {expected}; got {values[field]!r}")
    if np.any((v["rtol"] == 0) & (v["atol"] == 0)):
        raise ValueError(
            f"{name}.rtol and {name}.atol must not both be 0: no step can meet a zero tolerance (raising max_steps "
            "cannot help); got rtol=0, atol=0"
        )
    if "dtmin" in v and "dtmax" in v and np.any(v["dtmin"] > v["dtmax"]):
        raise ValueError(f"{name}.dtmin must be <= {name}.dtmax; got dtmin={values['dtmin']}, dtmax={values['dtmax']}")
    if not np.all(v["pcoeff"] + v["icoeff"] + v["dcoeff"] > 0):
        raise ValueError(
            f"{name}.pcoeff + icoeff + dcoeff must be > 0 (otherwise the step does not respond to the error); got "
            f"{values['pcoeff']} + {values['icoeff']} + {values['dcoeff']}"
        )
