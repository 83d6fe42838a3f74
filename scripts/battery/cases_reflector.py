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


@case("rf.servo-time-constant-zero", "16", r"time_constant must be > 0 s")
def _(ctx):
    from difflab import reflector as rf

    return rf.ActuatorServo(np.zeros(3), time_constant=0.0)


@case("rf.servo-speed-nan", "16", r"max_speed must be finite")
def _(ctx):
    from difflab import reflector as rf

    return rf.ActuatorServo(np.zeros(3), max_speed=float("nan"))


@case("rf.step-response-dt-zero", "16", r"dt \(sampling interval, s\) must be a finite number > 0")
def _(ctx):
    from difflab import reflector as rf

    return rf.synthetic_step_response(dt=0.0)


@case("rf.step-response-noise-negative", "16", r"noise \(standard deviation, m\) must be a finite number >= 0")
def _(ctx):
    from difflab import reflector as rf

    return rf.synthetic_step_response(noise=-1.0)


@case("rf.source-direction-beta-95", "16", r"beta \(elevation\) must be a finite angle in \[0, 90\]")
def _(ctx):
    from difflab import reflector as rf

    return rf.source_direction(0.0, 95.0)


@case("rf.sky-track-latitude-100", "16", r"latitude must be a finite angle in \[-90, 90\]")
def _(ctx):
    from difflab import reflector as rf

    return rf.sky_track(q2().s, np.array([0.0, 10.0]), latitude=100.0)


@case("rf.tracking-taper-negative", "16", r"taper .* must be a finite number > 0")
def _(ctx):
    from difflab import reflector as rf

    return rf.TrackingTarget(geometry(), q2().s, taper=-1.0)


@case("rf.tracking-dt-save-zero", "16", r"dt_save .* must be a finite number > 0")
def _(ctx):
    from difflab import reflector as rf

    return rf.simulate_tracking(geometry(), duration=10.0, dt_save=0.0)


@case("rf.constraints-max-strain-negative", "16", r"max_strain .* must be a finite number > 0")
def _(ctx):
    from difflab import reflector as rf

    return rf.check_constraints(geometry(), np.zeros(2226), max_strain=-1.0)


@case("rf.ratio-temperature-negative", "16", r"temperature .* must be a finite number > 0")
def _(ctx):
    from difflab import reflector as rf

    return rf.receiving_ratio(geometry(), np.zeros(2226), q2(), n=2, temperature=-1.0)
