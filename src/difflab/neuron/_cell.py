r"""Multi-compartment cells: the cable equation on a tree of sections with per-region channels.

For every compartment $i$ of membrane area $A_i$ (µm²), with neighbours $j$ joined by axial conductances
$g_{ij}$ (µS, from the half-segment resistances of the [`Morphology`][difflab.neuron.Morphology]):

$$c_m \frac{dV_i}{dt} = -\sum_c G_c(\text{gates}_i)\,(V_i - E_c)
  + \frac{10^5}{A_i}\Big(\sum_j g_{ij}(V_j - V_i) + I_{\text{stim},i}\Big),$$

in µA/cm² ($10^5$ turns nA/µm² into µA/cm²; $I_\text{stim}$ in nA), gates as in the point cell. The
zero-area end nodes carry no state: their potential keeps $\sum_j g_{ij}(V_j - V_i) + I_{\text{stim},i} = 0$, so a
point current there reaches each neighbouring compartment $j$ in the share $g_{ij} / \sum_k g_{ik}$.
"""

from __future__ import annotations

from typing import Any, ClassVar

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike

from ..core import AbstractModel, AbstractProtocol, StateInfo
from ..core.internal import as_float, is_concrete, iter_parameters, raise_if_unphysical
from ._cable_solver import CableRushLarsenCN
from ._cell_ions import channel_reversals, check_cell_concentrations, check_region_concentrations, mechanism_name
from ._channels import AbstractChannel, LeakChannel, PotassiumChannel, SodiumChannel
from ._distributions import AbstractDistribution
from ._gather_sum import GatherSum
from ._hodgkin_huxley import DEFAULT_DT, HH_MAX_CONDUCTANCE
from ._morphology import Morphology, Section
from ._stimulus import IClamp
from ._units_check import warn_if_leak_in_siemens
from .channels._ions import AbstractConcentration

#: nA/µm² in µA/cm².
_DENSITY = 1e5


class Region(eqx.Module):
    """The membrane of a group of sections: channels, specific capacitance and axial resistivity.

    Every parameter is a scalar (the whole region) or a 1-D array with one value per section of the
    region, in the morphology's order (per-branch values).

    Attributes:
        channels: `{name: channel}` with the channels of `difflab.neuron` (densities in mS/cm²).
        cm: specific membrane capacitance (µF/cm²); NEURON's default 1.
        Ra: axial resistivity (Ω·cm); NEURON's default 35.4.
        distributions: `{"<field>_<channel>": distribution}`: a channel parameter as a function of the path
            distance from the soma (see `difflab.neuron.Exponential` and the other distributions), evaluated at
            every compartment's centre of the region; it replaces the channel's own value of that field here.
        concentrations: `{ion: mechanism}` writing intracellular concentrations in the region's compartments,
            e.g. `{"ca": CaDynamics_E2(gamma=0.000609, decay=210.485284)}` (see `difflab.neuron.Cell`).
    """

    channels: dict[str, AbstractChannel]
    cm: Array
    Ra: Array
    distributions: dict[str, AbstractDistribution]
    concentrations: dict[str, AbstractConcentration]

    def __init__(
        self,
        channels: dict[str, AbstractChannel],
        cm: ArrayLike = 1.0,
        Ra: ArrayLike = 35.4,
        distributions: dict[str, AbstractDistribution] | None = None,
        concentrations: dict[str, AbstractConcentration] | None = None,
    ):
        if not isinstance(channels, dict):
            raise TypeError(f"channels must be a dict of AbstractChannel; got {type(channels).__name__}")
        for key, ch in channels.items():
            if not isinstance(ch, AbstractChannel):
                raise TypeError(f"channels[{key!r}] must be an AbstractChannel; got {type(ch).__name__}")
        self.channels = dict(channels)
        self.cm = as_float(cm, "cm")
        self.Ra = as_float(Ra, "Ra")
        if (np.asarray(self.cm) <= 0).any() or (np.asarray(self.Ra) <= 0).any():
            raise ValueError(f"cm (µF/cm²) and Ra (Ω·cm) must be > 0; got cm={self.cm}, Ra={self.Ra}")
        self.distributions = _check_distributions(distributions, self.channels)
        self.concentrations = check_region_concentrations(concentrations)
        warn_if_leak_in_siemens(self.channels, self.cm, "Region: ")

    def distributed(self, key: str) -> tuple[str, str]:
        """`(channel, field)` of a distribution's key `"<field>_<channel>"`."""
        for c, ch in self.channels.items():
            if key.endswith("_" + c) and key[: -len(c) - 1] in _leaf_fields(ch):
                return c, key[: -len(c) - 1]
        raise KeyError(key)


def _check_distributions(distributions, channels: dict[str, AbstractChannel]) -> dict[str, AbstractDistribution]:
    """The distributions by key, each naming a top-level parameter of a channel of this region, refused otherwise."""
    if distributions is None:
        return {}
    if not isinstance(distributions, dict):
        raise TypeError(f"distributions must be a dict {{'<field>_<channel>': distribution}}; got {distributions!r}")
    names = [f"{f}_{c}" for c, ch in channels.items() for f in _leaf_fields(ch) if "." not in f]
    for key, dist in distributions.items():
        if not isinstance(dist, AbstractDistribution):
            raise TypeError(f"distributions[{key!r}] must be a distribution (e.g. Exponential); got {dist!r}")
        if key not in names:
            raise ValueError(
                f"distributions[{key!r}] must name a parameter of a channel of this region as '<field>_<channel>'; "
                f"the region's are {', '.join(names) or 'none'}"
            )
        for field, leaf in zip(_leaf_fields(dist), jax.tree.leaves(dist), strict=True):
            if jnp.ndim(leaf) != 0:
                raise ValueError(f"distributions[{key!r}].{field} must be a scalar; got shape {jnp.shape(leaf)}")
    return dict(distributions)


class Cell(AbstractModel):
    r"""A multi-compartment neuron in NEURON's units.

    A [`Morphology`][difflab.neuron.Morphology] with a [`Region`][difflab.neuron.Region] per region name, in
    NEURON's units (µm, µF/cm², Ω·cm, mS/cm², mV, ms, nA for point currents).

    States: `V` (mV), every gate and every written concentration (`cai`, mM), each of shape
    `(..., n_segments)` in the morphology's compartment order. A concentration follows its region's mechanism
    where one writes it (the channels of its ion there take its Nernst potential) and stays at the mechanism's
    `c_init` elsewhere (their own `E` there), as in NEURON; see `Region.concentrations`.
    The protocol given to [`difflab.simulate`][] is an [`IClamp`][difflab.neuron.IClamp] (currents in nA at
    named locations); a plain protocol is a current (nA) into the middle of the root section; `None` is none.

    Parameters by name: `"<region>.<field>_<channel>"` (`"dend.gbar_na"`, `"soma.E_k"`,
    `"dend.g_leak"`), `"<region>.<field>_<mechanism class>"` (`"soma.gamma_CaDynamics_E2"`, BluePyOpt's name),
    `"<region>.cm"`, `"<region>.Ra"`, `"celsius"`, `"v_init"`; each is an alias of its dotted path
    (`"regions.dend.channels.na.gbar"`, `"regions.soma.concentrations.ca.gamma"`), so `difflab.calibrate` and
    `difflab.sweep` take them.

    Channels of one name must be of one class in every region (their gates are shared states); a region
    without a channel has it switched off (zero conductance), and its gates still evolve (unread).

    Reference: Hines & Carnevale, *The NEURON Book* (2006), ch. 5; Hines, Int. J. Biomed. Comput. 15:69 (1984).
    """

    regions: dict[str, Region]
    celsius: Array
    v_init: Array
    morphology: Morphology = eqx.field(static=True)
    channel_order: tuple[str, ...] = eqx.field(static=True)
    concentration_order: tuple[str, ...] = eqx.field(static=True)
    per_branch: frozenset = eqx.field(static=True)

    time_units: ClassVar[str] = "ms"
    parameter_units: ClassVar[dict[str, str]] = {"celsius": "degC", "v_init": "mV"}
    # the default step follows the channel densities and cm, whose names differ from cell to cell: no fixed list
    step_parameters: ClassVar[tuple[str, ...]] = ()

    def __init__(self, morphology: Morphology, regions: dict[str, Region], celsius: ArrayLike = 6.3,
                 v_init: ArrayLike = -65.0):  # fmt: skip
        if not isinstance(morphology, Morphology):
            raise TypeError(f"morphology must be a Morphology; got {type(morphology).__name__}")
        if not isinstance(regions, dict) or not all(isinstance(r, Region) for r in regions.values()):
            raise TypeError("regions must be a dict {region name: Region}")
        missing = [r for r in morphology.regions if r not in regions]
        extra = [r for r in regions if r not in morphology.regions]
        if missing or extra:
            raise ValueError(
                f"regions must match the morphology's regions {list(morphology.regions)}; "
                f"missing {missing}, unknown {extra}"
            )
        self.morphology = morphology
        self.regions = {r: regions[r] for r in morphology.regions}
        self.celsius = as_float(celsius, "celsius")
        self.v_init = as_float(v_init, "v_init")
        self.channel_order, gate_owner = _check_channels(self.regions)
        self.concentration_order = check_cell_concentrations(self.regions, gate_owner)
        self.per_branch = frozenset(_per_branch_paths(morphology, self.regions))
        raise_if_unphysical(self.physical_checks())

    def physical_checks(self) -> dict[str, tuple[Array, Array]]:
        """Finite parameters, conductances >= 0 mS/cm², cm > 0 µF/cm² and Ra > 0 Ω·cm in every region.

        By the parameters' names (``"dend.gbar_na must be >= 0 mS/cm^2"``); see `AbstractModel.physical_checks`
        for where they run (eagerly, under jit as `eqx.error_if`, per member of an ensemble).
        """
        names = {path: alias for alias, path in self.aliases.items()}
        checks = {}
        for path, value in iter_parameters(self):
            name = names.get(path, path)
            checks[f"{name} must be finite"] = (jnp.isfinite(value), value)
            field = path.rsplit(".", 1)[-1]
            if ".channels." in path and field in ("gbar", "g"):
                checks[f"{name} must be >= 0 mS/cm^2"] = (~(value < 0), value)
            elif field == "cm":
                checks[f"{name} must be > 0 uF/cm^2"] = (~(value <= 0), value)
            elif field == "Ra":
                checks[f"{name} must be > 0 ohm cm"] = (~(value <= 0), value)
        for r, reg in self.regions.items():
            for mechanism in reg.concentrations.values():  # "soma.gamma must ..." -> "soma.gamma_CaDynamics_E2 ..."
                for key, check in mechanism.physical_checks(r).items():
                    name, rest = key.split(" ", 1)
                    checks[f"{name}_{mechanism_name(mechanism)} {rest}"] = check
        morph = self.morphology
        for r, reg in self.regions.items():
            d = morph.path_distances()[[morph.sections[k].region == r for k in morph.seg_section]]
            for key, dist in reg.distributions.items():
                if reg.distributed(key)[1] in ("gbar", "g"):
                    values = dist(jnp.asarray(d))
                    ok = ~jnp.any(values < 0, axis=-1)
                    checks[f"{r}.{key} must be >= 0 mS/cm^2 in every compartment"] = (ok, jnp.min(values, axis=-1))
        return checks

    @classmethod
    def ball_and_stick(cls, nseg: int = 21, dtype: Any = jnp.float64) -> Cell:
        """The ball-and-stick cell of the NEURON reference (`datasets/neuron/ball_and_stick.nc`).

        Soma: `L = diam = 20` µm, one compartment, `hh` (ḡNa 120, ḡK 36, gL 0.3 mS/cm²). Dendrite
        `"dend"`: 500 µm × 2 µm at `soma(1)`, `nseg` compartments, `hh` at ḡNa 30, ḡK 10, gL 0.1 mS/cm².
        Ra 100 Ω·cm, cm 1 µF/cm², ENa 50, EK −77, EL −54.3 mV, 6.3 °C.
        """

        def hh(gna, gk, gl):
            return {"na": SodiumChannel(gna, 50.0), "k": PotassiumChannel(gk, -77.0), "leak": LeakChannel(gl, -54.3)}

        morph = Morphology([Section.cylinder("soma", 20.0, 20.0), Section.cylinder("dend", 500.0, 2.0, parent="soma",
                                                                                    nseg=nseg)])  # fmt: skip
        regions = {"soma": Region(hh(120.0, 36.0, 0.3), Ra=100.0), "dend": Region(hh(30.0, 10.0, 0.1), Ra=100.0)}
        return cls(morph, regions).astype(dtype)

    def astype(self, dtype: Any) -> Cell:
        """A copy whose floating parameters all have `dtype` (e.g. `jnp.float32`)."""

        def cast(x):
            return x.astype(dtype) if eqx.is_array(x) and jnp.issubdtype(x.dtype, jnp.floating) else x

        return jax.tree_util.tree_map(cast, self)

    # ---------------------------------------------------------------- names
    @property
    def aliases(self) -> dict[str, str]:  # type: ignore[override]
        out = {}
        for r, region in self.regions.items():
            out[f"{r}.cm"], out[f"{r}.Ra"] = f"regions.{r}.cm", f"regions.{r}.Ra"
            for c, ch in region.channels.items():
                for field in _leaf_fields(ch):
                    out[f"{r}.{field}_{c}"] = f"regions.{r}.channels.{c}.{field}"
            for ion, mechanism in region.concentrations.items():
                for field in _leaf_fields(mechanism):
                    name = f"{r}.{field}_{mechanism_name(mechanism)}"
                    if name in out:
                        raise ValueError(f"parameter name {name!r} of the {ion!r} mechanism clashes with a channel's")
                    out[name] = f"regions.{r}.concentrations.{ion}.{field}"
            for key, dist in region.distributions.items():  # "apic.gbar_Ih" is then the distribution's value
                for field in _leaf_fields(dist):
                    name = f"{r}.{key}" if field == "value" else f"{r}.{key}.{field}"
                    out[name] = f"regions.{r}.distributions.{key}.{field}"
        return out

    @property
    def gate_names(self) -> tuple[str, ...]:
        return tuple(g for c in self.channel_order for g in self._template(c).gates)

    # equinox lets a property implement the AbstractClassVar `states` (mypy reads it as a plain ClassVar)
    @property
    def states(self) -> tuple[StateInfo, ...]:  # type: ignore[override]
        gates = tuple(StateInfo(g, "1", f"gating variable {g} per compartment") for g in self.gate_names)
        conc = tuple(
            StateInfo(m.state, m.units, f"intracellular {ion} concentration per compartment")
            for ion, m in ((ion, self._template(ion, "concentrations")) for ion in self.concentration_order)
        )
        return (StateInfo("V", "mV", "membrane potential per compartment"), *gates, *conc)

    def batch_shape(self) -> tuple[int, ...]:
        """Broadcast shape of the parameters without their per-branch axis (`()` for one cell)."""
        shapes = [self.celsius.shape, self.v_init.shape]
        for path, leaf in self._region_leaves():
            shapes.append(leaf.shape[:-1] if path in self.per_branch else leaf.shape)
        return jnp.broadcast_shapes(*shapes)

    # ---------------------------------------------------------------- state
    def initial_state(self) -> dict[str, Array]:
        """`V = v_init` in every compartment, concentrations at `c_init`, gates at their steady state there.

        NEURON's `finitialize` (with `cai0_ca_ion` = 5e-5 mM, CaDynamics_E2's `c_init`).
        """
        shape = (*self.batch_shape(), self.morphology.n_segments)
        V = jnp.broadcast_to(jnp.asarray(self.v_init)[..., None], shape)
        y = {"V": V}
        celsius = jnp.asarray(self.celsius)[..., None]
        conc = {m.state: jnp.broadcast_to(m.c_init, shape) for _, m, _ in self.concentration_mechanisms()}
        for _, ch, _ in self.segment_channels():
            for g, x in ch.steady_state(V, celsius, **{k: conc[k] for k in ch.reads}).items():
                y[g] = jnp.broadcast_to(x, shape)
        return {**y, **conc}

    def check_state(self, y) -> None:
        super().check_state(y)
        for name, value in y.items():
            if jnp.shape(value)[-1:] != (self.morphology.n_segments,):
                raise ValueError(
                    f"y0[{name!r}] must end with the {self.morphology.n_segments} compartments; got {jnp.shape(value)}"
                )
        for ion in self.concentration_order:
            name = self._template(ion, "concentrations").state
            value = np.asarray(y[name]) if is_concrete(y[name]) else None
            if value is not None and np.any(~(value > 0)):
                raise ValueError(f"y0[{name!r}] must be > 0 mM (a concentration); got {value.ravel().min()}")

    # ---------------------------------------------------------------- per-compartment parameters
    def per_section(self, field: str) -> Array:
        """`"cm"` or `"Ra"` of every section, shape `(..., n_sections)`."""
        return self._gather_sections({r: getattr(reg, field) for r, reg in self.regions.items()}, field)

    def segment_channels(self) -> tuple[tuple[str, AbstractChannel, np.ndarray], ...]:
        """`(name, channel with per-compartment parameters, mask)` for every channel; mask is 1 where present."""
        return tuple((c, *self._per_compartment("channels", c)) for c in self.channel_order)

    def concentration_mechanisms(self) -> tuple[tuple[str, AbstractConcentration, np.ndarray], ...]:
        """`(ion, mechanism with per-compartment parameters, mask)` for every written ion; mask 1 where it writes."""
        return tuple((ion, *self._per_compartment("concentrations", ion)) for ion in self.concentration_order)

    def _per_compartment(self, kind: str, name: str) -> tuple[Any, np.ndarray]:
        """Channel or mechanism `name` of `kind` (`"channels"`, `"concentrations"`) per compartment, and its mask."""
        seg_section = self.morphology.seg_section
        template = self._template(name, kind)
        per_region = {r: getattr(reg, kind).get(name, template) for r, reg in self.regions.items()}
        leaves = {r: jax.tree.leaves(m) for r, m in per_region.items()}
        fields = _leaf_fields(template)
        full = [
            self._gather_sections({r: leaves[r][i] for r in self.regions}, f"{kind}.{name}.{f}", owner=(kind, name))[
                ..., seg_section
            ]
            for i, f in enumerate(fields)
        ]
        if kind == "channels":
            full = self._apply_distributions(name, fields, full)
        module = jax.tree.unflatten(jax.tree.structure(template), full)
        # in the parameters' dtype: a float64 mask would promote a float32 cell to float64
        present = np.array([name in getattr(self.regions[s.region], kind) for s in self.morphology.sections],
                           dtype=full[0].dtype if full else float)  # fmt: skip
        return module, present[seg_section]

    def _apply_distributions(self, c: str, fields: list[str], full: list[Array]) -> list[Array]:
        """`full` (per-compartment values of channel `c`'s fields) with the regions' distributions applied."""
        morph = self.morphology
        out = list(full)
        regions = np.array([morph.sections[k].region for k in morph.seg_section])
        for r, reg in self.regions.items():
            for i, f in enumerate(fields):
                dist = reg.distributions.get(f"{f}_{c}")
                if dist is not None:
                    d = jnp.asarray(morph.path_distances(), dtype=out[i].dtype)
                    out[i] = jnp.where(regions == r, dist(d).astype(out[i].dtype), out[i])
        return out

    def _gather_sections(self, values: dict[str, Array], field: str, owner: tuple[str, str] | None = None) -> Array:
        """Region values (scalar or per-branch) as one array over all sections, shape `(..., n_sections)`."""
        batch = self.batch_shape()
        morph = self.morphology
        parts: list[Array] = []
        position: dict[int, int] = {}
        for r in self.regions:
            ks = [k for k, s in enumerate(morph.sections) if s.region == r]
            value = jnp.asarray(values[r])
            path = f"{r}.{field}"
            has_own = owner is None or owner[1] in getattr(self.regions[r], owner[0])
            if has_own and path in self.per_branch:
                part = jnp.broadcast_to(value, (*batch, len(ks)))
            else:
                part = jnp.broadcast_to(value[..., None], (*batch, len(ks)))
            for j, k in enumerate(ks):
                position[k] = sum(p.shape[-1] for p in parts) + j
            parts.append(part)
        order = np.array([position[k] for k in range(len(morph.sections))])
        return jnp.concatenate(parts, axis=-1)[..., order]

    def _template(self, name: str, kind: str = "channels") -> Any:
        """The first region's channel (or mechanism) `name`: the structure every region's copy shares."""
        return next(getattr(reg, kind)[name] for reg in self.regions.values() if name in getattr(reg, kind))

    def _region_leaves(self):
        for r, reg in self.regions.items():
            yield f"{r}.cm", reg.cm
            yield f"{r}.Ra", reg.Ra
            for c, ch in reg.channels.items():
                for f, leaf in zip(_leaf_fields(ch), jax.tree.leaves(ch), strict=True):
                    yield f"{r}.channels.{c}.{f}", leaf
            for ion, m in reg.concentrations.items():
                for f, leaf in zip(_leaf_fields(m), jax.tree.leaves(m), strict=True):
                    yield f"{r}.concentrations.{ion}.{f}", leaf
            for key, dist in reg.distributions.items():
                for f, leaf in zip(_leaf_fields(dist), jax.tree.leaves(dist), strict=True):
                    yield f"{r}.distributions.{key}.{f}", leaf

    # ---------------------------------------------------------------- dynamics
    def axial_conductance(self) -> Array:
        """Conductance (µS) between every node and its parent node, shape `(..., n_nodes)` (0 at the root)."""
        morph = self.morphology
        Ra = self.per_section("Ra")[..., morph.edge_section]
        q = jnp.asarray(np.where(morph.parent >= 0, morph.q, 1.0), dtype=Ra.dtype)
        return jnp.where(jnp.asarray(morph.parent >= 0), 1.0 / (Ra * q), 0.0)

    def node_potentials(self, V: Array, g: Array) -> Array:
        """Potentials of all nodes: compartments, then the zero-area ends (mean of neighbours weighted by `g`)."""
        morph = self.morphology
        S, N = morph.n_segments, morph.n_nodes
        # the neighbours of a zero-area node are compartments: its parent (edge g[z]) and its children
        Vc = jnp.concatenate([V, jnp.zeros((*V.shape[:-1], N - S), V.dtype)], axis=-1)
        g = jnp.broadcast_to(g, (*jnp.broadcast_shapes(V.shape[:-1], g.shape[:-1]), N))
        gz = g[..., S:]
        num = gz * Vc[..., morph.tree.parent_or_self[S:]] + morph.zero_children(g * Vc)
        den = gz + morph.zero_children(g)
        return jnp.concatenate([jnp.broadcast_to(V, (*num.shape[:-1], S)), num / den], axis=-1)

    def axial_current(self, Vn: Array, g: Array) -> Array:
        """`Σ_j g_ij (V_j − V_i)` (nA) into every node."""
        tree = self.morphology.tree
        flow = g * (Vn[..., tree.parent_or_self] - Vn)  # from the parent into each node (0 at the root)
        return flow - tree.children(flow)

    def stimulus_density(self, protocol: Any, t: ArrayLike, like: Array) -> Array:
        """Point currents at `t` as densities (µA/cm²) per compartment, shape of `like`."""
        if protocol is None:
            return jnp.zeros_like(like)
        morph = self.morphology
        if isinstance(protocol, IClamp):
            nodes = [morph.node(loc) for loc in protocol.locations]
            current = protocol(t)
        elif isinstance(protocol, AbstractProtocol):
            nodes = [morph.segment((morph.names[0], 0.5))]
            current = jnp.asarray(protocol(t))[..., None]
        else:
            raise TypeError(f"protocol must be an IClamp, a difflab protocol or None; got {type(protocol).__name__}")
        # a current into a zero-area end node leaves it at once into its neighbouring compartments, each taking
        # its share g_zj / Σ g_z of the axial conductance (the node's balance, Σ g_zj (V_j − V_z) + I = 0)
        source, target, edge = _clamp_paths(morph, nodes)
        current = jnp.asarray(current, like.dtype)[..., source]
        if (edge >= 0).any():
            g = self.axial_conductance()
            g_edge = jnp.where(edge >= 0, g[..., edge], 1.0)
            g_total = GatherSum([np.flatnonzero(source == k) for k in range(len(nodes))], source.size)(g_edge)
            current = current * g_edge / g_total[..., source]
        scale = jnp.asarray(_DENSITY / morph.area[target], like.dtype)
        into = GatherSum([np.flatnonzero(target == i) for i in range(morph.n_segments)], target.size)
        density = into(current * scale)
        return jnp.broadcast_to(density, jnp.broadcast_shapes(density.shape, like.shape))

    def vector_field(self, t, y, args):
        V = y["V"]
        morph = self.morphology
        g = self.axial_conductance()
        Vn = self.node_potentials(V, g)
        axial = self.axial_current(Vn, g)[..., : morph.n_segments] * jnp.asarray(
            _DENSITY / morph.area[: morph.n_segments]
        )
        cm = self.per_section("cm")[..., morph.seg_section]
        celsius = jnp.asarray(self.celsius)[..., None]
        channels, mechanisms = self.segment_channels(), self.concentration_mechanisms()
        conc = {m.state: y[m.state] for _, m, _ in mechanisms}
        ionic = jnp.zeros_like(V)
        dy = {}
        for (_, ch, mask), E in zip(channels, channel_reversals(channels, mechanisms, y, celsius), strict=True):
            ionic = ionic + mask * ch.conductance(y) * (V - E)
            for name, (a, b) in ch.rates(V, celsius, **{k: conc[k] for k in ch.reads}).items():
                dy[name] = a * (1 - y[name]) - b * y[name]
        dy["V"] = (self.stimulus_density(args, t, V) + axial - ionic) / cm
        currents = self.ion_currents(V, y)
        for ion, m, mask in mechanisms:
            dy[m.state] = jnp.where(mask > 0, m.derivative(y[m.state], currents[ion]), 0.0)
        return dy

    def reversals(self, channels, mechanisms, y: dict[str, Array]) -> list:
        """Every channel's reversal potential (mV) per compartment: Nernst where a mechanism writes its ion."""
        return channel_reversals(channels, mechanisms, y, jnp.asarray(self.celsius)[..., None])

    def ion_currents(self, V: Array, y: dict[str, Array]) -> dict[str, Array]:
        """`{ion: summed outward current density (µA/cm²) per compartment}` for every written ion."""
        channels, mechanisms = self.segment_channels(), self.concentration_mechanisms()
        reversals = self.reversals(channels, mechanisms, y)
        out = {}
        for ion, _, _ in mechanisms:
            terms = [mask * ch.conductance(y) * (V - E)
                     for (_, ch, mask), E in zip(channels, reversals, strict=True) if ch.ion == ion]  # fmt: skip
            out[ion] = sum(terms) if terms else jnp.zeros_like(V)
        return out

    # ---------------------------------------------------------------- recordings
    def voltage_at(self, V: Array, where, protocol: Any = None, t: ArrayLike = 0.0) -> Array:
        r"""The potential at a location (`"dend(0.9)"`) from compartment potentials `V` (`(..., n_segments)`).

        NEURON's `v(x)`: the compartment containing `x`; at `x = 0` or `1` the zero-area end node, whose potential
        includes the drop $I / \sum_j g_{zj}$ of an [`IClamp`][difflab.neuron.IClamp] current $I$ injected there
        at `t` (pass the `protocol`).
        """
        morph = self.morphology
        node = morph.node(where)
        if node < morph.n_segments:
            return V[..., node]
        g = self.axial_conductance()
        Vz = self.node_potentials(V, g)[..., node]
        if isinstance(protocol, IClamp):
            here = [k for k, loc in enumerate(protocol.locations) if morph.node(loc) == node]
            if here:
                edges = [e for _, e in morph.end_neighbours(node)]
                Vz = Vz + jnp.sum(protocol(t)[..., here], axis=-1) / jnp.sum(g[..., edges], axis=-1)
        return Vz

    def recorder(self, locations) -> tuple[Any, tuple[StateInfo, ...]]:
        """`(observe, observe_info)` for [`difflab.simulate`][]: the potential at each location, by name."""
        locations = tuple(locations)
        for where in locations:
            self.morphology.node(where)  # unknown names and bad x fail here, before any tracing

        def observe(t, y, protocol):
            return {where: self.voltage_at(y["V"], where, protocol, t) for where in locations}

        return observe, tuple(StateInfo(w, "mV", f"membrane potential at {w}") for w in locations)

    # ---------------------------------------------------------------- solver hooks
    def default_solver(self):
        """[`CableRushLarsenCN`][difflab.neuron.CableRushLarsenCN]."""
        return CableRushLarsenCN()

    def default_stepsize_controller(self):

        return diffrax.ConstantStepSize()

    def default_dt0(self) -> float | Array:
        r"""Default fixed step (ms): 0.025 ms halved per doubling of the stiffest Σḡ/c_m past the point cell's bound.

        Within a spike the channels of a compartment open up to `Σḡ` (mS/cm², every gate at 1;
        `max_conductance`), and its membrane relaxes at the rate `Σḡ / c_m` (mS/µF = 1/ms). The step resolves
        that relaxation, and with it the spike's shape and the calcium influx that sets the timing of later
        spikes, only while `z = Σḡ h / c_m` stays bounded; the bound is the point cell's
        ([`HodgkinHuxley.default_dt0`][difflab.neuron.HodgkinHuxley.default_dt0]), twice `hh`'s value at its
        own default step:

        $$z_\text{max} = 2 \cdot 156.3\ \text{mS/µF} \cdot \tfrac{5}{64}\ \text{ms} = 24.4, \qquad
          h = 0.025 \cdot 2^{-k}\ \text{ms},\quad 2^k \ge \max_i \frac{\Sigma\bar g_i}{c_{m,i}}
          \cdot \frac{0.025\ \text{ms}}{z_\text{max}},$$

        the smallest such `k ≥ 0`, with the largest ratio over all compartments `i` (the stiffest compartment
        limits the step of the whole tree, whose Crank–Nicolson update couples them). Powers of two keep 10 ms a
        whole number of steps. Cells with `hh` (squid-axon cables, `Σḡ/c_m` ≤ 156.3, `z` ≤ 3.9 at 0.025 ms)
        keep 0.025 ms; so does any cell up to `Σḡ/c_m` = 976.9 mS/µF. The L5PC (`l5pc`): its axon stub's NaTa_t,
        K_Pst and SKv3_1 open 5246 mS/cm² (soma 1297) at 1 µF/cm², ratio 5.37, so 0.025/8 = 0.003125 ms
        (`z` = 16.4); at 0.025 ms its late spikes drifted 4–6 ms from NEURON's, at 0.00625 ms (`z` = 32.8, past
        the bound) up to 0.072 ms, at 0.003125 ms up to 0.041 ms over 3 s (docs/hh_convergence.md,
        "Multi-compartment cells").

        The gate kinetics do not enter: the point cell's rule for them keeps `hh` at 6.3 °C on 5/64 ms, and
        0.025 ms is 3.1 times shorter. A Python float when the parameters are concrete (also inside `jit`), a
        traced scalar when they are traced (a fitted conductance); a batch of cells takes its stiffest member's
        step. A `dt0` given to [`difflab.simulate`][] always replaces it.
        """
        with jax.ensure_compile_time_eval():
            cm = self.per_section("cm")[..., self.morphology.seg_section]
            ratio = jnp.max(self.max_conductance() / cm) * DEFAULT_CABLE_DT / MAX_STIFFNESS
            # a tolerance of 1e-6 keeps a cell at exactly the bound on the longer step (rounding of the ratio)
            halvings = jnp.maximum(jnp.ceil(jnp.log2(ratio) - 1e-6), 0.0)
            dt = DEFAULT_CABLE_DT * 2.0**-halvings
        return float(dt) if is_concrete(dt) else dt

    def max_conductance(self) -> Array:
        """`Σḡ` (mS/cm²) per compartment, shape `(..., n_segments)`: every gate at 1, the most the channels open."""
        parts = [jnp.zeros(self.morphology.n_segments, self.v_init.dtype)]
        for _, channel, mask in self.segment_channels():
            gates = {g: jnp.ones((), self.v_init.dtype) for g in channel.gates}
            G = channel.conductance(gates)
            # a batch may carry its member axis on some channels only: broadcast explicitly (no rank promotion)
            shape = jnp.broadcast_shapes(G.shape, mask.shape)
            parts.append(jnp.broadcast_to(mask, shape) * jnp.broadcast_to(G, shape))
        shape = jnp.broadcast_shapes(*(p.shape for p in parts))
        return sum((jnp.broadcast_to(p, shape) for p in parts), jnp.zeros(shape, self.v_init.dtype))


#: NEURON's default step (ms), the cable solver's longest default step.
DEFAULT_CABLE_DT = 0.025
#: The bound on `z = Σḡ h / c_m` that sets the default step: the point cell's, 2 · 156.3 mS/µF · 5/64 ms.
MAX_STIFFNESS = 2 * HH_MAX_CONDUCTANCE * DEFAULT_DT


def _clamp_paths(morph: Morphology, nodes: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`(clamp, compartment, edge)` for every path of a clamp's current into the compartments.

    A clamp in a compartment has one path (edge −1); one at an end node a path to each neighbour of the node
    (edge: the child node of the axial conductance between them).
    """
    paths = []
    for k, node in enumerate(nodes):
        near = [(node, -1)] if node < morph.n_segments else morph.end_neighbours(node)
        paths += [(k, j, e) for j, e in near]
    source, target, edge = (np.array(col, dtype=np.int64) for col in zip(*paths, strict=True))
    return source, target, edge


def _leaf_fields(channel: eqx.Module) -> list[str]:
    """Dotted names of the array leaves of a channel (`"gbar"`, `"temperature.q10"`), in pytree-leaf order."""
    paths = jax.tree_util.tree_flatten_with_path(channel)[0]
    return [".".join(str(getattr(k, "name", getattr(k, "key", k))) for k in path) for path, _ in paths]


def _check_channels(regions: dict[str, Region]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The channel names in order and `{gate: channel}`; refuses a channel of two classes or a clash of gates."""
    order = list(dict.fromkeys(c for reg in regions.values() for c in reg.channels))
    owner: dict[str, str] = {}
    for c in order:
        classes = {type(reg.channels[c]).__name__ for reg in regions.values() if c in reg.channels}
        if len(classes) > 1:
            raise ValueError(f"channel {c!r} must be of one class in every region; got {sorted(classes)}")
        ch = next(reg.channels[c] for reg in regions.values() if c in reg.channels)
        for gate in ch.gates:
            if gate == "V" or gate in owner:
                other = "the membrane potential" if gate == "V" else f"channel {owner[gate]!r}"
                raise ValueError(f"gate name {gate!r} of channel {c!r} clashes with {other}")
            owner[gate] = c
    return tuple(order), owner


def _per_branch_paths(morph: Morphology, regions: dict[str, Region]) -> list[str]:
    """Region leaves given per section (1-D, one value per section); checks all other shapes."""
    out = []
    for r, reg in regions.items():
        n = sum(1 for s in morph.sections if s.region == r)
        leaves = [("cm", reg.cm), ("Ra", reg.Ra)]
        leaves += [(f"{kind}.{c}.{f}", leaf) for kind in ("channels", "concentrations")
                   for c, ch in getattr(reg, kind).items()
                   for f, leaf in zip(_leaf_fields(ch), jax.tree.leaves(ch), strict=True)]  # fmt: skip
        for field, leaf in leaves:
            if leaf.ndim == 1 and leaf.shape[0] == n:
                out.append(f"{r}.{field}")
            elif leaf.ndim != 0:
                raise ValueError(
                    f"region {r!r}: {field} must be a scalar or one value per section ({n}); got shape {leaf.shape}"
                )
    return out
