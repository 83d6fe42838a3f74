"""Against the QuTiP 5.3.1 reference data (vern9, rtol = atol = 1e-10; agree with exact propagation to <= 2e-9).

Bound: max |difference| <= 1e-7 in every stored expectation value, solving at rtol = atol = 1e-10 (measured here:
~1e-9 for the Rabi set, ~5e-9 for Jaynes–Cummings N = 10).
"""

import diffrax
import numpy as np

import difflab.datasets
import difflab.quantum as q

BOUND = 1e-7
TIGHT = diffrax.PIDController(rtol=1e-10, atol=1e-10)


def test_rabi_reference():
    ref = difflab.datasets.load("quantum/qubit_rabi_public").isel(param=0)
    omega, delta = 2 * np.pi * float(ref.omega_over_2pi), 2 * np.pi * float(ref.delta_over_2pi)
    t1, t2 = float(ref.T1), float(ref.T2)
    gphi = 1 / t2 - 1 / (2 * t1)
    ds = q.mesolve(
        0.5 * delta * q.sigmaz() + 0.5 * omega * q.sigmax(),
        q.basis(2, 1),
        ref.time.values,
        jump_ops=[np.sqrt(1 / t1 + 0j) * q.sigmam(), np.sqrt(gphi / 2 + 0j) * q.sigmaz()],
        exp_ops={"sx": q.sigmax(), "sy": q.sigmay(), "sz": q.sigmaz()},
        time_units="us",
        stepsize_controller=TIGHT,
    ).to_xarray()
    for name in ("sx", "sy", "sz"):
        assert np.abs(ds.expect.sel(observable=name).values - ref[name].values).max() <= BOUND


def test_jaynes_cummings_reference():
    ref = difflab.datasets.load("quantum/jaynes_cummings_N10_public").squeeze()
    n = int(ref.N)
    a = q.tensor(q.eye(2), q.destroy(n))
    sm = q.tensor(q.sigmam(), q.eye(n))
    ds = q.mesolve(
        a.conj().T @ sm + a @ sm.conj().T,
        q.tensor(q.basis(2, 0), q.coherent(n, 2.0, max_lost_weight=1e-2)),  # the reference's truncation (0.8 %)
        ref.time.values,
        jump_ops=[np.sqrt(float(ref.kappa) + 0j) * a],
        exp_ops={"n_photon": a.conj().T @ a, "p_excited": sm.conj().T @ sm, "a": a},
        stepsize_controller=TIGHT,
    ).to_xarray()
    got = {
        "n_photon": ds.expect.sel(observable="n_photon"),
        "p_excited": ds.expect.sel(observable="p_excited"),
        "re_a": ds.expect.sel(observable="a"),
        "im_a": ds.expect_imag.sel(observable="a"),
    }
    for name, values in got.items():
        assert np.abs(values.values - ref[name].values).max() <= BOUND, name
