"""FAST benchmarks: η evaluation (difflab/JAX against plain NumPy) and the time to solve Q2.

    python benchmarks/fast_benchmark.py            # η timings only (about a minute)
    python benchmarks/fast_benchmark.py --solve    # also the full Q2 solve, compile included (minutes)

Both η implementations evaluate the same model (spherical-cap panels, n² barycentric rays per panel, n = 32 by
default, the converged density) on the same surface, and must agree to 1e-12.
"""

from __future__ import annotations

import argparse
import platform
import time

import jax
import numpy as np
from fast_numpy_ratio import receiving_ratio as numpy_ratio

from difflab import reflector as rf


def _best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bench_ratio(n: int, repeat: int) -> list[tuple[str, str]]:
    g = rf.Geometry.fast()
    p = rf.Pointing.from_angles(g, 36.795, 78.169)
    e = np.where(np.asarray(p.nodes_inside), np.asarray(rf.ideal_extensions(g, p.s, 300.8)), 0.0)
    t0 = time.perf_counter()
    eta_jax = float(rf.receiving_ratio(g, e, p, n=n))
    first = time.perf_counter() - t0
    steady = _best_of(lambda: rf.receiving_ratio(g, e, p, n=n).block_until_ready(), repeat)
    v = np.asarray(rf.node_positions(g, e))[np.asarray(g.panels)[np.asarray(p.panels_inside)]]
    w = rf.barycentric_grid(n)
    s, focus = np.asarray(p.s), np.asarray(p.focus)
    eta_np = numpy_ratio(v, s, focus, 300.4, w)
    t_np = _best_of(lambda: numpy_ratio(v, s, focus, 300.4, w), repeat)
    grad = jax.jit(jax.grad(lambda x: rf.receiving_ratio(g, x, p, n=n, temperature=0.01)))
    t0 = time.perf_counter()
    grad(e).block_until_ready()
    g_first = time.perf_counter() - t0
    g_steady = _best_of(lambda: grad(e).block_until_ready(), repeat)
    assert abs(eta_jax - eta_np) < 1e-12, (eta_jax, eta_np)
    rays = len(np.asarray(p.panels_inside)) * n * n
    return [
        ("η, ideal paraboloid Q2", f"{100 * eta_jax:.3f} % (NumPy {100 * eta_np:.3f} %)"),
        ("rays", f"{rays:,} ({len(np.asarray(p.panels_inside))} panels × {n * n})"),
        ("difflab η, first call (compile + run)", f"{first:.2f} s"),
        ("difflab η, steady state", f"{1e3 * steady:.1f} ms"),
        ("NumPy η", f"{1e3 * t_np:.1f} ms"),
        ("speed-up difflab / NumPy", f"{t_np / steady:.1f}×"),
        ("difflab ∇η (smooth, T = 1 cm), first call", f"{g_first:.2f} s"),
        ("difflab ∇η, steady state", f"{1e3 * g_steady:.1f} ms"),
    ]


def bench_solve() -> list[tuple[str, str]]:
    g = rf.Geometry.fast()
    t0 = time.perf_counter()
    sol = rf.solve(g, 36.795, 78.169)
    total = time.perf_counter() - t0
    return [
        ("Q2 solve (fit + zone search + polish), compile included", f"{total:.0f} s"),
        ("Q2 η (adjusted / fit / base sphere)", f"{100 * sol.eta:.2f} / {100 * sol.eta_fit:.2f} / "
         f"{100 * sol.eta_base:.2f} %"),
        ("Q2 constraint check", str(sol.report)),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=32, help="subdivisions per panel edge (n² rays per panel)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--solve", action="store_true", help="also time the full Q2 solve")
    args = parser.parse_args()
    rows = bench_ratio(args.n, args.repeat)
    if args.solve:
        rows += bench_solve()
    print(f"machine: {platform.processor() or platform.machine()}, {jax.device_count()} {jax.default_backend()} "
          f"device(s), jax {jax.__version__}")  # fmt: skip
    print("| quantity | value |\n| --- | --- |")
    for k, v in rows:
        print(f"| {k} | {v} |")


if __name__ == "__main__":
    main()
