"""Battery cases, classes 13, 15: the command line."""

from __future__ import annotations

import re
from pathlib import Path

from battery.framework import ROOT, case, cli, xlsx_book

FIT_CONFIG = """protocol = "step:10,1,3"
[model]
preset = "hodgkin_huxley/squid_axon"
{model_extra}
[data]
dataset = "hh/hh_step_10uA"
variable = "V"
select = {{ amplitude = 10.0 }}
time = [0.0, 4.0]
stride = {stride}
[fit]
{fit_extra}
[fit.params]
gNa = "log"
[output]
path = "{out}"
"""


def _fit_config(ctx, *, model_extra="", fit_extra="steps = 1", stride="5", out="fit.nc", name="fit.toml"):
    path = ctx.tmp / name
    path.write_text(FIT_CONFIG.format(model_extra=model_extra, fit_extra=fit_extra, stride=stride, out=out))
    return str(path)


SWEEP_CONFIG = """protocol = "step:10,1,3"
[model]
preset = "hodgkin_huxley/squid_axon"
[time]
end = 5.0
dt = {dt}
[design]
type = "grid"
[design.parameters]
gK = {gk}
[observables]
{observables}
[output]
directory = "study"
chunk_size = 1
"""


def _sweep_config(ctx, *, dt="0.1", gk="[36.0, 30.0]", observables='peak = { kind = "max", variable = "V" }'):
    path = ctx.tmp / "sweep.toml"
    path.write_text(SWEEP_CONFIG.format(dt=dt, gk=gk, observables=observables))
    return str(path)


def _nan_free(out: str) -> tuple[bool, str]:
    bad = re.search(r"\b(nan|inf)\b", out, re.I)
    return (not bad, (out.strip().splitlines() or [""])[-1] if not bad else f"printed {bad.group(0)}: {out!r}")


@case("cli.simulate-step-1e5", "9", r"V|failed|non-finite", cli=True, check=_nan_free)
def _(ctx):
    return cli(ctx, "simulate", "squid_axon", "--protocol", "step:1e5,1,3", "--t-end", "5", "-o", "x.nc")


@case("cli.simulate-t-end-1e9", "12", r"--t-end|--dt-save|samples|dt0|steps", cli=True)
def _(ctx):
    return cli(ctx, "simulate", "squid_axon", "--protocol", "step:10,1,3", "--t-end", "1e9", "--dt-save", "1e6",
               "-o", "x.nc", timeout=60)  # fmt: skip


@case("cli.simulate-stray-quotes", "19", r"--protocol .*stray quotes", cli=True)
def _(ctx):
    return cli(ctx, "simulate", "squid_axon", "--protocol", "'step:10,1,3'", "-o", "x.nc")


@case("cli.fit-output-under-file", "13", r"result file .*(cannot be written|is a file|parent)", cli=True)
def _(ctx):
    (ctx.tmp / "f").write_text("x")
    ctx.guard(ctx.tmp / "f")
    return cli(ctx, "fit", _fit_config(ctx, out="f/fit.nc"))


@case("cli.fit-output-folder-overwrite", "13", r"result file .* is a folder", cli=True)
def _(ctx):
    (ctx.tmp / "res").mkdir()
    (ctx.tmp / "res" / "notes.txt").write_text("keep")
    ctx.guard(ctx.tmp / "res")
    return cli(ctx, "fit", _fit_config(ctx, out="res"), "--overwrite")


@case("cli.fit-non-utf8-config", "13", r"fit.toml.* is not UTF-8", cli=True)
def _(ctx):
    path = Path(_fit_config(ctx))
    path.write_bytes(path.read_bytes().replace(b"[fit]", b"# \xe9t\xe9\n[fit]"))
    return cli(ctx, "fit", str(path))


@case("cli.fit-typo-stpes", "15", r"\[fit\] has an unknown key 'stpes'; did you mean 'steps'", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_config(ctx, fit_extra="stpes = 3"))


@case("cli.fit-resume-without-checkpoint", "15", r"--resume|checkpoint", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_config(ctx), "--resume")


@case("cli.fit-stride-fraction", "15", r"\[data\] stride must be a whole number; got 2.7", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_config(ctx, stride="2.7"))


@case("cli.fit-gNa-negative", "5", r"gNa must be >= 0", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_config(ctx, model_extra="[model.parameters]\ngNa = -5.0"))


@case("cli.fit-checkpoint-unwritable", "14", r"checkpoint.*cannot be written", cli=True)
def _(ctx):
    (ctx.tmp / "f").write_text("x")
    ctx.guard(ctx.tmp / "f")
    return cli(ctx, "fit", _fit_config(ctx, fit_extra='steps = 1\ncheckpoint = "f/ck.nc"'))


@case(
    "cli.fit-corrupt-netcdf-data", "13", r"rec.nc.*not a readable netCDF|variable 'V' is not in file 'rec.nc'", cli=True
)
def _(ctx):
    (ctx.tmp / "rec.nc").write_bytes(b"CDF\x01" + b"\x00" * 40)
    cfg = Path(_fit_config(ctx))
    cfg.write_text(cfg.read_text().replace('dataset = "hh/hh_step_10uA"', 'file = "rec.nc"'))
    return cli(ctx, "fit", str(cfg))


@case("cli.sweep-dt-zero", "13", r"\[time\].*dt", cli=True)
def _(ctx):
    return cli(ctx, "sweep", _sweep_config(ctx, dt="0"))


@case("cli.sweep-gK-negative", "5", r"design point 1 \(gK=-18.0\): gK must be >= 0", cli=True)
def _(ctx):
    return cli(ctx, "sweep", _sweep_config(ctx, gk="[36.0, -18.0]"))


@case("cli.sweep-observable-typo-windw", "15", r"windw", cli=True)
def _(ctx):
    obs = 'rate = { kind = "firing_rate", variable = "V", windw = [0.0, 5.0] }'
    return cli(ctx, "sweep", _sweep_config(ctx, observables=obs))


@case("cli.sweep-grid-missing-num", "19", r"\[design.parameters.gK\] needs 'num'", cli=True)
def _(ctx):
    return cli(ctx, "sweep", _sweep_config(ctx, gk="{ start = 30.0, stop = 36.0 }"))


@case("cli.sweep-truncated-chunk", "13", r"chunk_00001.nc", cli=True)
def _(ctx):
    cfg = _sweep_config(ctx)
    cli(ctx, "sweep", cfg)
    chunk = ctx.tmp / "study" / "chunk_00001.nc"
    chunk.write_bytes(chunk.read_bytes()[:200])
    ctx.guard(ctx.tmp / "study" / "chunk_00000.nc")
    return cli(ctx, "sweep", cfg)


def _result_xlsx(ctx):
    return xlsx_book(ctx.tmp / "r.xlsx", [("A0", 0.1)])


@case("cli.fast-check-csv", "13", r"'r.csv' is not a readable .xlsx workbook", cli=True)
def _(ctx):
    (ctx.tmp / "r.csv").write_text("A0,0.1\n")
    return cli(ctx, "fast", "check", "r.csv")


@case("cli.fast-check-empty", "13", r"'r.xlsx' is empty", cli=True)
def _(ctx):
    (ctx.tmp / "r.xlsx").write_bytes(b"")
    return cli(ctx, "fast", "check", "r.xlsx")


@case("cli.fast-check-truncated", "13", r"'cut.xlsx' is not a readable .xlsx workbook", cli=True)
def _(ctx):
    (ctx.tmp / "cut.xlsx").write_bytes(_result_xlsx(ctx).read_bytes()[:1000])
    return cli(ctx, "fast", "check", "cut.xlsx")


@case("cli.fast-check-beta-zero", "16", r"--beta \(elevation\) = 0 degrees", cli=True)
def _(ctx):
    _result_xlsx(ctx)
    return cli(ctx, "fast", "check", "r.xlsx", "--beta", "0")


def _case_file(ctx, old: str, new: str, source="hh_step_10uA.toml") -> str:
    text = (ROOT / "validation" / source).read_text()
    assert old in text, old
    path = ctx.tmp / "case.toml"
    path.write_text(text.replace(old, new, 1))
    return str(path)


def _validate(ctx, path):
    return cli(ctx, "validate", path, "--out", str(ctx.tmp / "report"), "--no-progress")


@case("cli.validate-tolerance-nan", "13", r"field 'metrics.spike_count_error.tolerance' must be a finite", cli=True)
def _(ctx):
    return _validate(ctx, _case_file(ctx, "tolerance = 0,", "tolerance = nan,"))


@case("cli.validate-tolerance-negative", "15", r"metrics.spike_time_max_error.tolerance.*>= 0", cli=True)
def _(ctx):
    return _validate(ctx, _case_file(ctx, "tolerance = 0.05", "tolerance = -0.05"))


@case("cli.validate-kind-module", "21", r"kind", cli=True)
def _(ctx):
    return _validate(ctx, _case_file(ctx, 'kind = "neuron.trace"', 'kind = "os:system"'))  # a "module:NAME" kind


@case("cli.validate-simulation-unknown-key", "15", r"unknown field\(s\) 'simulation.solverr'", cli=True)
def _(ctx):
    return _validate(ctx, _case_file(ctx, 'solver = "default"', 'solver = "default"\nsolverr = "x"'))


def _fit_text(ctx, old: str, new: str, name: str = "fit.toml") -> str:
    """The standard fit config with one line replaced."""
    path = Path(_fit_config(ctx, name=name))
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))
    return str(path)


@case("cli.fit-select-missing-value", "15", r"\[data\] select: amplitude = 99.0 is not in the data", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_text(ctx, "select = { amplitude = 10.0 }", "select = { amplitude = 99.0 }"))


@case("cli.fit-time-outside-span", "15", r"\[data\] time = \[500.0, 600.0\] holds 0 sample", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_text(ctx, "time = [0.0, 4.0]", "time = [500.0, 600.0]"))


@case("cli.fit-time-reversed", "15", r"\[data\] time must be \[t0, t1\] with t0 < t1", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_text(ctx, "time = [0.0, 4.0]", "time = [4.0, 0.0]"))


@case("cli.fit-noise-negative", "15", r"\[data\] noise must be a standard deviation >= 0", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_text(ctx, "stride = 5", "stride = 5\nnoise = -1.0"))


@case("cli.fit-output-folder", "13", r"is a folder; give a file name", cli=True)
def _(ctx):
    (ctx.tmp / "res").mkdir()
    ctx.guard(ctx.tmp / "res")
    return cli(ctx, "fit", _fit_config(ctx, out="res"))


@case("cli.fit-bounds-reversed", "15", r"\[fit.params\] gNa = \[200.0, 50.0\]: Bounded needs lo < hi", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_text(ctx, 'gNa = "log"', "gNa = [200.0, 50.0]"))


@case("cli.fit-protocol-reversed", "15", r"protocol = 'step:10,3,1': .*stop must be > start", cli=True)
def _(ctx):
    return cli(ctx, "fit", _fit_text(ctx, 'protocol = "step:10,1,3"', 'protocol = "step:10,3,1"'))
