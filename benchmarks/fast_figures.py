"""Figures of the FAST docs page (docs/img/reflector_*.png) from the shipped answers.

    python benchmarks/fast_figures.py [--tracking]

Reads ``fast/solution_q1`` and ``fast/solution_q2`` (see datasets/fast/README.md) and draws the surface deviation
from the ideal paraboloid, η per panel, and the actuator extensions; with ``--tracking`` also the one-hour
tracking observation (surface RMS, edge margin, η over time).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

from difflab import datasets, plot
from difflab import reflector as rf

OUT = Path(__file__).resolve().parents[1] / "docs" / "img"


def _local(points, s):
    """Coordinates (x', y') in the plane perpendicular to s (m)."""
    e1 = np.cross([0.0, 1.0, 0.0] if abs(s[1]) < 0.9 else [1.0, 0.0, 0.0], s)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(s, e1)
    return points @ e1, points @ e2


def _load(name, g):
    ds = datasets.load(f"fast/{name}")
    p = rf.Pointing.from_angles(g, float(ds.attrs["alpha_deg"]), float(ds.attrs["beta_deg"]))
    return ds, p, rf.extensions_from_dataset(g, ds), rf.extensions_from_dataset(g, ds, "extension_fit")


def deviation_and_extensions(g, name, label):
    ds, p, e, e_fit = _load(name, g)
    s = np.asarray(p.s)
    inside = np.asarray(p.nodes_inside)
    mu_all = xr.DataArray(np.asarray(rf.ideal_extensions(g, p.s, float(ds.attrs["vertex_depth_m"]))), name="μ")
    mu = mu_all.values[inside]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8), constrained_layout=True)
    for ax, variable, reference, title in [
        (axes[0], "extension_fit", mu_all, f"best fit: e − μ, η = {100 * ds.attrs['receiving_ratio_fit']:.1f} %"),
        (axes[1], "extension", mu_all, f"max-η surface: e − μ, η = {100 * ds.attrs['receiving_ratio']:.1f} %"),
        (axes[2], "extension", None, "max-η surface: extension e (+ inward)"),
    ]:
        plot.reflector(ds, variable, relative_to=reference, limit=0.45, ax=ax)
        ax.set_title(title, fontsize=10)
    fig.suptitle(f"{label}: deviation from the ideal paraboloid μ (depth {ds.attrs['vertex_depth_m']:.3f} m)")
    fig.savefig(OUT / f"reflector_deviation_{name.split('_')[-1]}.png", dpi=110)
    plt.close(fig)
    rho = np.linalg.norm(np.cross(np.asarray(g.nodes)[inside], s), axis=1)
    fig, ax = plt.subplots(figsize=(7, 4), constrained_layout=True)
    ax.plot(rho, mu, ".", ms=3, color="0.6", label="ideal paraboloid μ")
    ax.plot(rho, e_fit[inside], ".", ms=3, label="constrained best fit")
    ax.plot(rho, e[inside], ".", ms=3, label="max-η surface (stepped)")
    ax.set_xlabel("distance from the axis ρ (m)")
    ax.set_ylabel("extension (m, + towards the centre)")
    ax.legend()
    ax.set_title(f"{label}: actuator extensions across the aperture")
    fig.savefig(OUT / f"reflector_extensions_{name.split('_')[-1]}.png", dpi=110)
    plt.close(fig)


def ratio_per_panel(g, name, label):
    _, p, e, e_fit = _load(name, g)
    s = np.asarray(p.s)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), constrained_layout=True)
    for ax, ext, title in [(axes[0], e_fit, "constrained best fit"), (axes[1], e, "max-η surface")]:
        v = rf.node_positions(g, ext)[g.panels[p.panels_inside]]
        frac = np.asarray(rf.panel_hit_fraction(v, p, g.radius, n=16))
        cx, cy = _local(np.asarray(v).mean(axis=1), s)
        im = ax.scatter(cx, cy, c=frac, s=11, cmap="viridis", vmin=0, vmax=1, marker="^")
        ax.set_aspect("equal")
        ax.set_title(f"{title}: η = {100 * float(rf.receiving_ratio(g, ext, p, n=32)):.1f} %", fontsize=10)
        ax.set_xlabel("x′ (m)")
        ax.set_ylabel("y′ (m)")
    fig.colorbar(im, ax=axes, shrink=0.85, label="fraction of the panel's flux received")
    fig.suptitle(f"{label}: receiving ratio per panel")
    fig.savefig(OUT / f"reflector_eta_panels_{name.split('_')[-1]}.png", dpi=110)
    plt.close(fig)


def tracking(g):
    ds = rf.simulate_tracking(g, duration=3600.0, dt_save=60.0)
    fig, axes = plt.subplots(3, 1, figsize=(7, 7), sharex=True, constrained_layout=True)
    t = ds["time"].values / 60.0
    axes[0].plot(t, 1e3 * ds["surface_rms"].values, label="RMS")
    axes[0].plot(t, 1e3 * ds["tracking_error_max"].values, label="max")
    axes[0].set_ylabel("e − target (mm)")
    axes[0].legend()
    axes[1].plot(t, 100 * ds["edge_margin"].values)
    axes[1].set_ylabel("edge margin (%)")
    axes[2].plot(t, 100 * ds["receiving_ratio"].values)
    axes[2].set_ylabel("η (%)")
    axes[2].set_xlabel("time from passage through Q2 direction (min)")
    fig.suptitle("One hour tracking through the Q2 direction (τ = 2 s, v_max = 1 mm/s)")
    fig.savefig(OUT / "reflector_tracking.png", dpi=110)
    plt.close(fig)
    print(ds[["surface_rms", "tracking_error_max", "edge_margin", "receiving_ratio"]].to_dataframe().describe())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tracking", action="store_true")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    g = rf.Geometry.fast()
    for name, label in [("solution_q1", "Q1 (zenith)"), ("solution_q2", "Q2 (α = 36.795°, β = 78.169°)")]:
        deviation_and_extensions(g, name, label)
        ratio_per_panel(g, name, label)
    if args.tracking:
        tracking(g)


if __name__ == "__main__":
    main()
