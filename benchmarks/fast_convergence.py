"""Convergence of the FAST receiving ratio η with the sampling density (rays per panel).

Prints a Markdown table of η (percent) against n (n² rays per panel) for the base sphere and the ideal paraboloid
(depth 300.8 m, every aperture node on it), at the zenith and for Q2, with the difference from n = 96.

    python benchmarks/fast_convergence.py
"""

from __future__ import annotations

import numpy as np

from difflab import reflector as rf

DENSITIES = (4, 8, 12, 16, 24, 32, 48, 64, 96)


def main() -> None:
    g = rf.Geometry.fast()
    cases = []
    for name, (a, b) in {"zenith": (0.0, 90.0), "Q2": (36.795, 78.169)}.items():
        p = rf.Pointing.from_angles(g, a, b)
        mu = np.where(np.asarray(p.nodes_inside), np.asarray(rf.ideal_extensions(g, p.s, 300.8)), 0.0)
        cases += [(f"base sphere, {name}", p, np.zeros(g.n_nodes)), (f"ideal paraboloid, {name}", p, mu)]
    table = {label: [100 * float(rf.receiving_ratio(g, e, p, n=n)) for n in DENSITIES] for label, p, e in cases}
    print("| n (rays/panel) | " + " | ".join(table) + " |")
    print("| --- | " + " | ".join("---" for _ in table) + " |")
    for k, n in enumerate(DENSITIES):
        cells = [f"{v[k]:.3f} ({v[k] - v[-1]:+.3f})" for v in table.values()]
        print(f"| {n} ({n * n}) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
