"""Battery cases, classes 16: reflector."""

from __future__ import annotations

import numpy as np

from battery.framework import case, geometry, q2, xlsx_book


@case("rf.depth-nan", "16", r"depth \(vertex depth")
def _(ctx):
    from difflab import reflector as rf

    return rf.ideal_extensions(geometry(), q2().s, float("nan"))


@case("rf.depth-negative", "16", r"depth \(vertex depth")
def _(ctx):
    from difflab import reflector as rf

    return rf.vertex(q2().s, -300.8)


@case("rf.direction-not-unit", "16", r"s must be a unit vector")
def _(ctx):
    from difflab import reflector as rf

    return rf.ideal_extensions(geometry(), 2.0 * np.asarray(q2().s), 300.8)


@case("rf.direction-nan", "16", r"s must be a unit vector")
def _(ctx):
    from difflab import reflector as rf

    return rf.feed_position(np.array([np.nan, 0.0, 1.0]))


@case("rf.extension-nan", "16", r"e must be finite .*e\[5\]")
def _(ctx):
    from difflab import reflector as rf

    e = np.zeros(geometry().n_nodes)
    e[5] = np.nan
    return rf.receiving_ratio(geometry(), e, q2(), n=4)


@case("rf.extension-inf-strain", "16", r"e must be finite")
def _(ctx):
    from difflab import reflector as rf

    e = np.zeros(geometry().n_nodes)
    e[7] = np.inf
    return rf.edge_strain(geometry(), e)


@case("rf.extension-wrong-shape", "16", r"e must have shape \(2226,\)")
def _(ctx):
    from difflab import reflector as rf

    return rf.node_positions(geometry(), np.zeros(3))


@case("rf.beta-zero", "16", r"beta \(elevation\) = 0 degrees")
def _(ctx):
    from difflab import reflector as rf

    return rf.Pointing.from_angles(geometry(), 0.0, 0.0)


@case("rf.alpha-nan", "16", r"alpha")
def _(ctx):
    from difflab import reflector as rf

    return rf.Pointing.from_angles(geometry(), float("nan"), 60.0)


@case("rf.xlsx-boolean-cell", "16", r"cell B3: extension of node 'B1' must be a number of metres; got the boolean")
def _(ctx):
    from difflab import reflector as rf

    return rf.read_result_extensions(xlsx_book(ctx.tmp / "r.xlsx", [("A0", 0.1), ("B1", False)]), geometry())


@case("rf.xlsx-unknown-node", "16", r"ZZ9")
def _(ctx):
    from difflab import reflector as rf

    return rf.read_result_extensions(xlsx_book(ctx.tmp / "r.xlsx", [("A0", 0.1), ("ZZ9", 0.2)]), geometry())


@case("rf.xlsx-nan-cell", "16", r"cell B3.*(finite|nan|number)")
def _(ctx):
    from difflab import reflector as rf

    return rf.read_result_extensions(xlsx_book(ctx.tmp / "r.xlsx", [("A0", 0.1), ("B1", float("nan"))]), geometry())
