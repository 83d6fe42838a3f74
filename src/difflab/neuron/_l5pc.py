r"""The layer-5 pyramidal cell of Hay et al. (2011) as BluePyOpt's L5PC example builds it.

[`l5pc`][difflab.neuron.l5pc] reads the reconstruction `C060114A7.asc`, sets `nseg = 1 + 2\lfloor L/40 \rfloor`
in every section and replaces the axon by BluePyOpt's 60 µm stub (as `NrnFileMorphology(do_replace_axon=True)`),
then builds one [`Region`][difflab.neuron.Region] per section list from the model's parameters file,
`datasets/neuron/l5pc_parameters.json` (BluePyOpt's `examples/l5pc/config/parameters.json` and
`mechanisms.json` with the released values of `l5pc_analysis.py`, at commit 146bb019):

- `globals`: `celsius` (°C), `v_init` (mV);
- `regions.<list>.section`: `cm` (µF/cm²), `Ra` (Ω·cm), `g_pas` (S/cm²), `e_pas`, `ena`, `ek` (mV); the values
  of `all` first, a list's own values override them (BluePyOpt's order);
- `regions.<list>.mechanisms` and `.range`: the mechanisms inserted and their parameters (`gNaTs2_tbar` of
  `NaTs2_t`, `gamma` of `CaDynamics_E2`), uniform or with the file's `exp` distribution
  `(a + b*math.exp(({distance})*rate))*{value}` (Hay's apical $I_h$: an [`Exponential`][difflab.neuron.Exponential]
  of the path distance from `soma[0](0.5)`); other distributions are refused by name;
- `mechanism_defaults`: the .mod constants the example leaves alone (`ehcn`, `depth`, `minCai`, `zTau`).

Section lists: `somatic` → region `soma`, `axonal` → `axon`, `apical` → `apic`, `basal` → `dend`, `all` → every
region. Densities become difflab's mS/cm² (× 1000). Sodium and potassium channels take their region's `ena`,
`ek`; the calcium channels take the Nernst potential of the region's `CaDynamics_E2` pool (every region of this
model with calcium channels has one). In BluePyOpt's example the apical tree has no calcium channels (no
685–885 µm hot zone as in Hay et al.'s original model; the file says so).

Reference: Hay, Hill, Schürmann, Markram & Segev, PLoS Comput Biol 7:e1002107 (2011); Van Geit et al., Front.
Neuroinform. 10:17 (2016) (BluePyOpt).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jax.numpy as jnp

from ..data.internal import path as dataset_path
from . import channels as library
from ._asc import read_asc
from ._cell import Cell, Region
from ._channels import AbstractChannel
from ._distributions import AbstractDistribution, Exponential
from ._morphology import Morphology

#: BluePyOpt's section lists and difflab's region names (Import3d's).
SECTION_LISTS = {"somatic": "soma", "axonal": "axon", "apical": "apic", "basal": "dend"}
#: NEURON's defaults where the file sets nothing.
_DEFAULTS = {"cm": 1.0, "Ra": 35.4, "celsius": 6.3, "v_init": -65.0}
#: .mod names of the mechanism constants and difflab's fields.
_FIELDS = {"ehcn": "E", "gamma": "gamma", "decay": "decay", "depth": "depth", "minCai": "minCai", "zTau": "zTau"}
_NUMBER = r"\s*([-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?)\s*"
_EXP = re.compile(
    rf"^\({_NUMBER}\+{_NUMBER}\*\s*math\.exp\(\s*\(\s*\{{distance\}}\s*\)\s*\*{_NUMBER}\)\s*\)\s*\*\s*\{{value\}}$"
)


def l5pc(
    parameters: Mapping[str, Any] | str | Path | None = None,
    *,
    morphology: Morphology | str | Path | None = None,
    dtype: Any = jnp.float64,
) -> Cell:
    """Hay's L5 pyramidal cell with BluePyOpt's released parameters (module docstring).

    Args:
        parameters: the parameters file's content (a dict) or its path; default the shipped
            `datasets/neuron/l5pc_parameters.json`.
        morphology: a [`Morphology`][difflab.neuron.Morphology] with regions `soma`, `axon`, `apic`, `dend`, or a
            Neurolucida file; default the shipped `C060114A7.asc` with BluePyOpt's `nseg` rule and axon stub.
        dtype: the floating type of the cell's parameters.

    Returns:
        A [`Cell`][difflab.neuron.Cell]; its parameters are named as any cell's (`"soma.gbar_NaTs2_t"`,
        `"apic.gbar_Ih"` for the exponential's scale, `"axon.gamma_CaDynamics_E2"`).

    Examples:
        >>> cell = l5pc()  # doctest: +SKIP
        >>> difflab.simulate(cell, IClamp({"soma[0](0.5)": difflab.Step(1.9, 295.0, 300.0)}), ts)  # doctest: +SKIP
    """
    spec = _load(parameters)
    morph = _morphology(morphology)
    g = {**_DEFAULTS, **spec.get("globals", {})}
    regions = {r: _region(r, spec) for r in morph.regions}
    return Cell(morph, regions, celsius=g["celsius"], v_init=g["v_init"]).astype(dtype)


def _load(parameters) -> Mapping[str, Any]:
    if parameters is None:
        parameters = dataset_path("neuron/l5pc_parameters.json")
    if isinstance(parameters, (str, Path)):
        parameters = json.loads(Path(parameters).read_text())
    if not isinstance(parameters, Mapping) or not isinstance(parameters.get("regions"), Mapping):
        raise ValueError("parameters must be the L5PC parameters file (a dict with 'regions'), its path, or None")
    unknown = [lst for lst in parameters["regions"] if lst != "all" and lst not in SECTION_LISTS]
    if unknown:
        raise ValueError(f"parameters: unknown section lists {unknown}; expected 'all' or {list(SECTION_LISTS)}")
    return parameters


def _morphology(morphology) -> Morphology:
    if isinstance(morphology, Morphology):
        return morphology
    if morphology is None:
        morphology = dataset_path("neuron/C060114A7.asc")
    return read_asc(morphology, nseg=("length", 40.0), replace_axon=True)


def _region(region: str, spec: Mapping[str, Any]) -> Region:
    """The region's channels, pool, distributions, cm and Ra from the lists `all` and its own."""
    lists = [lst for lst in ("all", *SECTION_LISTS) if lst in spec["regions"]]
    lists = [lst for lst in lists if lst == "all" or SECTION_LISTS[lst] == region]
    section: dict[str, float] = {}
    mechs: dict[str, dict[str, float]] = {}
    distributions: dict[str, AbstractDistribution] = {}
    for lst in lists:  # "all" first: a list's own values override it
        entry = spec["regions"][lst]
        section.update({k: float(v["value"]) for k, v in entry.get("section", {}).items()})
        for mech in entry.get("mechanisms", []):
            mechs.setdefault(mech, {})
        for name, p in entry.get("range", {}).items():
            mech = p["mechanism"]
            field = "gbar" if p["parameter"] == f"g{mech}bar" else _FIELDS.get(p["parameter"], p["parameter"])
            value = float(p["value"]) * (1000 if field == "gbar" else 1)  # S/cm² -> mS/cm²
            mechs.setdefault(mech, {})[field] = value
            if p.get("distribution", "uniform") != "uniform":
                distributions[f"{field}_{mech}"] = _distribution(f"{name}.{lst}", p, spec, value)
    for mech, constants in spec.get("mechanism_defaults", {}).items():
        if mech in mechs and isinstance(constants, Mapping):
            for k, v in constants.items():
                mechs[mech].setdefault(_FIELDS.get(str(k), str(k)), float(v["value"]))
    return _assemble(region, mechs, section, distributions)


def _assemble(region, mechs, section, distributions) -> Region:
    """The region's channel and pool objects (difflab's classes of the same names)."""
    reversal: dict[str, float | None] = {"na": section.get("ena"), "k": section.get("ek")}
    channels: dict[str, AbstractChannel] = {}
    pools: dict[str, library.AbstractConcentration] = {}
    for mech, fields in mechs.items():
        if mech == "pas":
            channels["pas"] = library.pas(g=section.get("g_pas", 0.001) * 1000, E=section.get("e_pas", -70.0))
            continue
        cls = getattr(library, mech, None)
        if not isinstance(cls, type):
            raise ValueError(f"mechanism {mech!r} of region {region!r} is not in difflab.neuron.channels")
        if issubclass(cls, library.AbstractConcentration):
            pools[cls.ion] = cls(**fields)
            continue
        if not issubclass(cls, AbstractChannel):
            raise ValueError(f"mechanism {mech!r} of region {region!r} is neither a channel nor a pool")
        E = reversal.get(cls.ion or "")
        make: Any = cls  # each library class has its own keywords (gbar, E, zTau, ...)
        channels[mech] = make(**fields, **({"E": E} if E is not None and "E" not in fields else {}))
    cm, Ra = section.get("cm", _DEFAULTS["cm"]), section.get("Ra", _DEFAULTS["Ra"])
    return Region(channels, cm=cm, Ra=Ra, distributions=distributions, concentrations=pools)


def _distribution(name: str, p: Mapping[str, Any], spec: Mapping[str, Any], value: float) -> AbstractDistribution:
    """The file's `exp` distribution as an [`Exponential`][difflab.neuron.Exponential]; others are refused."""
    kind = p.get("distribution")
    described = spec.get("distributions", {}).get(kind)
    expression = p.get("expression") or (described.get("expression") if isinstance(described, Mapping) else None)
    match = _EXP.match(str(expression or ""))
    if match is None:
        raise ValueError(
            f"distribution {kind!r} of {name} ({expression!r}) must be 'uniform' or of BluePyOpt's exp form "
            "'(a + b*math.exp(({distance})*rate))*{value}'"
        )
    a, b, rate = (float(x) for x in match.groups())
    return Exponential(value, a=a, b=b, rate=rate)
