r"""`read_nmodl`: a NEURON mechanism (.mod file, Hodgkin–Huxley-style subset of NMODL) as a difflab channel.

A gate solved with `METHOD cnexp` obeys a derivative linear in itself, which NEURON writes as
`x' = (x∞ − x)/τ` or `x' = α (1 − x) − β x`; both are `x' = α − (α + β) x`. The reader evaluates the
`DERIVATIVE` block at `x = 0` and `x = 1`:

$$\alpha = x'|_{x=0}, \qquad \beta = -x'|_{x=1},$$

exact for every linear form (for `(x∞, τ)` forms `β` is `(x∞ − 1)/τ` rounded as the file computes it). The
conductance comes from the `BREAKPOINT`: HH-style currents are `i = g(gates) (v − e)`, so `g` is the current at
`v − e = 1 mV`. Both forms are checked when the file is read (the derivative at a third point, the current at other
`v` and `e`); a mechanism that is not linear is refused by name.

The channel is an [`AbstractChannel`][difflab.neuron.AbstractChannel] (an `eqx.Module`, differentiable in every
parameter) whose fields are the file's `PARAMETER`s by name, in difflab's units (see `_nmodl_mechanism` for the
conversions: a density in S/cm² becomes mS/cm², × 1000), and `E`, the reversal potential (mV). Its gates are the
file's `STATE`s named `<state>_<SUFFIX>` (`m_NaTs2_t`), as NEURON names them and unique across the channels of a
cell. `INITIAL` is checked for names but not run: gates start at `x∞ = α/(α + β)`, as for every difflab channel.

Reference: Hines & Carnevale, Neural Computation 12:995 (2000); NEURON's NMODL documentation (cnexp).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ._channels import AbstractChannel, channel_param
from ._nmodl_concentration import AbstractNMODLConcentration, concentration_class
from ._nmodl_eval import Compiler
from ._nmodl_lex import NMODLError
from ._nmodl_mechanism import Compiled, meaning
from ._nmodl_parse import parse

# Where the linearity of the kinetics and of the current is checked when a file is read: potentials (mV) that
# miss the usual removable singularities, a temperature (°C) and NEURON's default concentrations (mM).
_CHECK_V = np.array([-97.3, -71.1, -52.7, -33.3, -12.9, 7.7, 23.1, 46.9])
_CHECK_CELSIUS = 34.0
_CHECK_CONCENTRATIONS = {"cai": 5e-5, "cao": 2.0, "nai": 10.0, "nao": 140.0, "ki": 54.4, "ko": 2.5}


class AbstractNMODLChannel(AbstractChannel):
    """A channel read from an NMODL text by [`read_nmodl`][difflab.neuron.read_nmodl] (one subclass per text)."""

    mechanism: ClassVar[Compiled]
    E: eqx.AbstractVar[Array]

    def _env(self, celsius: ArrayLike, concentrations: dict[str, Array]) -> dict[str, Any]:
        m = self.mechanism.meaning
        env: dict[str, Any] = {f.name: getattr(self, f.name) * f.to_mod for f in m.fields}
        env.update(m.constants)
        env.update(celsius=celsius, **concentrations)
        env[m.reversal] = self.E
        return env

    def _derivatives(self, V: ArrayLike, celsius: ArrayLike, concentrations: dict, states: dict) -> dict:
        env = self._env(celsius, concentrations) | states
        env["v"] = V
        self.mechanism.derivative(env)
        return {s: env[s + "'"] for s in self.mechanism.meaning.states}

    def rates(self, V, celsius, **concentrations):
        m = self.mechanism.meaning
        if set(concentrations) != set(m.reads):
            raise TypeError(f"{m.suffix}.rates takes the concentrations {m.reads}; got {tuple(concentrations)}")
        zero = self._derivatives(V, celsius, concentrations, dict.fromkeys(m.states, 0.0))
        one = self._derivatives(V, celsius, concentrations, dict.fromkeys(m.states, 1.0))
        shape = jnp.broadcast_shapes(jnp.shape(V), *(jnp.shape(c) for c in concentrations.values()))
        return {
            f"{s}_{m.suffix}": (jnp.broadcast_to(zero[s], shape), jnp.broadcast_to(-one[s], shape)) for s in m.states
        }

    def _current(self, gates: dict, v: ArrayLike, e: ArrayLike) -> Array:
        """The BREAKPOINT's current in µA/cm² at potential `v` and reversal `e` (mV)."""
        m = self.mechanism.meaning
        env = self._env(0.0, {})
        env.update({s: gates[f"{s}_{m.suffix}"] for s in m.states})
        env.update(v=v)
        env[m.reversal] = e
        self.mechanism.breakpoint(env)
        return 1e3 * jnp.asarray(env[m.current])  # mA/cm² → µA/cm²

    def conductance(self, gates):
        return self._current(gates, 0.0, -1.0)

    def replace(self, **values: ArrayLike) -> AbstractNMODLChannel:
        """A copy with parameters replaced by name, in difflab's units (`ch.replace(gNaTs2_tbar=983.955)`)."""
        units = {f.name: f.units for f in self.mechanism.meaning.fields} | {"E": "mV"}
        for name in values:
            if name not in units:
                raise KeyError(f"unknown parameter {name!r} of {type(self).__name__}; valid names: {sorted(units)}")
        new = [channel_param(v, k, units[k]) for k, v in values.items()]
        return eqx.tree_at(lambda c: [getattr(c, k) for k in values], self, new)


def read_nmodl(
    source: str | Path, *, current: str | None = None, **overrides: ArrayLike
) -> AbstractNMODLChannel | AbstractNMODLConcentration:
    """A difflab channel (or concentration mechanism) from an NMODL density mechanism (a .mod file or its text).

    Args:
        source: a path (`str` or `Path`) to a .mod file, or the NMODL text itself (any text with a `{`).
        current: for a mechanism that writes several currents (NEURON's `hh`: `ina`, `ik`, `il`), the one to read
            as a channel; its gates are the states that this current's conductance reads (`m`, `h` for `ina`),
            so reading each current gives channels that go into one cell together. Every PARAMETER of the file
            is a field of each.
        overrides: parameter values by their PARAMETER name, in difflab's units (mS/cm² for S/cm² densities), or
            `E` (mV) for the reversal potential; for a concentration mechanism also `c_out`, `c_init` (mM).

    Returns:
        An instance of a generated [`AbstractChannel`][difflab.neuron.AbstractChannel] subclass named after the
        SUFFIX; for a mechanism that WRITEs an intracellular concentration (`cai`) and no current, an
        [`AbstractConcentration`][difflab.neuron.channels.AbstractConcentration] for the cell's `concentrations`
        (see `_nmodl_concentration`). Reading the same text again gives the same class.

    Raises:
        NMODLError: (a `ValueError`) for text outside the subset, naming the construct and its line: VERBATIM,
            KINETIC and other blocks, a METHOD other than cnexp, an unknown name or function, a derivative not
            linear in its state, a current not of the form `g(gates) (v − e)`, a missing SUFFIX, a syntax error.

    Example:
        `read_nmodl("channels/NaTs2_t.mod", gNaTs2_tbar=983.955)`.
    """
    text = source.read_text() if isinstance(source, Path) else source
    if isinstance(source, str) and "{" not in source:
        text = Path(source).read_text()
    cls: Any = _mechanism_class(text, current)  # a generated class: its fields are the file's
    return cls(**overrides)


@functools.lru_cache(maxsize=256)
def _mechanism_class(text: str, current: str | None) -> type[AbstractNMODLChannel] | type[AbstractNMODLConcentration]:
    prog = parse(text)
    m = meaning(prog, current)
    known = {d for d in (*prog.parameters, *prog.constants, *prog.assigned, *prog.states)}
    if m.written:  # a concentration mechanism sees its ion's current and outside concentration only
        known |= {m.current, f"{m.ion}o"}
    else:
        known |= {"v", "celsius", "t", "dt", "diam", "area", *m.ion_names}
    compiler = Compiler(prog, known)
    compiler.block(prog.initial, "INITIAL")
    derivative = compiler.block(prog.derivatives.get(m.derivative, ()), f"DERIVATIVE {m.derivative}")
    breakpoint = compiler.block(prog.breakpoint, "BREAKPOINT")
    compiled = Compiled(m, derivative, breakpoint)
    if m.written:
        return concentration_class(compiled)
    cls: Any = _make_class(compiled)
    _check_linear(cls())
    return cls


def _make_class(compiled: Compiled) -> type[AbstractNMODLChannel]:
    m = compiled.meaning
    fields = {f.name: f for f in m.fields}

    def __init__(self, **values: ArrayLike) -> None:
        unknown = set(values) - set(fields) - {"E"}
        if unknown:
            raise TypeError(f"{m.suffix}: unknown parameter(s) {sorted(unknown)}; valid names: {sorted(fields)} and E")
        for name, f in fields.items():
            setattr(self, name, channel_param(values.get(name, f.default), name, f.units))
        E = values.get("E", m.default_E)
        if E is None:
            raise TypeError(f"{m.suffix}: ion {m.ion!r} has no default reversal potential; pass E (mV)")
        self.E = channel_param(E, "E", "mV")

    namespace = {
        "__annotations__": {**dict.fromkeys(fields, Array), "E": Array},
        "__init__": __init__,
        "__module__": __name__,
        "__doc__": f"Channel {m.suffix!r} read from NMODL; parameters {sorted(fields)} and E (mV).",
        "gates": tuple(f"{s}_{m.suffix}" for s in m.states),
        "ion": m.ion,
        "reads": m.reads,
        "mechanism": compiled,
    }
    return type(m.suffix, (AbstractNMODLChannel,), namespace)


def _check_linear(ch: AbstractNMODLChannel) -> None:
    """Refuse a derivative not linear in its states or a current not `g(gates) (v − e)`, by name."""
    m = ch.mechanism.meaning
    V = jnp.asarray(_CHECK_V)
    conc = {c: jnp.full_like(V, _CHECK_CONCENTRATIONS.get(c, 1.0)) for c in m.reads}
    u = {s: 0.2 + 0.6 * (k + 1) / (len(m.states) + 1) for k, s in enumerate(m.states)}
    zero = ch._derivatives(V, _CHECK_CELSIUS, conc, dict.fromkeys(m.states, 0.0))
    one = ch._derivatives(V, _CHECK_CELSIUS, conc, dict.fromkeys(m.states, 1.0))
    mid = ch._derivatives(V, _CHECK_CELSIUS, conc, u)
    for s in m.states:
        a, b, x = (np.broadcast_to(np.asarray(d[s], float), V.shape) for d in (zero, one, mid))
        ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(x)
        err = np.abs(x - (a + u[s] * (b - a))) / (np.abs(a) + np.abs(b) + 1e-300)
        if np.any(err[ok] > 1e-9):
            raise NMODLError(
                f"{m.suffix}: the derivative {s}' (DERIVATIVE {m.derivative}) is not linear in {s}; METHOD cnexp "
                f"needs {s}' = a - b*{s} with a, b independent of the states"
            )
    gates = {f"{s}_{m.suffix}": jnp.full_like(V, u[s]) for s in m.states}
    g = np.asarray(ch._current(gates, 0.0, -1.0))
    for v, e, scale in ((0.0, -2.0, 2.0), (V, V - 1.0, 1.0), (-30.0, 20.0, -50.0)):
        other = np.asarray(ch._current(gates, v, e)) / scale
        if not np.allclose(other, g, rtol=1e-9, atol=1e-300):
            raise NMODLError(
                f"{m.suffix}: the current {m.current!r} is not of the form g(states)*(v - {m.reversal}) "
                "(the reader takes ohmic HH-style currents)"
            )
