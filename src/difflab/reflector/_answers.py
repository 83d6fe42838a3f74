"""A `Solution` as a labelled xarray Dataset (netCDF) and back to extensions."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ._geometry import Geometry
from ._kinematics import node_positions
from ._solve import CONVERGED_SAMPLES, Solution


def solution_dataset(geometry: Geometry, solution: Solution) -> xr.Dataset:
    """Dataset with dims `node` (2226) and `xyz` (3).

    It holds extensions, adjusted coordinates, the ideal vertex, aperture membership, and the receiving ratios and
    constraint check in attrs.
    """
    p = solution.pointing
    nodes = np.asarray(node_positions(geometry, solution.e))
    rep = solution.report
    coords = {"node": np.asarray(geometry.node_ids, dtype=object), "xyz": ["x", "y", "z"]}
    data = {
        "extension": (("node",), solution.e, {"units": "m", "long_name": "actuator extension, positive inward"}),
        "extension_fit": (
            ("node",),
            solution.e_fit,
            {"units": "m", "long_name": "extension of the constrained best fit to the ideal paraboloid"},
        ),
        "position": (("node", "xyz"), nodes, {"units": "m", "long_name": "adjusted node coordinates"}),
        "inside_aperture": (
            ("node",),
            np.asarray(p.nodes_inside).astype(np.int8),
            {"units": "1", "long_name": "node within 150 m of the axis (1) or not (0)"},
        ),
        "vertex": (("xyz",), solution.vertex, {"units": "m", "long_name": "ideal paraboloid vertex"}),
    }
    attrs = {
        "alpha_deg": float(p.alpha),
        "beta_deg": float(p.beta),
        "vertex_depth_m": solution.depth,
        "objective": solution.objective,
        "zone_radii_m": np.asarray(solution.zone_radii, dtype=float),
        "zone_depths_m": np.asarray(solution.zone_depths, dtype=float),
        "receiving_ratio": solution.eta,
        "receiving_ratio_fit": solution.eta_fit,
        "receiving_ratio_base_sphere": solution.eta_base,
        "receiving_ratio_samples_per_edge": CONVERGED_SAMPLES,
        "max_abs_extension_m": rep.max_abs_extension,
        "max_abs_strain": rep.max_abs_strain,
        "n_strain_violations": rep.n_strain_violations,
        "n_extension_violations": rep.n_extension_violations,
        "kinematics": "cable",
        "title": "FAST active reflector adjustment (CUMCM 2021 Problem A)",
    }
    return xr.Dataset(data, coords=coords, attrs=attrs)


def extensions_from_dataset(geometry: Geometry, ds: xr.Dataset, name: str = "extension") -> np.ndarray:
    """Extensions (m) in the geometry's node order from a solution Dataset; checks ids and units."""
    if name not in ds:
        raise KeyError(f"dataset has no variable {name!r}; variables: {sorted(map(str, ds.data_vars))}")
    if ds[name].attrs.get("units") != "m":
        raise ValueError(f"variable {name!r} must have units 'm', got {ds[name].attrs.get('units')!r}")
    ids = [str(v) for v in ds["node"].values]
    missing = sorted(set(geometry.node_ids) - set(ids))
    if missing:
        raise ValueError(f"dataset lacks {len(missing)} node ids, e.g. {missing[:5]}")
    out = np.zeros(geometry.n_nodes)
    out[geometry.index(ids)] = np.asarray(ds[name].values, dtype=float)
    return out
