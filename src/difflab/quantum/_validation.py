"""Validation runners for quantum cases (`difflab validate`): kinds `quantum.rabi` and `quantum.jaynes_cummings`.

Both rebuild the reference model from the dataset's own coordinates and attributes (see datasets/quantum/README.md),
solve it with `mesolve` at the case's tolerances and report the largest absolute deviation of every stored
expectation value (metric `expect_max_abs_error`, one row per variable) plus the trace and positivity of the final
state (metrics `trace_error`, `negativity`).
"""

from __future__ import annotations

import functools
import math

import diffrax
import numpy as np

from ..validation import CaseOutcome, CaseSpec, Runner, max_abs_error, metric, overlay_figure, register_runner
from ._mesolve import mesolve
from ._solve import check_tolerances
from ._standard_operators import destroy, eye, sigmam, sigmax, sigmay, sigmaz, tensor
from ._states import basis, coherent

_OPTIONAL = {"simulation.rtol": float, "simulation.atol": float}
_METRICS = ("expect_max_abs_error", "trace_error", "negativity")


def _controller(case: CaseSpec) -> diffrax.PIDController:
    rtol = case.get("simulation.rtol", float, default=1e-10)
    atol = case.get("simulation.atol", float, default=1e-10)
    check_tolerances(rtol, atol, ("simulation.rtol", "simulation.atol"))  # named as the case file's fields
    return diffrax.PIDController(rtol=rtol, atol=atol)


def _outcome(case, ds, pairs, time_label) -> CaseOutcome:
    rho = ds.rho_re.values[-1] + 1j * ds.rho_im.values[-1]
    metrics = [
        metric(case, "expect_max_abs_error", max_abs_error(model, ref), units="1", where=name,
               detail=f"over {ref.size} samples")
        for name, model, ref in pairs
    ]  # fmt: skip
    metrics.append(metric(case, "trace_error", abs(np.trace(rho) - 1.0), units="1", detail="final state"))
    metrics.append(metric(case, "negativity", max(0.0, -np.linalg.eigvalsh(rho).min()), units="1",
                          detail="largest negative eigenvalue of the final state"))  # fmt: skip
    name, model, ref = pairs[0]
    draw = functools.partial(overlay_figure, ds.time.values, model, ref, xlabel=time_label, ylabel=name)
    figures = [(f"{name}: difflab over the QuTiP reference (top) and the difference (bottom).", draw)]
    provenance = {k: str(v) for k, v in ds.attrs.items()}
    return CaseOutcome(metrics, figures, provenance)


def run_rabi(case: CaseSpec) -> CaseOutcome:
    """Driven damped qubit: H = Δ/2 σz + Ω/2 σx, L = √(1/T1) σ−, √(γφ/2) σz, from |g>, time in µs."""
    ref = case.load_dataset().isel(param=0)
    # Python floats (weakly typed) scale the complex operators without a float64 x complex128 promotion
    omega, delta = 2 * math.pi * float(ref.omega_over_2pi), 2 * math.pi * float(ref.delta_over_2pi)
    t1, t2 = float(ref.T1), float(ref.T2)
    gamma_phi = 1 / t2 - 1 / (2 * t1)
    ds = mesolve(
        0.5 * delta * sigmaz() + 0.5 * omega * sigmax(), basis(2, 1), ref.time.values,
        jump_ops=[math.sqrt(1 / t1) * sigmam(), math.sqrt(gamma_phi / 2) * sigmaz()],
        exp_ops={"sx": sigmax(), "sy": sigmay(), "sz": sigmaz()}, save_states=True, time_units="us",
        stepsize_controller=_controller(case),
    ).to_xarray()  # fmt: skip
    pairs = [(v, ds.expect.sel(observable=v).values, ref[v].values) for v in ("sz", "sx", "sy")]
    return _outcome(case, ds, pairs, "time (µs)")


def run_jaynes_cummings(case: CaseSpec) -> CaseOutcome:
    """Resonant JC, H = g(a†σ− + aσ+), g = 1, L = √κ a, |e> ⊗ |α = 2> truncated at N (qubit ⊗ cavity)."""
    ref = case.load_dataset()
    ref = ref.isel({d: 0 for d in ("N", "initial_state", "kappa") if d in ref.dims})
    n, kappa = int(ref.N), float(ref.kappa)
    a = tensor(eye(2), destroy(n))
    sm = tensor(sigmam(), eye(n))
    # the reference data renormalise the state truncated at N = 10, which drops 0.8 % of |alpha = 2>
    psi0 = tensor(basis(2, 0), coherent(n, 2.0, max_lost_weight=1e-2))
    ds = mesolve(
        a.conj().T @ sm + a @ sm.conj().T, psi0, ref.time.values,
        jump_ops=[math.sqrt(kappa) * a], exp_ops={"n_photon": a.conj().T @ a, "p_excited": sm.conj().T @ sm, "a": a},
        save_states=True, stepsize_controller=_controller(case),
    ).to_xarray()  # fmt: skip
    pairs = [
        ("n_photon", ds.expect.sel(observable="n_photon").values, ref.n_photon.values),
        ("p_excited", ds.expect.sel(observable="p_excited").values, ref.p_excited.values),
        ("re_a", ds.expect.sel(observable="a").values, ref.re_a.values),
        ("im_a", ds.expect_imag.sel(observable="a").values, ref.im_a.values),
    ]
    return _outcome(case, ds, pairs, "time (1/g)")


RABI = Runner(run=run_rabi, metrics=_METRICS, optional=_OPTIONAL)
JAYNES_CUMMINGS = Runner(run=run_jaynes_cummings, metrics=_METRICS, optional=_OPTIONAL)
register_runner("quantum.rabi", RABI)
register_runner("quantum.jaynes_cummings", JAYNES_CUMMINGS)
