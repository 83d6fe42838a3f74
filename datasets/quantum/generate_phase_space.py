"""Make the phase-space reference data with QuTiP (in a separate venv; difflab never imports it).

    python3 -m venv PEER_VENV
    PEER_VENV/bin/pip install qutip==5.3.1 xarray netCDF4
    PEER_PYTHON datasets/quantum/generate_phase_space.py

Writes `phase_space_qutip.nc` next to this script: three states of a mode truncated to N = 20 levels and QuTiP's
`wigner` (default method `clenshaw`) and `qfunc` of each on a 41 × 41 grid x, y in [−5, 5], g = √2:

- `cat_even`: (|β⟩ + |−β⟩) normalised, β = 1.5, coherent states by `coherent(N, β, method="analytic")`;
- `thermal`: `thermal_dm(N, 1.2)` (mean photon number 1.2 before truncation, renormalised by QuTiP);
- `random`: `rand_dm(N, seed=2026)` (Ginibre distribution, QuTiP's default density 0.75).

Stored: `rho_re`, `rho_im` (state, row, col), `wigner` and `qfunc` (state, y, x) with QuTiP's orientation
(row j is `y[j]`, column k is `x[k]`).
"""

from __future__ import annotations

import platform
from pathlib import Path

import numpy as np
import qutip
import scipy
import xarray as xr

HERE = Path(__file__).parent
N = 20
G = np.sqrt(2.0)


def states() -> dict[str, qutip.Qobj]:
    beta = 1.5
    cat = qutip.coherent(N, beta, method="analytic") + qutip.coherent(N, -beta, method="analytic")
    return {
        "cat_even": qutip.ket2dm(cat.unit()),
        "thermal": qutip.thermal_dm(N, 1.2),
        "random": qutip.rand_dm(N, seed=2026),
    }


def main() -> None:
    x = y = np.linspace(-5.0, 5.0, 41)
    chosen = states()
    rho = np.array([s.full() for s in chosen.values()])
    w = np.array([qutip.wigner(s, x, y, g=G) for s in chosen.values()])
    q = np.array([qutip.qfunc(s, x, y, g=G) for s in chosen.values()])
    dims = ("state", "y", "x")
    ds = xr.Dataset(
        {
            "rho_re": (("state", "row", "col"), rho.real),
            "rho_im": (("state", "row", "col"), rho.imag),
            "wigner": (dims, w, {"long_name": "Wigner function (QuTiP wigner, method clenshaw)", "units": "1"}),
            "qfunc": (dims, q, {"long_name": "Husimi Q function (QuTiP qfunc)", "units": "1"}),
        },
        coords={
            "state": list(chosen),
            "x": ("x", x, {"long_name": "x, alpha = g (x + i y) / 2", "units": "1"}),
            "y": ("y", y, {"long_name": "y, alpha = g (x + i y) / 2", "units": "1"}),
        },
    )
    ds.attrs.update({
        "generator": "datasets/quantum/generate_phase_space.py",
        "qutip": qutip.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
        "python": platform.python_version(), "platform": f"{platform.system()} {platform.machine()}",
        "g": G, "N": N, "cat_beta": 1.5, "thermal_nbar": 1.2, "random_seed": 2026,
    })  # fmt: skip
    ds.to_netcdf(HERE / "phase_space_qutip.nc")
    print(ds)


if __name__ == "__main__":
    main()
