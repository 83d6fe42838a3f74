"""Battery cases, classes 4, 6, 8, 11, 14, 17: calibration."""

from __future__ import annotations

import numpy as np

from battery.framework import case, fit_relax, hh, relax, relax_data, step, ts_hh, units_data


def _resume_base():
    import difflab

    return dict(params={"k": difflab.Bounded(0.1, 10.0)}, model=relax(k=1.0, y0=2.0), optimizer="adam")


def _fit_then_resume(ctx, **change):
    path = ctx.tmp / "fit.ckpt.nc"
    base = _resume_base()
    fit_relax(**base, steps=3, checkpoint=path)
    ctx.guard(path)
    return fit_relax(**(base | change), steps=6, resume=path)


CHANGED_FIT = r"different fit: (it differs from this one in its|loss|optimizer|parameters)"


@case("fit.resume-changed-protocol", "4", r"different fit: it differs from this one in its protocol")
def _(ctx):
    import difflab

    return _fit_then_resume(ctx, protocol=difflab.Constant(0.1))


@case("fit.resume-changed-fixed-parameter", "4", r"different fit: it differs from this one in its fixed parameters")
def _(ctx):
    return _fit_then_resume(ctx, model=relax(k=1.0, y0=2.5))


@case("fit.resume-changed-bounds", "4", r"different fit: it differs from this one in its bounds")
def _(ctx):
    import difflab

    return _fit_then_resume(ctx, params={"k": difflab.Bounded(0.1, 20.0)})


@case(
    "fit.resume-changed-simulate-options",
    "4",
    r"different fit: it differs from this one in its simulation times and options",
)
def _(ctx):
    import diffrax

    import difflab

    opts = difflab.SolveOptions(stepsize_controller=diffrax.PIDController(rtol=1e-3, atol=1e-6))
    return _fit_then_resume(ctx, options=opts)


@case("fit.resume-changed-loss", "4", CHANGED_FIT)
def _(ctx):
    import jax.numpy as jnp

    def l1(pred, data, mask):
        return jnp.sum(jnp.where(mask, jnp.abs(pred["y"] - data["y"]), 0.0))

    return _fit_then_resume(ctx, loss=l1)


@case("fit.resume-corrupt-checkpoint", "17", r"checkpoint.*is corrupt")
def _(ctx):
    import netCDF4

    path = ctx.tmp / "fit.ckpt.nc"
    fit_relax(**_resume_base(), steps=3, checkpoint=path)  # the problem of the cases above: compiled once
    with netCDF4.Dataset(path, "r+") as nc:
        nc["theta__k"][0] = nc["theta__k"][0] + 0.5
    ctx.guard(path)
    return fit_relax(**_resume_base(), steps=6, resume=path)


@case("fit.resume-truncated-checkpoint", "17", r"fit.ckpt.nc.*(not a readable|corrupt)")
def _(ctx):
    path = ctx.tmp / "fit.ckpt.nc"
    fit_relax(**_resume_base(), steps=3, checkpoint=path)
    path.write_bytes(path.read_bytes()[:300])
    return fit_relax(**_resume_base(), steps=6, resume=path)


@case("fit.checkpoint-unwritable", "14", r"checkpoint.*cannot be written")
def _(ctx):
    (ctx.tmp / "a_file").write_text("not a folder")
    ctx.guard(ctx.tmp / "a_file")
    steps = []
    try:
        return fit_relax(checkpoint=ctx.tmp / "a_file" / "fit.nc", callback=lambda s, losses: steps.append(s))
    finally:
        if steps:
            raise AssertionError(f"{len(steps)} step(s) ran before the refusal")


@case("fit.checkpoint-overwrites-user-file", "14", r"never overwritten")
def _(ctx):
    (ctx.tmp / "mine.nc").write_text("user data")
    ctx.guard(ctx.tmp / "mine.nc")
    return fit_relax(checkpoint=ctx.tmp / "mine.nc")


@case("fit.nan-initial-value", "6", r"\bk\b.*(finite|nan|NaN)")
def _(ctx):
    return fit_relax(model=relax(k=float("nan"), y0=1.0))


@case("fit.nan-start", "6", r"starts.*\bk\b|\bk\b.*start")
def _(ctx):
    return fit_relax(starts={"k": [1.0, float("nan")], "y0": [1.0, 1.0]})


@case("fit.start-outside-bounds", "6", r"y0.*(bounds|outside|Bounded|\[0.1, 10)")
def _(ctx):
    return fit_relax(starts={"k": [1.0, 1.0], "y0": [1.0, 50.0]})


@case("fit.starts-ragged", "6", r"starts")
def _(ctx):
    return fit_relax(starts={"k": [1.0, 2.0], "y0": [1.0]})


@case("fit.bounds-reversed", "6", r"(lo|Bounded).*(<|hi)")
def _(ctx):
    import difflab

    return fit_relax(params={"k": difflab.Bounded(5.0, 1.0)})


@case("fit.bounds-nan", "6", r"(lo|Bounded|finite)")
def _(ctx):
    import difflab

    return fit_relax(params={"k": difflab.Bounded(float("nan"), 1.0)})


@case("fit.hh-start-C-zero", "5", r"\bC\b")
def _(ctx):
    import difflab

    data = {"time": np.asarray(ts_hh()), "V": np.zeros(len(ts_hh()))}
    return difflab.calibrate(hh(), step(), data, params={"C": difflab.Positive()}, starts={"C": [0.0]},
                             steps=1, run=difflab.RunOptions(progress=False))  # fmt: skip


@case("fit.data-all-nan", "6", r"\by\b.*(finite|NaN|no finite)")
def _(ctx):
    d = relax_data()
    return fit_relax(data={"time": d["time"], "y": np.full_like(d["y"], np.nan)})


@case("fit.data-inf-sample", "6", r"data variable 'y' holds 1 infinite sample\(s\), first at index \[0, 7\]")
def _(ctx):
    d = relax_data()
    y = np.array(d["y"], dtype=float)
    y[7] = np.inf  # an overflow, not a missing sample (NaN): refused, not masked
    return fit_relax(data={"time": d["time"], "y": y})


@case("fit.joint-protocols-not-one-per-recording", "19", r"got 3 protocols for 2 recordings")
def _(ctx):
    import difflab

    d = relax_data()
    data = {"time": d["time"], "y": np.stack([d["y"], d["y"]])}  # two recordings, fitted jointly
    return fit_relax(data=data, joint=True, protocol=[difflab.Constant(c) for c in (0.0, 0.5, 1.0)])


@case("fit.joint-not-a-bool", "15", r"joint must be True .* or False; got 'yes'")
def _(ctx):
    return fit_relax(joint="yes")


@case("fit.data-unknown-variable", "19", r"'z'")
def _(ctx):
    d = relax_data()
    return fit_relax(data={"time": d["time"], "z": d["y"]})


@case("fit.data-times-outside-ts", "19", r"\bts\b")
def _(ctx):
    return fit_relax(ts=np.linspace(0.0, 4.0, 11))


@case(
    "fit.underdetermined-stderr-nan", "8",
    check=lambda se: (all(np.all(np.isnan(v)) for v in se.values()), f"stderr = {se}"),
)  # fmt: skip
def _(ctx):
    import difflab

    params = {"k": difflab.Positive(), "b": difflab.Identity(), "y0": difflab.Identity()}
    return fit_relax(params=params, data=relax_data(n=2, noise=0.0), optimizer="lm", steps=5).stderr


@case("fit.data-volts-seconds", "11", check=lambda k: (abs(k - 0.5) < 1e-3, f"k = {k:.6g} 1/ms (truth 0.5)"))
def _(ctx):
    import difflab

    path = ctx.tmp / "rec.nc"
    difflab.write_netcdf(units_data("V", "s", 1e-3, 1e-3), path)
    fit = fit_relax(data=difflab.read_netcdf(path), optimizer="lm", steps=20)
    return float(np.ravel(fit.best["k"])[0])


@case("fit.data-units-parsecs", "11", r"(units|parsecs)")
def _(ctx):
    return fit_relax(data=units_data("parsecs", "ms", 1.0, 1.0))


@case("fit.data-time-units-hours", "11", r"data time is in 'h' but the model expects 'ms'")
def _(ctx):
    return fit_relax(data=units_data("mV", "h", 1.0, 1 / 3.6e6))


@case("fit.data-microvolts", "11", check=lambda loss: (loss < 1e-12, f"loss at the truth = {loss:.3g} mV^2"))
def _(ctx):
    fit = fit_relax(model=relax(k=0.5, y0=2.0), data=units_data("uV", "ms", 1e3, 1.0), steps=0)
    return float(np.min(fit.losses.values))


@case("fit.checkpoint-every-zero", "14", r"checkpoint_every must be a whole number of steps >= 1; got 0")
def _(ctx):
    return fit_relax(checkpoint=ctx.tmp / "ck.nc", checkpoint_every=0)


@case("fit.key-int", "6", r"key must be one JAX random key, made by jax.random.key\(seed\)", exc=(TypeError,))
def _(ctx):
    return fit_relax(starts=2, key=3)


@case("fit.run-options-as-dict", "19", r"run must be a difflab.RunOptions or None; got a dict", exc=(TypeError,))
def _(ctx):
    import difflab

    return difflab.calibrate(relax(), None, relax_data(), params={"k": difflab.Positive()}, run={"progress": False})


@case("fit.compare-bad-variables", "19", r"variables must be a non-empty list of variable names", exc=(TypeError,))
def _(ctx):
    return fit_relax(variables=[3])


@case("fit.one-sample", "19", r"data must hold at least 2 time samples to be fitted; got 1")
def _(ctx):
    return fit_relax(data=relax_data(n=1))


def _ou(t_end=40.0, every=1):
    """The NEURON squid axon under a held OU current, the first `t_end` ms, 1 mV noise, every `every`-th sample."""
    import difflab

    ref = difflab.datasets.load("hh/hh_ou_hold").sel(time=slice(0.0, t_end))
    ts = ref.time.values
    V = ref.V.values + np.random.default_rng(1).normal(0.0, 1.0, ts.size)
    return difflab.Sampled(ts, ref.I_stim.values), {"time": ts[::every], "V": V[::every]}


@case("fit.linear-spike-times-loss", "19", r"the loss is SpikeTime\w*; the estimate reads the measured trace")
def _(ctx):
    import difflab

    protocol, data = _ou()
    return difflab.calibrate(hh(), protocol, data, params={"gNa": (50.0, 200.0)}, loss="spike_times",
                             run=difflab.RunOptions(strategy="linear"), steps=1)  # fmt: skip


@case("fit.linear-coarse-data", "11", r"sampled every 1 ms; .* needs samples at most 0.25 ms apart")
def _(ctx):
    import difflab

    protocol, data = _ou(every=40)
    return difflab.calibrate(
        hh(), protocol, data, params={"gNa": (50.0, 200.0)}, run=difflab.RunOptions(strategy="linear"), steps=1
    )


@case("fit.linear-estimate-outside-bounds", "6", r"estimate gNa = 1\d\d.* outside its bounds \(150, 200\)")
def _(ctx):
    import difflab

    protocol, data = _ou()
    return difflab.calibrate(hh().replace(gNa=160.0), protocol, data, params={"gNa": (150.0, 200.0)},
                             run=difflab.RunOptions(strategy="linear"), steps=1)  # fmt: skip


@case("fit.auto-keeps-a-better-start", "6", check=lambda g: (abs(g - 0.3) < 0.03, f"gL = {g:.4g} (truth 0.3)"))
def _(ctx):
    import difflab

    protocol, data = _ou()
    fit = difflab.calibrate(
        hh(), protocol, data, params={"gL": (0.05, 1.0)}, steps=10, run=difflab.RunOptions(progress=False)
    )
    return float(fit.best["gL"])


@case("posterior.loss-without-residuals", "19", r"loss must be a least-squares loss for posterior", exc=TypeError)
def _(ctx):
    import jax

    import difflab

    return difflab.posterior(relax(k=1.0, y0=2.0), difflab.Constant(0.0), relax_data(), params={"k": (0.1, 10.0)},
                             loss="firing_rate", key=jax.random.key(0))  # fmt: skip


@case("posterior.zero-chains", "19", r"chains must be a whole number >= 1; got 0")
def _(ctx):
    import difflab

    return difflab.Sampling(chains=0)


@case("posterior.two-recordings-not-joint", "19", r"data must hold one recording.*Comparison\(joint=True\)")
def _(ctx):
    import jax

    import difflab

    data = relax_data()
    two = {"time": data["time"], "y": np.stack([data["y"], data["y"] + 0.01])}
    return difflab.posterior(relax(k=1.0, y0=2.0), difflab.Constant(0.0), two, params={"k": (0.1, 10.0)},
                             key=jax.random.key(0))  # fmt: skip


def _posterior_relax(ctx, noise=0.05, **run):
    import warnings

    import jax

    import difflab

    sampling = difflab.Sampling(chains=1, warmup=0, draws=2, progress=False, **run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # two draws of one chain have not converged: said, not asked
        return difflab.posterior(relax(k=1.0, y0=2.0), difflab.Constant(0.0), relax_data(), params={"k": (0.1, 10.0)},
                                 noise=noise, key=jax.random.key(0), sampling=sampling)  # fmt: skip


@case("posterior.resume-changed-noise", "4", r"different posterior: it differs from this one in its noise")
def _(ctx):
    path = ctx.tmp / "post.nc"
    _posterior_relax(ctx, checkpoint=path)
    ctx.guard(path)
    return _posterior_relax(ctx, noise=0.1, resume=path)


def _posterior_on_users_file(ctx, field: str):
    """`posterior` pointed (as `field`: checkpoint or resume) at a text file of the user's, which must survive."""
    path = ctx.tmp / "post.nc"
    path.write_text("the user's own file, not a netCDF checkpoint")
    ctx.guard(path)
    return _posterior_relax(ctx, **{field: path})


@case("posterior.checkpoint-exists", "4", r"checkpoint .*post.nc. exists; pass resume=.* to continue that posterior")
def _(ctx):
    return _posterior_on_users_file(ctx, "checkpoint")


@case("posterior.resume-not-netcdf", "4", r"post.nc")
def _(ctx):
    return _posterior_on_users_file(ctx, "resume")


@case("posterior.noise-improper-prior", "19", r"flat prior on \(0, inf\), which is improper: give priors=")
def _(ctx):
    import difflab

    return _posterior_relax(ctx, noise=difflab.Positive())


@case("fit.mse-negative-weight", "19", r"weights\['y'\] must be a finite number > 0; got -1.0")
def _(ctx):
    import difflab

    return difflab.MSE(weights={"y": -1.0})


@case("fit.loss-sum-nan-weight", "19", r"LossSum weights\[1\] must be a finite number > 0; got nan")
def _(ctx):
    import difflab

    return difflab.LossSum((difflab.MSE(), difflab.SpikeTimes()), weights=(1.0, float("nan")))


@case("fit.loss-sum-weight-count", "19", r"LossSum weights must have one weight per term \(2\); got 3")
def _(ctx):
    import difflab

    return difflab.LossSum((difflab.MSE(), difflab.SpikeTimes()), weights=(1.0, 1.0, 1.0))


@case("fit.loss-sum-not-a-loss", "19", r"LossSum terms must be a non-empty sequence of difflab losses")
def _(ctx):
    import difflab

    return difflab.LossSum(("mse", "spike_times"))


@case("fit.spike-times-negative-missing-slope", "19", r"SpikeTimes missing_slope must be a finite number ≥ 0")
def _(ctx):
    import difflab

    return difflab.SpikeTimes(threshold=-20.0, missing_slope=-1.0)
