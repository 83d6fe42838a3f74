r"""What a parsed NMODL density mechanism means to difflab: its parameters, gates, ion, current and units.

Units: NEURON's densities are S/cm² and mA/cm², difflab's mS/cm² and µA/cm². A `PARAMETER` declared in
`(S/cm2)` or `(mho/cm2)` becomes a field in mS/cm² (value × 1000); `(uS/cm2)` × 1e-3, `(mS/cm2)` as is; every other
unit (mV, ms, 1/ms, mM, degC, none) is kept. The mechanism's own statements run in its own units (fields are
converted back), and its current, in mA/cm² (`ASSIGNED` units `(mA/cm2)` or none), is turned into µA/cm² (× 1000):
so `g = gbar·m³h` in S/cm² times `(v − e)` in mV gives difflab's conductance in mS/cm².

Names that are not parameters of the channel: `v` (the membrane potential, mV), `celsius` (the cell's temperature,
°C, even where the file gives it a default), `t`, `dt`, and the ion variables of `USEION` (`ena`, `cai`, `ina`, …).
The reversal potential is the field `E`: `e<ion>` for an ion current (default NEURON's 50 mV for na, −77 mV for
k, 132.458 mV for ca; the cell's Nernst potential replaces it where a concentration mechanism computes one), or,
for a `NONSPECIFIC_CURRENT i`, the `PARAMETER` `e` found in `i = … (v − e)` (with that parameter's default).

A mechanism that writes an intracellular concentration (`USEION ca READ ica WRITE cai`) and no current is a
concentration mechanism (see `_nmodl_concentration`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ._nmodl_grammar import Program
from ._nmodl_lex import NMODLError

#: .mod units → (difflab units, factor from the .mod's value to difflab's).
UNIT_CONVERSIONS = {
    "S/cm2": ("mS/cm^2", 1e3),
    "mho/cm2": ("mS/cm^2", 1e3),
    "mS/cm2": ("mS/cm^2", 1.0),
    "uS/cm2": ("mS/cm^2", 1e-3),
    "mA/cm2": ("uA/cm^2", 1e3),
}
#: NEURON's default reversal potentials (mV): `ena`, `ek`, `eca` (from its default calcium concentrations).
DEFAULT_REVERSALS = {"na": 50.0, "k": -77.0, "ca": 132.4579341637009}
#: NEURON's default concentrations (mM) inside and outside (`<ion>i0_<ion>_ion`, `<ion>o0_<ion>_ion`) and valences.
DEFAULT_CONCENTRATIONS = {"ca": (5e-5, 2.0), "na": (10.0, 140.0), "k": (54.4, 2.5)}
DEFAULT_VALENCES = {"ca": 2, "na": 1, "k": 1}
_MEMBRANE = ("v", "celsius", "t", "dt", "diam", "area")
_RESERVED = ("E", "gates", "ion", "reads", "rates", "conductance", "current", "mechanism", "replace", "reversal")


@dataclasses.dataclass(frozen=True)
class Field:
    """A channel parameter: its default in difflab's units, those units and the factor to the .mod's units."""

    name: str
    default: float
    units: str
    to_mod: float


@dataclasses.dataclass(frozen=True)
class Meaning:
    suffix: str
    ion: str | None
    reads: tuple[str, ...]
    current: str
    reversal: str
    default_E: float | None
    fields: tuple[Field, ...]
    constants: dict[str, float]
    states: tuple[str, ...]
    derivative: str
    ion_names: frozenset[str]
    #: The concentration a concentration mechanism writes (`"cai"`), else `""`; its valence and defaults (mM).
    written: str = ""
    valence: int = 0
    concentrations: tuple[float, float] = (0.0, 0.0)


def meaning(prog: Program, current: str | None = None) -> Meaning:
    """The mechanism's meaning as the channel of one of its currents; refuses by name what the reader does not cover.

    A mechanism that writes several currents (NEURON's `hh`: `ina`, `ik`, `il`) needs `current`, the one to read;
    the channel then has the states that current's conductance reads.
    """
    if prog.suffix is None:
        raise NMODLError("the NEURON block has no SUFFIX (the mechanism's name); add `SUFFIX name`")
    reads, currents, ion_names, written = _ions(prog)
    if written:
        return _concentration(prog, written, list(currents), ion_names)
    if not currents:
        raise NMODLError(f"mechanism {prog.suffix!r} writes no current (USEION … WRITE i<ion> or NONSPECIFIC_CURRENT)")
    if current is None and len(currents) > 1:
        raise NMODLError(
            f"mechanism {prog.suffix!r} writes the currents {list(currents)}: read each as a channel with "
            "read_nmodl(..., current=<name>)"
        )
    current = current if current is not None else next(iter(currents))
    if current not in currents:
        raise NMODLError(f"current={current!r}: mechanism {prog.suffix!r} writes the currents {list(currents)}")
    ion = currents[current]
    reversal = f"e{ion}"
    default_E = DEFAULT_REVERSALS.get(ion) if ion is not None else None
    if ion is None:
        reversal = _nonspecific_reversal(prog, current)
        default_E = prog.parameters[reversal].value or 0.0
    units = prog.assigned.get(current) or prog.parameters.get(current)
    if units is not None and units.units not in (None, "mA/cm2"):
        raise NMODLError(f"current {current!r} must be in (mA/cm2) (a density mechanism); got ({units.units})")
    special = set(_MEMBRANE) | ion_names | {reversal}
    fields = tuple(_field(d.name, d.value, d.units) for d in prog.parameters.values() if d.name not in special)
    for f in fields:
        if f.name in _RESERVED:
            raise NMODLError(f"PARAMETER {f.name!r} clashes with a name of difflab's channels; rename it")
    return Meaning(
        suffix=prog.suffix,
        ion=ion,
        reads=reads,
        current=current,
        reversal=reversal,
        default_E=default_E,
        fields=fields,
        constants={d.name: d.value or 0.0 for d in prog.constants.values()},
        states=_states_of(prog, current),
        derivative=_derivative_block(prog),
        ion_names=frozenset(ion_names),
    )


def _states_of(prog: Program, current: str) -> tuple[str, ...]:
    """The STATEs that the BREAKPOINT's assignment of `current` reads, through earlier assignments.

    Every STATE if the BREAKPOINT calls a routine or branches (the reader does not follow those).
    """
    needed = {current}
    for stmt in reversed(prog.breakpoint):
        if stmt[0] != "set":
            return tuple(prog.states)
        if stmt[1] in needed:
            needed |= _names(stmt[2])
    return tuple(s for s in prog.states if s in needed)


def _names(expr: tuple) -> set[str]:
    if expr[0] == "name":
        return {expr[1]}
    children = expr[2:] if expr[0] == "bin" else expr[1:2] if expr[0] in ("neg", "not") else ()
    children = expr[2] if expr[0] == "call" else children
    return set().union(*(_names(c) for c in children))


def _concentration(prog: Program, written: list, currents: list, ion_names: set[str]) -> Meaning:
    """A mechanism that writes one intracellular concentration from its ion's current (`CaDynamics_E2`)."""
    state, ion, line = written[0]
    if len(written) > 1 or currents:
        raise NMODLError(
            f"line {line}: mechanism {prog.suffix!r} must write one concentration and no current; got "
            f"{[w[0] for w in written] + currents}"
        )
    if list(prog.states) != [state]:
        raise NMODLError(f"line {line}: mechanism {prog.suffix!r} writes {state}: its only STATE must be {state}")
    special = set(_MEMBRANE) | ion_names
    fields = tuple(_field(d.name, d.value, d.units) for d in prog.parameters.values() if d.name not in special)
    for f in fields:
        if f.name in ("c_out", "c_init", "ion", "state", "valence", "units", "mechanism", "replace"):
            raise NMODLError(f"PARAMETER {f.name!r} clashes with a name of difflab's concentration mechanisms")
    valence = prog.valences.get(ion, DEFAULT_VALENCES.get(ion))
    if valence is None or ion not in DEFAULT_CONCENTRATIONS:
        raise NMODLError(f"line {line}: ion {ion!r}: the reader knows the concentrations of na, k and ca only")
    return Meaning(
        suffix=prog.suffix or "",
        ion=ion,
        reads=(),
        current=f"i{ion}",
        reversal="",
        default_E=None,
        fields=fields,
        constants={d.name: d.value or 0.0 for d in prog.constants.values()},
        states=(state,),
        derivative=_derivative_block(prog),
        ion_names=frozenset(ion_names),
        written=state,
        valence=int(valence),
        concentrations=DEFAULT_CONCENTRATIONS[ion],
    )


def _field(name: str, value: float | None, units: str | None) -> Field:
    label, factor = UNIT_CONVERSIONS.get(units or "", (units or "1", 1.0))
    return Field(name, (value or 0.0) * factor, label, 1.0 / factor)


def _ions(prog: Program) -> tuple[tuple[str, ...], dict[str, str | None], set[str], list]:
    """The concentrations read, `{current: its ion or None}`, the ion variables, the concentrations written.

    The last are `(name, ion, line)`.
    """
    written: list[tuple[str, str, int]] = []
    reads: list[str] = []
    currents: dict[str, str | None] = dict.fromkeys(prog.nonspecific)
    names = set(prog.nonspecific)
    for name, read, write, line in prog.useions:
        concentrations = (f"{name}i", f"{name}o")
        for w in write:
            if w == f"{name}o":
                raise NMODLError(f"line {line}: USEION {name} WRITE {w}: extracellular concentrations are fixed here")
            if w not in (f"i{name}", f"{name}i"):
                raise NMODLError(f"line {line}: USEION {name} WRITE {w}: expected i{name} or {name}i")
        if f"{name}i" in write:
            written.append((f"{name}i", name, line))
        if f"i{name}" in write:
            currents[f"i{name}"] = name
        reads += [r for r in read if r in concentrations]
        names |= set(read) | set(write) | {f"e{name}", f"i{name}", *concentrations}
    return tuple(reads), currents, names, written


def _nonspecific_reversal(prog: Program, current: str) -> str:
    """The PARAMETER `e` in the BREAKPOINT's `current = … (v − e)`."""
    for stmt in prog.breakpoint:
        if stmt[0] == "set" and stmt[1] == current:
            found = _difference_with_v(stmt[2], set(prog.parameters))
            if found:
                return found
    raise NMODLError(
        f"NONSPECIFIC_CURRENT {current!r}: expected an assignment `{current} = g*(v - e)` in BREAKPOINT with e a "
        "PARAMETER (its reversal potential)"
    )


def _difference_with_v(expr: tuple, parameters: set[str]) -> str | None:
    if expr[0] == "bin" and expr[1] == "-" and expr[2][:2] == ("name", "v") and expr[3][0] == "name":
        return expr[3][1] if expr[3][1] in parameters else None
    children = expr[2:] if expr[0] == "bin" else expr[1:2] if expr[0] in ("neg", "not") else ()
    return next((n for c in children if (n := _difference_with_v(c, parameters))), None)


def _derivative_block(prog: Program) -> str:
    if not prog.states:
        return ""
    if prog.solve is None:
        raise NMODLError("BREAKPOINT has no `SOLVE <block> METHOD cnexp` for the STATE variables")
    name, method, line = prog.solve
    if method != "cnexp":
        raise NMODLError(
            f"line {line}: METHOD {method} is not supported; the reader takes HH-style gates solved with "
            "METHOD cnexp (x' linear in x)"
        )
    if name not in prog.derivatives:
        raise NMODLError(f"line {line}: SOLVE {name}: no DERIVATIVE block named {name!r}")
    targets = {s[1] for s in prog.derivatives[name] if s[0] == "diff"}
    for state in prog.states:
        if state not in targets:
            raise NMODLError(f"STATE {state!r} has no equation {state}' = … in DERIVATIVE {name}")
    for target in targets - set(prog.states):
        raise NMODLError(f"DERIVATIVE {name}: {target}' is not a STATE")
    return name


@dataclasses.dataclass(frozen=True, eq=False)
class Compiled:
    """A mechanism's meaning and its compiled blocks, shared by every instance read from one text."""

    meaning: Meaning
    derivative: Callable[[dict], None]
    breakpoint: Callable[[dict], None]
