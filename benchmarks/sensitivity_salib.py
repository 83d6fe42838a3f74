"""Sobol' indices and Morris effects of difflab against SALib 1.6 on identical samples (the Ishigami function).

Two steps, two environments:

    python benchmarks/sensitivity_salib.py difflab OUT.npz        # difflab: designs, outputs and its indices
    PEER_PYTHON benchmarks/sensitivity_salib.py salib OUT.npz     # SALib 1.6 on the same samples; prints the table

The first step runs the Saltelli designs (n = 2^10, 2^12, 2^14) and a Morris design (r = 50, 4 levels) through
`difflab.sweep` (the Ishigami function as a model whose y(1) is f) and stores the points, the outputs and
difflab's indices. The second reorders the same outputs into SALib's layout (per base row: A, A_B^(1..d), B) and
calls `SALib.analyze.sobol.analyze(..., calc_second_order=False)` and `SALib.analyze.morris.analyze`; the point
estimates must agree to rounding. Bootstrap intervals differ by construction (SALib: normal approximation from
the bootstrap standard deviation; difflab: percentile), so their widths are only compared.
"""

from __future__ import annotations

import sys
import time

import numpy as np

A, B = 7.0, 0.1
NAMES = ["x1", "x2", "x3"]
BOUNDS = {name: (-np.pi, np.pi) for name in NAMES}
SIZES = (2**10, 2**12, 2**14)
R = 50


def exact():
    v1, v2, v13 = 0.5 * (1 + B * np.pi**4 / 5) ** 2, A**2 / 8, 8 * B**2 * np.pi**8 / 225
    v = v1 + v2 + v13
    return np.array([v1, v2, 0.0]) / v, np.array([v1 + v13, v2, v13]) / v


def run_difflab(path: str) -> None:
    import jax.numpy as jnp

    import difflab
    from difflab.sensitivity import Morris, Saltelli, morris_analyze, sobol_analyze

    class Ishigami(difflab.AbstractModel):
        """dy/dt = f(x), y(0) = 0: y(1) = f (a constant field is integrated exactly)."""

        x1: jnp.ndarray
        x2: jnp.ndarray
        x3: jnp.ndarray
        states = (difflab.StateInfo("y", "1", "integral of f"),)
        time_units = "s"

        def __init__(self, x1=0.0, x2=0.0, x3=0.0):
            self.x1, self.x2, self.x3 = (jnp.asarray(v, dtype=float) for v in (x1, x2, x3))

        def vector_field(self, t, y, args):
            s1 = jnp.sin(self.x1)
            return {"y": s1 + A * jnp.sin(self.x2) ** 2 + B * self.x3**4 * s1}

        def initial_state(self):
            return {"y": jnp.zeros(())}

    out = {}
    obs = {"f": lambda traj: traj.ys["y"][-1]}
    for n in SIZES:
        design = Saltelli(n, BOUNDS, seed=1)
        start = time.perf_counter()
        ds = difflab.sweep(Ishigami(), None, [0.0, 1.0], design, obs, chunk_size=n * 5, progress=False)
        indices = sobol_analyze(ds, design, seed=1)
        print(f"difflab n = {n}: {n * 5} solves + indices in {time.perf_counter() - start:.1f} s")
        out[f"y_{n}"] = ds["f"].values
        for key in ("first_order", "total", "first_order_ci", "total_ci"):
            out[f"{key}_{n}"] = indices[key].sel(output="f").values
    design = Morris(R, BOUNDS, levels=4, seed=1)
    ds = difflab.sweep(Ishigami(), None, [0.0, 1.0], design, obs, progress=False)
    effects = morris_analyze(ds, design)
    out["morris_x"] = np.stack([ds[name].values for name in NAMES], axis=1)
    out["morris_y"] = ds["f"].values
    for key in ("mu", "mu_star", "sigma", "mu_star_ci"):
        out[f"morris_{key}"] = effects[key].sel(output="f").values
    np.savez(path, **out)
    print(f"wrote {path}")


def salib_order(y: np.ndarray, n: int, d: int) -> np.ndarray:
    """difflab's blocks (A, B, A_B^(1..d)) as SALib's rows (A_j, A_B^(1..d)_j, B_j for each j)."""
    fa, fb, fab = y[:n], y[n : 2 * n], y[2 * n :].reshape(d, n)
    return np.column_stack([fa, fab.T, fb]).ravel()


def run_salib(path: str) -> None:
    from importlib.metadata import version

    from SALib.analyze import morris, sobol

    data = np.load(path)
    problem = {"num_vars": 3, "names": NAMES, "bounds": [list(b) for b in BOUNDS.values()]}
    first, total = exact()
    print(f"SALib {version('SALib')}; Ishigami a = {A}, b = {B}")
    print(
        "| n | solves | max abs difference S1 / ST (SALib - difflab) | max abs error vs exact S1 / ST | "
        "mean CI width S1 SALib / difflab |"
    )
    print("|---|---|---|---|---|")
    for n in SIZES:
        y = salib_order(data[f"y_{n}"], n, 3)
        res = sobol.analyze(problem, y, calc_second_order=False, num_resamples=1000, conf_level=0.95, seed=1)
        d1 = np.abs(res["S1"] - data[f"first_order_{n}"]).max()
        dt = np.abs(res["ST"] - data[f"total_{n}"]).max()
        e1 = np.abs(data[f"first_order_{n}"] - first).max()
        et = np.abs(data[f"total_{n}"] - total).max()
        width = np.diff(data[f"first_order_ci_{n}"], axis=-1).mean()
        print(
            f"| 2^{int(np.log2(n))} | {5 * n} | {d1:.1e} / {dt:.1e} | {e1:.4f} / {et:.4f} | "
            f"{2 * res['S1_conf'].mean():.4f} / {width:.4f} |"
        )
    res = morris.analyze(problem, data["morris_x"], data["morris_y"], num_levels=4, num_resamples=1000, seed=1)
    diffs = {k: np.abs(np.asarray(res[k]) - data[f"morris_{k}"]).max() for k in ("mu", "mu_star", "sigma")}
    print(
        f"Morris r = {R}, 4 levels: max abs difference mu {diffs['mu']:.1e}, mu* {diffs['mu_star']:.1e}, "
        f"sigma {diffs['sigma']:.1e}; mu* difflab {np.round(data['morris_mu_star'], 3)}"
    )


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("difflab", "salib"):
        sys.exit(__doc__)
    (run_difflab if sys.argv[1] == "difflab" else run_salib)(sys.argv[2])
