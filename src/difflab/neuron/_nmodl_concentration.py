r"""A mechanism that writes an intracellular concentration (`USEION ca READ ica WRITE cai`) as a concentration.

`read_nmodl` returns it as a difflab [`AbstractConcentration`][difflab.neuron.channels.AbstractConcentration].

difflab's concentration mechanisms obey `dc/dt = s(I) − c/τ` at the ion's current density `I` (µA/cm²), which the
cell's solver integrates exactly over a step. A cnexp `DERIVATIVE` for `c` is linear in `c`, so

$$s(I) = c'|_{c=0}, \qquad 1/\tau = c'|_{c=0} - c'|_{c=1},$$

with the file's current `i<ion>` = `I`/1000 in its mA/cm². Linearity in `c` is checked when the file is read.
The derivative may read the mechanism's parameters, constants (`FARADAY` from the UNITS block) and the fixed
extracellular concentration `<ion>o`; the membrane potential, temperature and geometry (`v`, `celsius`, `diam`)
are not known to a difflab concentration mechanism and are refused by name.

Fields: the file's PARAMETERs (their units kept), `c_out` (the extracellular concentration, mM; NEURON's default
2 mM for ca) and `c_init` (the initial intracellular concentration, mM; NEURON's default 5e-5 mM for ca).
"""

from __future__ import annotations

from typing import ClassVar

import equinox as eqx
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ._channels import channel_param
from ._nmodl_lex import NMODLError
from ._nmodl_mechanism import Compiled
from .channels import AbstractConcentration

_CHECK_CURRENTS = np.array([-20.0, -3.0, -0.1, 0.0, 2.5])  # µA/cm², inward (negative) and outward


class AbstractNMODLConcentration(AbstractConcentration):
    """A concentration mechanism read by [`read_nmodl`][difflab.neuron.read_nmodl] (one subclass per text)."""

    mechanism: ClassVar[Compiled]
    c_out: eqx.AbstractVar[Array]
    c_init: eqx.AbstractVar[Array]

    def _derivative(self, current: Array, c: Array | float) -> Array:
        m = self.mechanism.meaning
        env = {f.name: getattr(self, f.name) * f.to_mod for f in m.fields}
        env.update(m.constants)
        env[m.current] = current / 1000  # µA/cm² → mA/cm²
        env[f"{m.ion}o"] = self.c_out
        env[m.written] = c
        self.mechanism.derivative(env)
        return jnp.asarray(env[m.written + "'"])

    def linear_terms(self, current):
        zero = self._derivative(current, 0.0)
        one = self._derivative(current, 1.0)
        shape = jnp.shape(current)
        return jnp.broadcast_to(zero, shape), jnp.broadcast_to(zero - one, shape)

    def physical_checks(self, prefix: str) -> dict[str, tuple[Array, Array]]:
        return {
            f"{prefix}.c_out must be > 0 mM": (~(self.c_out <= 0), self.c_out),
            f"{prefix}.c_init must be > 0 mM": (~(self.c_init <= 0), self.c_init),
        }

    def replace(self, **values: ArrayLike) -> AbstractNMODLConcentration:
        """A copy with parameters replaced by name (`pool.replace(decay=200.0)`)."""
        units = {f.name: f.units for f in self.mechanism.meaning.fields} | {"c_out": "mM", "c_init": "mM"}
        for name in values:
            if name not in units:
                raise KeyError(f"unknown parameter {name!r} of {type(self).__name__}; valid names: {sorted(units)}")
        new = [channel_param(v, k, units[k]) for k, v in values.items()]
        return eqx.tree_at(lambda c: [getattr(c, k) for k in values], self, new)


def concentration_class(compiled: Compiled) -> type[AbstractNMODLConcentration]:
    """The generated final class of one concentration mechanism, checked for linearity in its concentration."""
    m = compiled.meaning
    fields = {f.name: f for f in m.fields}
    c_init, c_out = m.concentrations

    def __init__(self, **values: ArrayLike) -> None:
        unknown = set(values) - set(fields) - {"c_out", "c_init"}
        if unknown:
            raise TypeError(
                f"{m.suffix}: unknown parameter(s) {sorted(unknown)}; valid names: {sorted(fields)}, c_out, c_init"
            )
        for name, f in fields.items():
            setattr(self, name, channel_param(values.get(name, f.default), name, f.units))
        self.c_out = channel_param(values.get("c_out", c_out), "c_out", "mM", positive=True)
        self.c_init = channel_param(values.get("c_init", c_init), "c_init", "mM", positive=True)

    namespace = {
        "__annotations__": {**dict.fromkeys(fields, Array), "c_out": Array, "c_init": Array},
        "__init__": __init__,
        "__module__": __name__,
        "__doc__": f"Concentration mechanism {m.suffix!r} read from NMODL, writing {m.written} (mM).",
        "ion": m.ion,
        "state": m.written,
        "valence": m.valence,
        "mechanism": compiled,
    }
    cls = type(m.suffix, (AbstractNMODLConcentration,), namespace)
    _check_linear(cls())
    return cls


def _check_linear(pool: AbstractNMODLConcentration) -> None:
    m = pool.mechanism.meaning
    current = jnp.asarray(_CHECK_CURRENTS)
    a, b, x = (np.asarray(pool._derivative(current, c)) for c in (0.0, 1.0, 0.37))
    err = np.abs(x - (a + 0.37 * (b - a))) / (np.abs(a) + np.abs(b) + 1e-300)
    if np.any(err > 1e-9):
        raise NMODLError(
            f"{m.suffix}: the derivative {m.written}' (DERIVATIVE {m.derivative}) is not linear in {m.written}; "
            f"difflab's concentration mechanisms take {m.written}' = s(i{m.ion}) - {m.written}/tau"
        )
