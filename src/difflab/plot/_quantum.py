r"""Quantum results: level populations over time, and a qubit's path on the Bloch sphere.

For a qubit with density matrix $\rho$ the Bloch vector is $\mathbf r = (2\,\mathrm{Re}\,\rho_{01},
-2\,\mathrm{Im}\,\rho_{01}, \rho_{00} - \rho_{11}) = (\langle\sigma_x\rangle, \langle\sigma_y\rangle,
\langle\sigma_z\rangle)$ with $\sigma_z = \mathrm{diag}(1, -1)$, so $|0\rangle$ is the north pole (Nielsen & Chuang,
*Quantum Computation and Quantum Information*, §4.2); a pure state ($\rho = \psi\psi^\dagger$) has $|\mathbf r| = 1$.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from ._matplotlib import axes_for, check_dataset, label

_EXPECTED = "a difflab.quantum.QuantumResult (from sesolve/mesolve with save_states=True) or its to_xarray() Dataset"


def populations(result: Any, *, ax: Any = None) -> Any:
    r"""Plot the population $|\psi_k|^2$ (or $\rho_{kk}$) of every level over time.

    Args:
        result: a [`QuantumResult`][difflab.quantum.QuantumResult] of one member, solved with
            `save_states=True`, or its Dataset; select one member of a batch first, e.g.
            `result.to_xarray().isel(member=0)`.
        ax: a matplotlib `Axes` to draw into; default a new figure.

    Returns:
        The matplotlib `Axes`, one line per level labelled `|k⟩`.

    Raises:
        TypeError: `result` is not a QuantumResult or Dataset.
        ValueError: no states were saved, or `result` still holds a batch.
    """
    ds = check_dataset(result, "result", _EXPECTED)
    rho = _density_matrices(ds)
    pops = np.real(np.diagonal(rho, axis1=1, axis2=2))
    ax = axes_for(ax)
    for k in range(pops.shape[1]):
        ax.plot(ds["time"].values, pops[:, k], lw=1.2, label=f"|{k}⟩")
    ax.set_xlabel(label("time", ds["time"].attrs))
    ax.set_ylabel("population (1)")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", frameon=False)
    return ax


def bloch(result: Any, *, ax: Any = None) -> Any:
    """Draw a qubit's Bloch vector over time as a path on the unit sphere.

    Args:
        result: a two-level [`QuantumResult`][difflab.quantum.QuantumResult] of one member, solved with
            `save_states=True`, or its Dataset.
        ax: a 3-D matplotlib `Axes` (`fig.add_subplot(projection="3d")`) to draw into; default a new figure.

    Returns:
        The 3-D `Axes`; its line labelled `"trajectory"` holds the Bloch vector at the saved times, with a marker
        at the start and one at the end.

    Raises:
        TypeError: `result` is not a QuantumResult or Dataset.
        ValueError: no states were saved, `result` still holds a batch, or it has more than two levels.
    """
    ds = check_dataset(result, "result", _EXPECTED)
    rho = _density_matrices(ds)
    if rho.shape[1] != 2:
        raise ValueError(f"result must be a qubit (2 levels) for a Bloch sphere; got {rho.shape[1]} levels")
    r = np.stack([2 * rho[:, 0, 1].real, -2 * rho[:, 0, 1].imag, (rho[:, 0, 0] - rho[:, 1, 1]).real])
    ax = axes_for(ax, (5.5, 5.5), projection="3d")
    _sphere(ax)
    ax.plot(*r, color="tab:blue", lw=1.5, label="trajectory")
    ax.plot(*r[:, :1], "o", color="tab:green", label="start")
    ax.plot(*r[:, -1:], "s", color="tab:red", label="end")
    ax.set_xlabel("⟨σx⟩ (1)")
    ax.set_ylabel("⟨σy⟩ (1)")
    ax.set_zlabel("⟨σz⟩ (1)")
    ax.set_box_aspect((1, 1, 1))
    ax.legend(loc="upper left", frameon=False)
    return ax


def _density_matrices(ds: xr.Dataset) -> np.ndarray:
    """`(time, n, n)` complex density matrices of a one-member result."""
    key = "rho" if "rho_re" in ds else "psi" if "psi_re" in ds else None
    if key is None:
        raise ValueError("result holds no states: solve with save_states=True (sesolve/mesolve)")
    part = ds[f"{key}_re"]
    batch = [d for d in part.dims if d not in ("time", "level", "row", "col")]
    if batch:
        raise ValueError(f"result holds a batch over {batch}; select one member first, e.g. "
                         f"result.to_xarray().isel({batch[0]}=0)")  # fmt: skip
    states = np.asarray(part.values) + 1j * np.asarray(ds[f"{key}_im"].values)
    if key == "rho":
        return states
    return states[:, :, None] * states[:, None, :].conj()


def _sphere(ax) -> None:
    """A light wire frame of the unit sphere and its three axes."""
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 25), np.linspace(0, np.pi, 13))
    ax.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color="0.85", lw=0.4)
    for axis in np.eye(3):
        ax.plot(*np.stack([-axis, axis], axis=1), color="0.6", lw=0.6)
    ax.set(xlim=(-1, 1), ylim=(-1, 1), zlim=(-1, 1))
