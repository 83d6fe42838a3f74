"""NMODL statements and expressions as Python closures over `jax.numpy`, checked for unknown names first.

A compiled block is a function `run(env)` that reads and writes a dict environment of arrays (NMODL's variables
by name); nothing is evaluated from text, so the result traces, jits, vmaps and differentiates like any JAX code.

- Every name and function is resolved when the block is compiled: an unknown variable or function is refused by
  name with its line, before anything runs.
- `if (c) {…} else {…}` runs both branches on copies of the environment and merges every variable that either
  branch changed with `jnp.where(c, …)`, so a condition on a traced potential works under `jit`.
- Division `a/b` has the value of IEEE division everywhere, but where `b = 0` its gradient is 0 instead of NaN
  (a "double where"): a branch not taken that divides by zero, as `vtrap`'s `x/(exp(x/y) - 1)` at `x = 0` behind
  its `if`, would otherwise make the gradient NaN there although the value is right.
- A `PROCEDURE` sees the caller's variables, its arguments and `LOCAL`s; what it assigns to other names is seen by
  the caller afterwards (NEURON's semantics for range and global variables). A `FUNCTION` returns the value
  assigned to its own name.
- `x' = e` stores `e` under the key `"x'"`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from ._nmodl_grammar import Program, Routine
from ._nmodl_lex import NMODLError

Env = dict
Expr = Callable[[Env], Any]
Run = Callable[[Env], None]

Function = Callable[..., Any]
_ONE_ARG: dict[str, Function] = {"exp": jnp.exp, "log": jnp.log, "log10": jnp.log10, "fabs": jnp.abs}
_ONE_ARG |= {"sqrt": jnp.sqrt}
_ONE_ARG |= {"sin": jnp.sin, "cos": jnp.cos, "tan": jnp.tan, "tanh": jnp.tanh, "sinh": jnp.sinh, "cosh": jnp.cosh}
_ONE_ARG |= {"atan": jnp.arctan, "asin": jnp.arcsin, "acos": jnp.arccos, "floor": jnp.floor, "ceil": jnp.ceil}
_TWO_ARGS: dict[str, Function] = {"pow": jnp.power, "atan2": jnp.arctan2, "fmin": jnp.minimum, "fmax": jnp.maximum}
#: Built-in functions of NMODL that the reader evaluates.
BUILTINS = tuple(_ONE_ARG) + tuple(_TWO_ARGS)
#: NMODL's built-in constants.
CONSTANTS = {"PI": math.pi}


def _divide(a: Any, b: Any) -> Any:
    """`a / b` with finite gradients where `b = 0` (the value there stays IEEE's ±inf or NaN)."""
    zero = jnp.equal(b, 0)
    safe = jnp.where(zero, 1.0, b)
    return jnp.where(zero, jax.lax.stop_gradient(jnp.divide(a, b)), jnp.divide(a, safe))


_BINARY: dict[str, Function] = {"+": jnp.add, "-": jnp.subtract, "*": jnp.multiply, "/": _divide}
_BINARY |= {"^": jnp.power}
_BINARY |= {"<": jnp.less, ">": jnp.greater, "<=": jnp.less_equal, ">=": jnp.greater_equal}
_BINARY |= {"==": jnp.equal, "!=": jnp.not_equal, "&&": jnp.logical_and, "||": jnp.logical_or}


class Compiler:
    """Compiles the blocks of one program; `known` are the names every block may read (its global variables)."""

    def __init__(self, program: Program, known: set[str]):
        self.program = program
        self.known = known | set(CONSTANTS)
        self.routines: dict[str, Callable] = {}
        self.in_progress: set[str] = set()

    def block(self, body: tuple, where: str, extra: frozenset[str] = frozenset()) -> Run:
        """A top-level block (`BREAKPOINT`, `DERIVATIVE`, `INITIAL`) as `run(env)`."""
        return self.statements(body, self.known | extra | _locals(body), where)

    # -- statements ---------------------------------------------------------------------------------------------
    def statements(self, body: tuple, scope: set[str], where: str) -> Run:
        runs = [self.statement(s, scope, where) for s in body]

        def run(env: Env) -> None:
            for r in runs:
                r(env)

        return run

    def statement(self, stmt: tuple, scope: set[str], where: str) -> Run:
        kind = stmt[0]
        if kind in ("set", "diff"):
            _, name, expr, line = stmt
            if name not in scope:
                raise NMODLError(f"line {line}: assignment to unknown name {name!r} in {where}")
            value = self.expression(expr, scope, where)
            key = name + "'" if kind == "diff" else name
            return lambda env: env.__setitem__(key, value(env))
        if kind == "local":
            names = stmt[1]
            return lambda env: env.update(dict.fromkeys(names, 0.0))
        if kind == "block":
            return self.statements(stmt[1], scope, where)
        if kind == "if":
            return self.if_statement(stmt, scope, where)
        call = self.call(stmt, scope, where, statement=True)

        def run(env: Env) -> None:
            call(env)

        return run

    def if_statement(self, stmt: tuple, scope: set[str], where: str) -> Run:
        cond = self.expression(stmt[1], scope, where)
        then = self.statements(stmt[2], scope, where)
        other = self.statements(stmt[3], scope, where)

        def run(env: Env) -> None:
            c = cond(env)
            a_env, b_env = dict(env), dict(env)
            then(a_env)
            other(b_env)
            for key in a_env.keys() | b_env.keys():
                a: Any = a_env.get(key, env.get(key, 0.0))
                b: Any = b_env.get(key, env.get(key, 0.0))
                env[key] = a if a is b else jnp.where(c, a, b)

        return run

    # -- expressions --------------------------------------------------------------------------------------------
    def expression(self, expr: tuple, scope: set[str], where: str) -> Expr:
        kind = expr[0]
        if kind == "num":
            value = expr[1]
            return lambda env: value
        if kind == "name":
            _, name, line = expr
            if name not in scope:
                raise NMODLError(f"line {line}: unknown name {name!r} in {where}")
            if name in CONSTANTS:
                constant = CONSTANTS[name]
                return lambda env: env.get(name, constant)
            return lambda env: env.get(name, 0.0)
        if kind == "neg":
            inner = self.expression(expr[1], scope, where)
            return lambda env: jnp.negative(inner(env))
        if kind == "not":
            inner = self.expression(expr[1], scope, where)
            return lambda env: jnp.logical_not(inner(env))
        if kind == "bin":
            op = _BINARY[expr[1]]
            left = self.expression(expr[2], scope, where)
            right = self.expression(expr[3], scope, where)
            return lambda env: op(left(env), right(env))
        return self.call(expr, scope, where, statement=False)

    def call(self, expr: tuple, scope: set[str], where: str, *, statement: bool) -> Expr:
        _, name, arg_exprs, line = expr
        args = [self.expression(a, scope, where) for a in arg_exprs]
        arity = 1 if name in _ONE_ARG else 2 if name in _TWO_ARGS else None
        if arity is not None:
            if len(args) != arity:
                raise NMODLError(f"line {line}: {name} takes {arity} argument(s); got {len(args)}")
            fn = _ONE_ARG.get(name) or _TWO_ARGS[name]
            return lambda env: fn(*(a(env) for a in args))
        routine = self.program.functions.get(name) or self.program.procedures.get(name)
        if routine is None or (name in self.program.procedures and not statement):
            what = "procedure" if statement else "function"
            raise NMODLError(f"line {line}: unknown {what} {name!r} in {where}")
        if len(args) != len(routine.args):
            raise NMODLError(f"line {line}: {name} takes {len(routine.args)} argument(s); got {len(args)}")
        body = self.routine(routine)
        return lambda env: body(env, [a(env) for a in args])

    def routine(self, routine: Routine) -> Callable:
        """`body(env, args)`: runs a PROCEDURE or FUNCTION in its own scope; returns a FUNCTION's value."""
        name = routine.name
        if name in self.routines:
            return self.routines[name]
        if name in self.in_progress:
            raise NMODLError(f"line {routine.line}: recursive call of {name!r} is not supported")
        self.in_progress.add(name)
        is_function = name in self.program.functions
        private = set(routine.args) | _locals(routine.body) | ({name} if is_function else set())
        kind = "FUNCTION" if is_function else "PROCEDURE"
        run = self.statements(routine.body, self.known | private, f"{kind} {name}")
        self.in_progress.discard(name)

        def body(env: Env, args: list) -> object:
            scope = dict(env)
            scope.update(zip(routine.args, args, strict=True))
            scope.update({n: 0.0 for n in private - set(routine.args)})
            run(scope)
            env.update({k: v for k, v in scope.items() if k not in private})
            return scope[name] if is_function else None

        self.routines[name] = body
        return body


def _locals(body: tuple) -> set[str]:
    """Every name declared `LOCAL` in a body, nested blocks included."""
    out: set[str] = set()
    for stmt in body:
        if stmt[0] == "local":
            out.update(stmt[1])
        elif stmt[0] == "block":
            out |= _locals(stmt[1])
        elif stmt[0] == "if":
            out |= _locals(stmt[2]) | _locals(stmt[3])
    return out
