"""Battery cases, classes 1, 10: quantum."""

from __future__ import annotations

import numpy as np

from battery.framework import case


def _q():
    from difflab import quantum as q

    return q


@case("q.sesolve-nan-H", "1", r"\bH\b.*(nan|NaN|finite)")
def _(ctx):
    q = _q()
    return q.sesolve(np.array([[0, np.nan], [np.nan, 0]]), q.basis(2, 0), np.linspace(0, 1, 5))


@case("q.sesolve-inf-H", "1", r"\bH\b.*(inf|finite)")
def _(ctx):
    q = _q()
    return q.sesolve(np.array([[np.inf, 0], [0, 0]]), q.basis(2, 0), np.linspace(0, 1, 5))


@case("q.mesolve-nan-jump", "1", r"jump_ops\[0\].*(nan|NaN|finite)")
def _(ctx):
    q = _q()
    with np.errstate(invalid="ignore"):
        c = np.sqrt(-0.1) * np.asarray(q.dense(q.sigmam()) if hasattr(q, "dense") else q.sigmam())
    return q.mesolve(q.sigmaz(), q.fock_dm(2, 0), np.linspace(0, 1, 5), jump_ops=[c])


@case("q.mesolve-nan-drive-op", "1", r"Drive.operator. must be finite")
def _(ctx):
    q = _q()
    import difflab

    op = np.array([[0, np.nan], [np.nan, 0]])
    return q.mesolve(q.sigmaz(), q.fock_dm(2, 0), np.linspace(0, 1, 5), drives=[q.Drive(difflab.Constant(1.0), op)])


@case("q.mesolve-non-psd-rho0", "10", r"rho0.*(eigenvalue|positive)")
def _(ctx):
    q = _q()
    return q.mesolve(q.sigmaz(), np.array([[1.2, 0], [0, -0.2]]), np.linspace(0, 1, 5))


@case("q.mesolve-rho0-trace", "10", r"rho0.*trace")
def _(ctx):
    q = _q()
    return q.mesolve(q.sigmaz(), np.array([[0.5, 0], [0, 0.2]]), np.linspace(0, 1, 5))


@case("q.sesolve-nan-psi0", "10", r"psi0.*(nan|NaN|finite|norm)")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), np.array([np.nan, 1.0]), np.linspace(0, 1, 5))


@case("q.sesolve-rtol-negative", "10", r"rtol must be a finite number >= 0; got -1")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), rtol=-1.0)


@case("q.sesolve-atol-nan", "10", r"atol must be a finite number >= 0; got nan")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), atol=float("nan"))


@case("q.sesolve-time-units-parsecs", "10", r"time_units.*parsecs")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), time_units="parsecs")


@case("q.sesolve-nan-ts", "10", r"\bts\b")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.array([0.0, np.nan, 1.0]))


@case("q.rabi-t2-above-2t1", "10", r"T2 must be <= 2 T1")
def _(ctx):
    return _q().RabiQubit(omega=1.0, delta=0.0, t1=10.0, t2=25.0)


@case("q.rabi-t1-zero", "10", r"T1 must be > 0")
def _(ctx):
    return _q().RabiQubit(omega=1.0, delta=0.0, t1=0.0, t2=1.0)


@case("q.rabi-omega-nan", "10", r"(?i)omega must be finite")
def _(ctx):
    return _q().RabiQubit(omega=float("nan"), delta=0.0, t1=10.0, t2=10.0)
