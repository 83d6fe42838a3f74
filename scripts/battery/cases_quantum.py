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


@case("q.mesolve-nan-drive-op", "1", r"Drive.operator must be finite")
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


# ---------------------------------------------------------------- issue 35
@case("q.dia-nan-diagonal", "1", r"operator must be finite; found 1 NaN/inf entries")
def _(ctx):
    q = _q()
    H = q.dia(np.array([[np.nan, 1.0], [1.0, 0.0]]))  # ran as sigma_x
    return q.sesolve(H, q.basis(2, 0), np.linspace(0, 1, 5), exp_ops=[q.sigmaz()])


@case("q.as-operator-nan-offdiagonal", "1", r"H must be finite")
def _(ctx):
    q = _q()
    return q.as_operator(np.array([[0.0, 1.0], [np.nan, 0.0]]), name="H")


@case("q.sesolve-exp-op-nan", "1", r"exp_ops\['e0'\] must be finite")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), exp_ops=[np.array([[np.nan, 0], [0, 1.0]])])


@case("q.traced-H0-nan", "1", r"H0 must be finite", exc=Exception)
def _(ctx):
    import equinox as eqx
    import jax.numpy as jnp

    q = _q()
    nan_x = jnp.asarray([[np.nan, 1.0], [1.0, 0.0]])
    return eqx.filter_jit(lambda H: q.SchrodingerModel(H).H0.to_dense())(nan_x)


@case("q.sesolve-pid-rtol-negative", "10", r"stepsize_controller\.rtol must be finite and >= 0")
def _(ctx):
    import diffrax

    q = _q()
    pid = diffrax.PIDController(rtol=-1.0, atol=1e-8)
    return q.sesolve(q.sigmax(), q.basis(2, 0), np.linspace(0, 1, 5), exp_ops=[q.sigmaz()], stepsize_controller=pid)


@case("q.mesolve-pid-zero-tolerances", "10", r"stepsize_controller\.rtol and stepsize_controller\.atol must not")
def _(ctx):
    import diffrax

    q = _q()
    pid = diffrax.PIDController(rtol=0.0, atol=0.0)
    return q.mesolve(q.sigmax(), q.basis(2, 0), np.linspace(0, 1, 5), stepsize_controller=pid)


@case("q.sesolve-pid-dtmax-negative", "10", r"stepsize_controller\.dtmax must be > 0")
def _(ctx):
    import diffrax

    q = _q()
    pid = diffrax.PIDController(rtol=1e-6, atol=1e-8, dtmax=-0.1)
    return q.sesolve(q.sigmax(), q.basis(2, 0), np.linspace(0, 1, 5), stepsize_controller=pid)


@case("q.sesolve-constant-step-no-dt0", "10", r"dt0 must be given")
def _(ctx):
    import diffrax

    q = _q()
    return q.sesolve(q.sigmax(), q.basis(2, 0), np.linspace(0, 1, 5), stepsize_controller=diffrax.ConstantStepSize())


@case("simulate-pid-rtol-negative", "10", r"stepsize_controller\.rtol must be finite and >= 0")
def _(ctx):
    import diffrax

    import difflab

    q = _q()
    pid = diffrax.PIDController(rtol=-1.0, atol=1e-8)
    return difflab.simulate(q.SchrodingerModel(q.sigmax()), None, np.linspace(0, 1, 5), stepsize_controller=pid)


@case("q.coherent-truncated-away", "10", r"coherent\(N=5, alpha=10\.0\).*max_lost_weight.*keeps 1\.61e-37")
def _(ctx):
    return _q().coherent(5, 10.0)


@case("q.coherent-alpha-nan", "10", r"alpha must be finite")
def _(ctx):
    return _q().coherent(5, float("nan"))


@case("q.basis-index-bool", "10", r"index must be an integer")
def _(ctx):
    return _q().basis(2, True)


@case("q.sesolve-H-string", "19", r"H must be a Hamiltonian.*got str 'sigmax'")
def _(ctx):
    q = _q()
    return q.sesolve("sigmax", q.basis(2, 0), np.linspace(0, 1, 5))


@case("q.sesolve-psi0-density-matrix", "19", r"psi0 must be a ket.*looks like a density matrix.*mesolve")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmax(), q.fock_dm(2, 0), np.linspace(0, 1, 5))


@case("q.mesolve-jump-ops-single", "19", r"jump_ops must be a list of operators; got a single operator")
def _(ctx):
    q = _q()
    return q.mesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), jump_ops=q.sigmam())


@case("q.drive-operator-string", "19", r"Drive.operator must be a numeric array")
def _(ctx):
    return _q().Drive(1.0, "sigmax")


def _column_ket_runs(result):
    z = np.asarray(result.expects)
    err = np.abs(z - 1.0).max()
    return z.shape == (5, 1) and err < 1e-6, f"shape {z.shape}, max |<sz> - 1| = {err:.3g}"


@case("q.sesolve-psi0-column", "19", check=_column_ket_runs)
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), np.array([[1.0], [0.0]]), np.linspace(0, 1, 5), exp_ops=[q.sigmaz()])


@case("q.gaussian-pulse-sigma-nan", "10", r"GaussianPulse\.sigma must be finite")
def _(ctx):
    return _q().GaussianPulse(1.0, 1.0, float("nan"))


@case("q.piecewise-constant-nan-edge", "10", r"times must be finite")
def _(ctx):
    return _q().PiecewiseConstant([0.0, float("nan"), 2.0], [1.0, 1.0])


@case("q.readout-shots-zero", "10", r"shots must be a positive integer")
def _(ctx):
    return _q().Readout().sample(0.5, 0, np.random.default_rng(0))


@case("q.sesolve-batch-coords-length", "19", r"batch_coords\['g'\] must be 1-D with 2 values")
def _(ctx):
    q = _q()
    H2 = np.stack([q.sigmaz(), 2 * q.sigmaz()])
    return q.sesolve(H2, q.basis(2, 0), np.linspace(0, 1, 5), batching=q.Batching(coords={"g": [1, 2, 3]}))


@case("q.sesolve-solver-string", "19", r"solver must be a diffrax AbstractSolver instance")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), solver="tsit5")


@case("q.sesolve-max-steps-negative", "19", r"max_steps must be a positive integer or None; got -1")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), max_steps=-1)


@case("q.optimize-drag-steps-zero", "10", r"steps must be a positive integer")
def _(ctx):
    return _q().optimize_drag(steps=0)


@case("q.sesolve-batch-dim-time", "19", r"batching dim must be a name other than")
def _(ctx):
    q = _q()
    H2 = np.stack([q.sigmaz(), 2 * q.sigmaz()])
    return q.sesolve(H2, q.basis(2, 0), np.linspace(0, 1, 5), batching=q.Batching(dim="time"))


@case("q.drive-protocol-nan", "1", r"Drive.protocol must be finite")
def _(ctx):
    q = _q()
    return q.sesolve(q.sigmaz(), q.basis(2, 0), np.linspace(0, 1, 5), drives=[(np.nan, q.sigmax())])


def _homodyne(**change):
    import jax

    q = _q()
    args = dict(H=np.asarray(q.sigmax()), rho0=q.basis(2, 0), ts=np.linspace(0, 1, 5),
                jump_ops=[np.asarray(q.sigmam())], ntraj=4, key=jax.random.key(0), dt0=0.05)  # fmt: skip
    return q.smesolve(**{**args, **change})


@case("q.smesolve-nan-jump", "1", r"jump_ops\[0\] must be finite")
def _(ctx):
    return _homodyne(jump_ops=[np.array([[0.0, np.nan], [0.0, 0.0]])])


@case("q.smesolve-eta-above-one", "10", r"etas must lie in \[0, 1\]")
def _(ctx):
    return _homodyne(etas=1.5)


@case("q.smesolve-ntraj-zero", "10", r"ntraj must be an integer >= 1; got 0")
def _(ctx):
    return _homodyne(ntraj=0)


@case("q.smesolve-measured-out-of-range", "10", r"measured holds 3, which is not an index of jump_ops")
def _(ctx):
    return _homodyne(measured=[3])


@case("q.smesolve-unknown-detection", "10", r"measured\[0\] must be one of \('homodyne', 'heterodyne'\)")
def _(ctx):
    return _homodyne(measured={0: "heterodyn"})


@case("q.rouchon-outside-smesolve", "19", r"Rouchon steps the stochastic master equation of smesolve")
def _(ctx):
    import diffrax
    import jax
    import jax.numpy as jnp

    q = _q()
    path = diffrax.VirtualBrownianTree(0.0, 1.0, 1e-3, (), key=jax.random.key(0))
    terms = diffrax.MultiTerm(diffrax.ODETerm(lambda t, y, a: -y), diffrax.ControlTerm(lambda t, y, a: y, path))
    return diffrax.diffeqsolve(terms, q.Rouchon(), 0.0, 1.0, 0.1, jnp.array(1.0))


@case("q.grape-starts-zero", "19", r"GrapeOptions.starts must be an integer >= 1; got 0")
def _(ctx):
    import difflab.quantum as q

    return q.GrapeOptions(starts=0)


@case("q.steadystate-dephasing-iterative", "10", r"Liouvillian of H and jump_ops has a 2-dimensional null space")
def _(ctx):
    q = _q()
    sz = np.asarray(q.sigmaz())
    return q.steadystate(sz, [0.3 * sz], method="iterative")  # every diagonal state is stationary


@case("q.steadystate-check-unique-string", "19", r"check_unique must be None, True or False; got 'yes'")
def _(ctx):
    q = _q()
    return q.steadystate(np.asarray(q.sigmaz()), [np.asarray(q.sigmam())], check_unique="yes")


@case("q.mcsolve-max-steps", "12", r"took more than max_steps = 2 steps between two jumps", exc=(RuntimeError,))
def _(ctx):
    import jax

    q = _q()
    a = np.asarray(q.destroy(4))
    return q.mcsolve(a.conj().T @ a, q.fock(4, 2), np.linspace(0, 2, 5), [0.5 * a], ntraj=3, key=jax.random.key(0),
                     max_steps=2)  # fmt: skip
