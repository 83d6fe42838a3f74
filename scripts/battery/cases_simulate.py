"""Battery cases, classes 5, 9, 12, 18, 19: simulate, physical checks, ensembles."""

from __future__ import annotations

import numpy as np

from battery.framework import USER_ERRORS, case, hh, once, relax, step, ts_hh


@case("sim.dt0-zero", "19", r"dt0")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), ts_hh(), dt0=0.0)


@case("sim.dt0-nan", "19", r"dt0")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), ts_hh(), dt0=float("nan"))


@case("sim.y0-nan", "9", r"y0\['V'\]")
def _(ctx):
    import difflab

    y0 = dict(hh().initial_state(), V=np.nan)
    return difflab.simulate(hh(), step(), ts_hh(), y0=y0)


@case("sim.y0-wrong-shape", "19", r"y0 entries must share one leading shape .*y0\['V'\] \(3,\)")
def _(ctx):
    import difflab

    y0 = dict(hh().initial_state(), V=np.zeros(3))
    return difflab.simulate(hh(), step(), ts_hh(), y0=y0)


def _one_state_for_a_batch():
    import difflab

    batch = difflab.make_batch(hh(), gNa=[100.0, 120.0])
    given = difflab.simulate(batch, step(), ts_hh(), y0=hh().initial_state()).ys["V"]
    own = difflab.simulate(batch, step(), ts_hh()).ys["V"]
    return float(np.max(np.abs(np.asarray(given) - np.asarray(own))))


@case("sim.y0-one-cell-for-a-batched-model", "9", check=lambda d: (d == 0.0, f"largest difference {d}"))
def _(ctx):
    return _one_state_for_a_batch()


@case("sim.y0-missing-state", "19", r"y0.*'n'|'n'.*y0")
def _(ctx):
    import difflab

    y0 = {k: v for k, v in hh().initial_state().items() if k != "n"}
    return difflab.simulate(hh(), step(), ts_hh(), y0=y0)


@case("sim.y0-gate-above-1", "9", r"y0\['m'\]|\bm\b.*\[0, 1\]")
def _(ctx):
    import difflab

    y0 = dict(hh().initial_state(), m=1.5)
    return difflab.simulate(hh(), step(), ts_hh(), y0=y0)


@case("sim.huge-current", "9", r"\bV\b.*(non-finite|nan|NaN|inf)")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(1e12), ts_hh())


@case(
    "sim.huge-current-no-throw", "9",
    check=lambda tr: (not bool(np.asarray(tr.succeeded)), f"succeeded = {np.asarray(tr.succeeded)}"),
)  # fmt: skip
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(1e12), ts_hh(), throw=False)


@case("sim.protocol-float", "19", r"protocol must be a difflab protocol .*Constant")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), 3.0, ts_hh())


@case("sim.ts-decreasing", "19", r"\bts\b")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), np.array([0.0, 2.0, 1.0]))


@case("sim.ts-empty", "19", r"\bts\b")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), np.array([]))


@case("sim.t-end-1e9-fixed-step", "12", r"dt0.*(steps|max_steps)")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), np.array([0.0, 1e9]))


@case("hh.celsius-200", "12", r"default step of HodgkinHuxley.*comes from celsius = 200.0")
def _(ctx):
    import difflab

    return difflab.simulate(hh().replace(celsius=200.0), step(), ts_hh())


@case("hh.celsius-1000", "12", r"default step of HodgkinHuxley.*comes from celsius = 1000.0")
def _(ctx):
    import difflab

    return difflab.simulate(hh().replace(celsius=1000.0), step(), ts_hh())


@case("hh.C-zero", "5", r"\bC must be > 0")
def _(ctx):
    return hh().replace(C=0.0)


@case("hh.gNa-nan", "5", r"gNa must be finite")
def _(ctx):
    return hh().replace(gNa=float("nan"))


@case("hh.unknown-parameter", "19", r"gNaa|unknown")
def _(ctx):
    return hh().replace(gNaa=1.0)


@case("ens.make-batch-gK-negative", "5", r"gK must be >= 0.*member 1")
def _(ctx):
    import difflab

    return difflab.run_ensemble(difflab.make_batch(hh(), gK=[36.0, -36.0]), step(), ts_hh())


@case("ens.make-batch-gNa-nan", "5", r"gNa must be finite.*member 1")
def _(ctx):
    import difflab

    return difflab.make_batch(hh(), gNa=[120.0, np.nan])


@case("ens.make-batch-C-zero-and-negative", "5", r"C must be > 0.*member 1")
def _(ctx):
    import difflab

    return difflab.make_batch(hh(), C=[1.0, 0.0, -1.0])


@case("ens.make-batch-ragged", "19", r"lengths .*gNa.*gK")
def _(ctx):
    import difflab

    return difflab.make_batch(hh(), gNa=[120.0, 110.0], gK=[36.0, 30.0, 20.0])


@case("ens.make-batch-empty", "19", r"at least one member.*gK")
def _(ctx):
    import difflab

    return difflab.make_batch(hh(), gK=[])


def _traced_gk(gk):
    import equinox as eqx
    import jax

    import difflab

    def run(g):
        model = hh().replace(gK=g)
        return difflab.simulate(model, step(), ts_hh()).ys["V"][-1]

    fn = once("jit_gk", lambda: eqx.filter_jit(run))
    return jax.block_until_ready(fn(jax.numpy.asarray(gk)))


@case("ens.traced-gK-negative-jit", "5", r"gK must be >= 0", exc=(*USER_ERRORS, RuntimeError))
def _(ctx):
    return _traced_gk(-36.0)


@case(
    "ens.traced-batch-bad-member-no-throw", "5",
    check=lambda ok: (list(ok) == [True, False], f"succeeded = {list(ok)}"),
)  # fmt: skip
def _(ctx):
    import equinox as eqx
    import jax.numpy as jnp

    import difflab

    batch = difflab.make_batch(hh(), gK=[36.0, 30.0])  # then a member made unphysical inside a traced update
    batch = eqx.tree_at(lambda m: m.channels["k"].gbar, batch, jnp.array([36.0, -36.0]))
    traj = difflab.run_ensemble(batch, step(), ts_hh(), throw=False)
    return np.asarray(traj.succeeded).tolist()


@case("ens.member-out-of-range", "18", r"\bi\b.*(5|range|members)|member.*5")
def _(ctx):
    import difflab

    return difflab.member(difflab.make_batch(hh(), gK=[36.0, 30.0]), 5)


@case("ens.member-float-index", "18", r"\bi\b|index|integer")
def _(ctx):
    import difflab

    return difflab.member(difflab.make_batch(hh(), gK=[36.0, 30.0]), 1.5)


@case("ens.devices-empty", "19", r"devices must name at least one")
def _(ctx):
    import difflab

    return difflab.run_ensemble(difflab.make_batch(relax(), k=[0.1, 0.2]), None, np.linspace(0, 1, 5), devices=[])


@case("ens.chunk-size-negative", "19", r"chunk_size must be .*-1")
def _(ctx):
    import difflab

    b = difflab.make_batch(relax(), k=[0.1, 0.2])
    return difflab.run_ensemble(b, None, np.linspace(0, 1, 5), strategy="chunked", chunk_size=-1)


@case("ens.strategy-unknown", "19", r"strategy.*bogus")
def _(ctx):
    import difflab

    return difflab.run_ensemble(difflab.make_batch(relax(), k=[0.1, 0.2]), None, np.linspace(0, 1, 5), strategy="bogus")


@case("sim.unresolved-fixed-step", "9", r"V is nan at t = 1; .*a fixed step \(dt0 = 0.0769231\) too large")
def _(ctx):
    import difflab

    return difflab.simulate(hh(), difflab.Step(1e4, 1.0, 3.0), ts_hh())


@case("sim.unresolved-fixed-step-member", "9", check=lambda ok: (ok == [True, False], f"succeeded: {ok}"))
def _(ctx):
    import jax
    import jax.numpy as jnp
    import numpy as np

    import difflab

    ok = jax.vmap(lambda a: difflab.simulate(hh(), difflab.Step(a, 1.0, 3.0), ts_hh(), throw=False).succeeded)
    return np.asarray(ok(jnp.array([10.0, 5000.0]))).tolist()


@case("sim.ts-strings", "19", r"ts must be a real number or an array of real numbers", exc=(TypeError,))
def _(ctx):
    import difflab

    return difflab.simulate(hh(), step(), ["0", "1", "2"])


@case("hh.replace-string", "19", r"gNa must be a real number .*; got str 'abc'", exc=(TypeError,))
def _(ctx):
    return hh().replace(gNa="abc")


@case("hh.replace-complex", "19", r"gNa must be a real number .*; got complex", exc=(TypeError,))
def _(ctx):
    return hh().replace(gNa=1 + 2j)


@case("protocol.constant-string", "19", r"value must be a number or an array of numbers", exc=(TypeError,))
def _(ctx):
    import difflab

    return difflab.Constant("abc")
