"""The Hodgkin–Huxley point neuron: a membrane capacitance and a sum of ion channels."""

from __future__ import annotations

from typing import Any, ClassVar

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ..core.internal import (
    AbstractModel,
    StateInfo,
    as_float,
    check_state_shapes,
    is_concrete,
    iter_parameters,
    raise_if_unphysical,
)
from ._cell_ions import check_region_concentrations
from ._channels import AbstractChannel, LeakChannel, PotassiumChannel, SodiumChannel
from ._estimate import estimate_conductances
from ._rates import hh_rates
from ._solver import RushLarsenCN
from ._stimulus import IClamp
from ._units_check import warn_if_leak_in_siemens
from .channels._ions import AbstractConcentration

_GATE_UNITS = "1"


class HodgkinHuxley(AbstractModel):
    r"""A single-compartment Hodgkin–Huxley neuron in NEURON's `hh` convention.

    $$C \frac{dV}{dt} = I(t) - \sum_c G_c(\text{gates})\,(V - E_c), \qquad
    \frac{dx}{dt} = \alpha_x(V)(1 - x) - \beta_x(V)\,x \ \text{ for every gate } x.$$

    With concentration mechanisms (`concentrations`, e.g. `{"ca": CaDynamics_E2()}`) the cell also carries
    each written concentration as a state (`cai`, mM), driven by the summed current of the channels of that ion;
    those channels then use the ion's Nernst potential, and channels that read it (`SK_E2`) see it.

    The input `I(t)` is the protocol passed to [`difflab.simulate`][] (current density,
    µA/cm², depolarising when positive). With a membrane `area` (µm²) the cell also takes currents in nA, as
    NEURON's `IClamp` gives them: an [`IClamp`][difflab.neuron.IClamp] protocol adds $10^5 I / A$ µA/cm² per nA
    (all its locations are this one compartment). NEURON's one-segment soma of length `L` and diameter `diam`
    (µm) has $A = \pi L\,\mathrm{diam}$. States: `V` (mV) then the gates of each channel in
    order (`m`, `h`, `n` for the squid axon). The channels' rates carry the temperature
    factor (`3^((celsius − 6.3)/10)` for `hh`).

    Attributes:
        channels: `{name: channel}`; the squid axon has `"na"`, `"k"`, `"leak"`.
        C: membrane capacitance (µF/cm²).
        celsius: temperature (°C).
        v_init: initial membrane potential (mV); gates start at their steady state there.
        concentrations: `{ion: mechanism}` writing intracellular concentrations (none for the squid axon).
        area: membrane area (µm²) for stimuli in nA (`IClamp`); `None` (default): current densities only.

    Parameters by name: `gNa`, `gK`, `gL` (mS/cm²), `ENa`, `EK`, `EL` (mV), plus
    every dotted path such as `"channels.na.gbar"`; `model.replace(gNa=110.0)`.

    Reference: Hodgkin & Huxley, J. Physiol. 117:500 (1952); NEURON `hh.mod`.
    """

    channels: dict[str, AbstractChannel]
    C: Array
    celsius: Array
    v_init: Array
    concentrations: dict[str, AbstractConcentration]
    area: Array | None
    #: Channel keys in the order given (a pytree dict is key-sorted; states keep this order).
    channel_order: tuple[str, ...] = eqx.field(static=True)

    time_units: ClassVar[str] = "ms"
    aliases: ClassVar[dict[str, str]] = {
        "gNa": "channels.na.gbar",
        "gK": "channels.k.gbar",
        "gL": "channels.leak.g",
        "ENa": "channels.na.E",
        "EK": "channels.k.E",
        "EL": "channels.leak.E",
    }
    parameter_units: ClassVar[dict[str, str]] = {
        "gNa": "mS/cm^2",
        "gK": "mS/cm^2",
        "gL": "mS/cm^2",
        "ENa": "mV",
        "EK": "mV",
        "EL": "mV",
        "C": "uF/cm^2",
        "celsius": "degC",
        "v_init": "mV",
    }
    # the gate rates and the stiffness Σḡ/C, and so the default step, follow them
    step_parameters: ClassVar[tuple[str, ...]] = ("celsius", "C")

    def __init__(
        self,
        channels: dict[str, AbstractChannel],
        C: ArrayLike = 1.0,
        celsius: ArrayLike = 6.3,
        v_init: ArrayLike = -65.0,
        concentrations: dict[str, AbstractConcentration] | None = None,
        area: ArrayLike | None = None,
    ):
        if not isinstance(channels, dict) or not channels:
            raise TypeError(f"channels must be a non-empty dict of AbstractChannel; got {type(channels).__name__}")
        seen: dict[str, str] = {}
        for key, channel in channels.items():
            if not isinstance(channel, AbstractChannel):
                raise TypeError(f"channels[{key!r}] must be an AbstractChannel; got {type(channel).__name__}")
            for gate in channel.gates:
                if gate == "V" or gate in seen:
                    other = "the membrane potential" if gate == "V" else f"channel {seen[gate]!r}"
                    raise ValueError(f"gate name {gate!r} of channel {key!r} clashes with {other}")
                seen[gate] = key
        self.concentrations = _check_concentrations(concentrations, channels, seen)
        self.channels = dict(channels)
        self.channel_order = tuple(channels)
        self.C = as_float(C, "C")
        self.celsius = as_float(celsius, "celsius")
        self.v_init = as_float(v_init, "v_init")
        self.area = None if area is None else as_float(area, "area")
        self.validate()
        warn_if_leak_in_siemens(self.channels, self.C, "")

    @classmethod
    def squid_axon(cls, dtype: Any = jnp.float64, area: ArrayLike | None = None) -> HodgkinHuxley:
        """The canonical squid-axon cell of NEURON's `hh` at 6.3 °C (`models/.../squid_axon.toml`).

        With `area` (µm²) it also takes `IClamp` currents in nA.
        """
        model = cls(
            channels={
                "na": SodiumChannel(gbar=120.0, E=50.0),
                "k": PotassiumChannel(gbar=36.0, E=-77.0),
                "leak": LeakChannel(g=0.3, E=-54.3),
            },
            C=1.0,
            celsius=6.3,
            v_init=-65.0,
            area=area,
        )
        return model.astype(dtype)

    def astype(self, dtype: Any) -> HodgkinHuxley:
        """A copy whose floating parameters all have `dtype` (e.g. `jnp.float32`)."""

        def cast(x):
            if eqx.is_array(x) and jnp.issubdtype(x.dtype, jnp.floating):
                return x.astype(dtype)
            return x

        return jax.tree_util.tree_map(cast, self)

    # ---------------------------------------------------------------- states
    @property
    def gate_names(self) -> tuple[str, ...]:
        """Gate state names in order (`("m", "h", "n")` for the squid axon)."""
        return tuple(g for ch in self.ordered_channels() for g in ch.gates)

    def ordered_channels(self) -> tuple[AbstractChannel, ...]:
        """The channels in the order they were given."""
        return tuple(self.channels[k] for k in self.channel_order)

    @property
    def concentration_names(self) -> tuple[str, ...]:
        """Concentration states in order (`("cai",)` with a calcium mechanism; `()` for the squid axon)."""
        return tuple(c.state for c in self.concentrations.values())

    def concentration_mechanisms(self) -> tuple[tuple[str, AbstractConcentration, None], ...]:
        """`(ion, mechanism, None)` for every concentration mechanism (it writes the whole cell: no mask)."""
        return tuple((ion, c, None) for ion, c in self.concentrations.items())

    def parameters(self) -> dict[str, Array]:
        """All floating array fields by dotted name, plus those aliases (`gNa`, ...) whose channel exists."""
        found = dict(iter_parameters(self))
        return {**{a: found[p] for a, p in self.aliases.items() if p in found}, **found}

    # equinox lets a property implement the AbstractClassVar `states` (mypy reads it as a plain ClassVar)
    @property
    def states(self) -> tuple[StateInfo, ...]:  # type: ignore[override]
        gates = tuple(StateInfo(g, _GATE_UNITS, f"gating variable {g}") for g in self.gate_names)
        conc = tuple(
            StateInfo(c.state, c.units, f"intracellular {c.ion} concentration") for c in self.concentrations.values()
        )
        return (StateInfo("V", "mV", "membrane potential"), *gates, *conc)

    def initial_state(self) -> dict[str, Array]:
        """`V = v_init`, concentrations at their mechanisms' `c_init`, every gate at its steady state there."""
        self.validate()
        shape = self.batch_shape()
        V = jnp.broadcast_to(self.v_init, shape)
        y = {"V": V}
        conc = {c.state: jnp.broadcast_to(c.c_init, shape) for c in self.concentrations.values()}
        for channel in self.ordered_channels():
            reads = {k: conc[k] for k in channel.reads}
            for name, x in channel.steady_state(V, self.celsius, **reads).items():
                y[name] = jnp.broadcast_to(x, shape)
        return {**y, **conc}

    def check_state(self, y) -> None:
        self.validate()
        super().check_state(y)
        check_state_shapes(self, y)
        for name in self.gate_names:  # gating variables are open fractions
            value = np.asarray(y[name]) if is_concrete(y[name]) else None
            if value is not None and np.any((value < 0) | (value > 1)):
                bad = value[(value < 0) | (value > 1)].ravel()[0] if value.ndim else value
                raise ValueError(f"y0[{name!r}] must lie in [0, 1] (a gate's open fraction); got {bad}")
        for name in self.concentration_names:
            value = np.asarray(y[name]) if is_concrete(y[name]) else None
            if value is not None and np.any(~(value > 0)):
                raise ValueError(f"y0[{name!r}] must be > 0 mM (a concentration); got {value.ravel().min()}")

    # ---------------------------------------------------------------- dynamics
    def gate_rates(self, V: Array, concentrations: dict[str, Array] | None = None) -> dict[str, tuple[Array, Array]]:
        """`{gate: (α, β)}` of every channel at `V` (1/ms, temperature factor included).

        `concentrations` (`{"cai": ...}`, mM) feed the channels that read them; by default their initial values.
        """
        conc = self._concentrations(concentrations)
        out: dict[str, tuple[Array, Array]] = {}
        for channel in self.ordered_channels():
            out.update(channel.rates(V, self.celsius, **{k: conc[k] for k in channel.reads}))
        return out

    def ion_reversals(self, y: dict[str, Array]) -> dict[str, Array]:
        """`{ion: Nernst potential (mV)}` for every ion whose concentration is a state (read from `y`)."""
        return {ion: c.reversal(y[c.state], self.celsius) for ion, c in self.concentrations.items()}

    def conductances(self, gates: dict[str, Array]) -> tuple[Array, Array]:
        """Total conductance `G = Σ G_c` (mS/cm²) and `Σ G_c E_c` (µA/cm²) at the given gates.

        With concentration mechanisms, `gates` also holds the concentrations (for the Nernst potentials).
        """
        erev = self.ion_reversals(gates)
        G: Array | float = 0.0
        GE: Array | float = 0.0
        for channel in self.ordered_channels():
            g = channel.conductance(gates)
            G = G + g
            GE = GE + g * channel.reversal(erev)
        return jnp.asarray(G), jnp.asarray(GE)

    def ionic_current(self, V: Array, gates: dict[str, Array]) -> Array:
        """Total outward ionic current density (µA/cm²)."""
        if not self.concentrations:  # fixed reversal potentials: the channels' own currents
            return jnp.asarray(sum(channel.current(V, gates) for channel in self.ordered_channels()))
        G, GE = self.conductances(gates)
        return G * V - GE

    def ion_currents(self, V: Array, y: dict[str, Array]) -> dict[str, Array]:
        """`{ion: summed outward current density (µA/cm²)}` for every ion with a concentration mechanism."""
        erev = self.ion_reversals(y)
        out: dict[str, Array] = {}
        for ion in self.concentrations:
            terms = [ch.conductance(y) * (V - ch.reversal(erev)) for ch in self.ordered_channels() if ch.ion == ion]
            out[ion] = jnp.asarray(sum(terms)) if terms else jnp.zeros_like(V)
        return out

    def stimulus_density(self, protocol: Any, t: ArrayLike) -> Array:
        """The protocol's current density at `t` (µA/cm²).

        A density protocol as it is; an `IClamp` (nA) summed over its locations and divided by the membrane area
        (`1e5 I / area`).
        """
        if protocol is None:
            return jnp.zeros(())
        if not isinstance(protocol, IClamp):
            return jnp.asarray(protocol(t))
        if self.area is None:
            raise ValueError(
                "an IClamp gives currents in nA, which a point cell turns into densities by its membrane area: "
                "pass area= (µm²; NEURON's soma of length L and diameter diam has pi * L * diam), or give the "
                "stimulus as a density protocol in µA/cm² (difflab.Step(10.0, 5.0, 45.0))"
            )
        return 1e5 * jnp.sum(protocol(t), axis=-1) / self.area

    def vector_field(self, t, y, args):
        V = y["V"]
        I = self.stimulus_density(args, t)
        dV = (I - self.ionic_current(V, y)) / self.C
        dy = {"V": dV}
        for name, (a, b) in self.gate_rates(V, y).items():
            x = y[name]
            dy[name] = a * (1 - x) - b * x
        currents = self.ion_currents(V, y)
        for ion, c in self.concentrations.items():
            dy[c.state] = c.derivative(y[c.state], currents[ion])
        return dy

    def _concentrations(self, y: dict[str, Array] | None) -> dict[str, Array]:
        if y is None:
            return {c.state: c.c_init for c in self.concentrations.values()}
        return {name: y[name] for name in self.concentration_names}

    # ---------------------------------------------------------------- solver hooks
    def default_solver(self):
        """[`RushLarsenCN`][difflab.neuron.RushLarsenCN]: exponential gates, Crank–Nicolson voltage."""
        return RushLarsenCN()

    def default_stepsize_controller(self):
        """Fixed steps (`diffrax.ConstantStepSize`)."""
        return diffrax.ConstantStepSize()

    def default_dt0(self) -> float | Array:
        """The default fixed step (ms): 5/64 ms for a cell as fast and as stiff as `hh` at 6.3 °C, halved per doubling.

        At 6.3 °C the squid axon's spike times are then within 0.013 ms of NEURON's
        (docs/hh_convergence.md). Two time scales shorten it, each measured against `hh` at 6.3 °C:

        * **Gate kinetics.** They speed up with temperature (`hh`: ×4.5 at 20 °C), and at a fixed step the
          drift grows with them: 0.25 ms over 15 spikes at 15 °C, 0.86 ms over 21 at 20 °C. Ratio: the
          cell's fastest gate rate `max(α + β)` (over −100…60 mV) to `hh`'s.
        * **Membrane stiffness.** The largest conductance a cell can open, `Σḡ` (every gate at 1), bounds
          `z = G h / C` of the voltage update. The update is exact for frozen conductances at any `z`, but
          they change within a step by as much as they can open, so the spike's shape, and with it the
          calcium influx and the timing of later spikes, is resolved only at a bounded `Σḡ h / C`. Ratio:
          `Σḡ h / C` at 5/64 ms to 24.4, twice `hh`'s 12.2 (`Σḡ/C` over 312.6 mS/µF). Twice, so that the
          squid axon and the cells fitted around it (gNa up to 276 mS/cm² with gK 36) are not on a step
          boundary; there the spikes stay within the 0.05 ms tolerance (gNa, gK × 2: 0.047 ms over 6
          spikes at 5/64 ms, 0.017 at 5/128 ms). An L5PC soma (NaTs2_t 984 mS/cm², `Σḡ = 1298`): ratio 4.15,
          5/512 ms (`z` = 12.7), its 9 spikes within 0.013 ms of NEURON; at 5/256 ms (`z` = 25.3, just past
          the bound) 0.094 ms; the gate rule alone gave 5/128 ms, where the solve fails.

        The step is `5/64 · 2^−k` with `2^k` the smallest power of two at least the larger ratio: 10 ms stays
        a whole number of steps and the drift stays at the 6.3 °C level (0.008 ms at 15 and 20 °C). A Python
        float when the cell's parameters are concrete (also inside `jit`), a traced scalar when they are traced
        (a fitted conductance). A batch of cells (parameters with a member axis) takes its stiffest member's step.
        """
        with jax.ensure_compile_time_eval():  # concrete parameters: one compiled program, run at once
            dt = _default_step(self)
        return float(dt) if is_concrete(dt) else dt

    def max_conductance(self) -> Array:
        """`Σḡ` (mS/cm²): the total conductance with every gate at 1, the most the channels can open."""
        gates = {g: jnp.ones((), self.C.dtype) for g in self.gate_names}
        return jnp.asarray(sum(channel.conductance(gates) for channel in self.ordered_channels()))

    def linear_estimate(self, paths, protocol, ts, data, mask):
        """Channel conductances from a recorded `V` by linear regression (see `estimate_conductances`).

        `None` unless `V` is measured and every path is a channel conductance (`gbar`/`g`).
        """
        if "V" not in data or self.concentrations:  # the regression assumes fixed reversal potentials
            return None

        return estimate_conductances(self, protocol, ts, data["V"], mask["V"], paths)

    # ---------------------------------------------------------------- checks
    def batch_shape(self) -> tuple[int, ...]:
        """Broadcast shape of all parameters (`()` for one cell, `(members,)` for a batch)."""
        return jnp.broadcast_shapes(*(p.shape for p in self.parameters().values()))

    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        """Finite parameters, conductances >= 0 mS/cm², capacitance C > 0 µF/cm² (see `AbstractModel`)."""
        names = {path: alias for alias, path in self.aliases.items()}
        checks = {}
        for path, value in iter_parameters(self):
            name = names.get(path, path)
            checks[f"{name} must be finite"] = (jnp.isfinite(value), value)
            if path.endswith(".gbar") or path.endswith(".g"):
                checks[f"{name} must be >= 0 mS/cm^2"] = (~(value < 0), value)
        checks["C must be > 0 uF/cm^2"] = (~(self.C <= 0), self.C)
        if self.area is not None:
            checks["area must be > 0 um^2"] = (~(self.area <= 0), self.area)
        for key, mechanism in self.concentrations.items():
            checks.update(mechanism.physical_checks(f"concentrations.{key}"))
        return checks

    def validate(self) -> None:
        """Eager checks (skipped for traced values); errors name the parameter."""
        raise_if_unphysical(self.physical_checks())
        names = {path: alias for alias, path in self.aliases.items()}
        shapes = {names.get(path, path): value.shape for path, value in iter_parameters(self)}
        try:
            np.broadcast_shapes(*shapes.values())
        except ValueError:
            listed = ", ".join(f"{k} {v}" for k, v in shapes.items() if v != ())
            raise ValueError(
                f"parameter shapes do not broadcast together (one cell: scalars; a batch: (members,)); got {listed}"
            ) from None


#: Default fixed step of the default solver (ms).
DEFAULT_DT = 0.078125  # 5/64 ms: a binary fraction, so step boundaries (10 ms = 128 steps) are exact in float32
#: `Σḡ / C` of the squid axon (`hh`: 120 + 36 + 0.3 mS/cm², 1 µF/cm²); `DEFAULT_DT` serves up to twice it.
HH_MAX_CONDUCTANCE = 156.3


def _check_concentrations(
    concentrations: dict[str, AbstractConcentration] | None, channels: dict[str, AbstractChannel], seen: dict[str, str]
) -> dict[str, AbstractConcentration]:
    """The mechanisms as a dict; refuses a clash of state names or a channel reading an unwritten concentration."""
    concentrations = check_region_concentrations(concentrations)  # a dict of mechanisms, each under its ion
    written: dict[str, str] = {}
    for key, mechanism in concentrations.items():
        if mechanism.state in seen or mechanism.state == "V":
            raise ValueError(f"concentration {mechanism.state!r} clashes with a gate or V")
        written[mechanism.state] = key
    for key, channel in channels.items():
        for name in channel.reads:
            if name not in written:
                raise ValueError(
                    f"channel {key!r} reads {name!r} but no concentration mechanism writes it; add one, e.g. "
                    f"concentrations={{'ca': CaDynamics_E2()}}"
                )
    return concentrations


@eqx.filter_jit
def _default_step(cell: HodgkinHuxley) -> Array:
    """`HodgkinHuxley.default_dt0`'s rule as one program (evaluated op by op it compiled about twenty small ones)."""
    V = jnp.linspace(-100.0, 60.0, 161, dtype=cell.C.dtype)
    # one potential at a time: each rate keeps the shape of the cell's parameters (a batch of cells: one
    # row of members per potential), so no array of a different rank meets them
    rates = jax.vmap(cell.gate_rates)(V)
    fastest = _max_finite_rate(rates)  # a user's rate may be 0/0 at a grid point
    reference = _max_finite_rate(hh_rates(V))
    stiffness = jnp.max(cell.max_conductance() / cell.C) / (2 * HH_MAX_CONDUCTANCE)
    ratio = jnp.maximum(fastest / reference, stiffness)
    # a tolerance of 1e-6 keeps the squid axon at 6.3 °C (ratio 1 up to rounding) on 5/64
    halvings = jnp.maximum(jnp.ceil(jnp.log2(ratio) - 1e-6), 0.0)
    return DEFAULT_DT * 2.0**-halvings


def _max_finite_rate(rates: dict[str, tuple[Array, Array]]) -> Array:
    """Largest finite `α + β` over all gates and potentials (0 if none is finite)."""
    sums = [a + b for a, b in rates.values()]
    return jnp.max(jnp.stack([jnp.max(jnp.where(jnp.isfinite(x), x, 0.0)) for x in sums]))
