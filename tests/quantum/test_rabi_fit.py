"""Fit (Ω, Δ, T1, T2) to a synthetic Rabi trace measured through a readout model with shot noise.

Truth: Ω/2π = 1 MHz, Δ/2π = 0.3 MHz, T1 = 12 µs, T2 = 8 µs; readout ε_g = 0.03, ε_e = 0.06, 2000 shots per
point, 81 points on [0, 10] µs (seeded). The start is 5–33 % off (a 10 % error in the Rabi frequency over 10
periods lands in a side minimum). Pass: every estimate within 4 standard errors of the truth, standard errors small
(Ω to < 1 %), bounds respected.
"""

import numpy as np
import pytest

import difflab.quantum as q

TRUE = {"omega": 2 * np.pi * 1.0, "delta": 2 * np.pi * 0.3, "t1": 12.0, "t2": 8.0}


@pytest.mark.slow
def test_rabi_fit_recovers_parameters_with_standard_errors():
    readout = q.Readout(eps_g=0.03, eps_e=0.06)
    ts = np.linspace(0.0, 10.0, 81)
    data = q.measure_rabi(q.RabiQubit(**TRUE), readout, ts, shots=2000, rng=np.random.default_rng(7))
    start = q.RabiQubit(omega=2 * np.pi * 0.95, delta=2 * np.pi * 0.2, t1=8.0, t2=6.0)
    result = q.fit_rabi(data, start, readout, steps=40)
    summary = q.rabi_summary(result)
    truth = {"omega_over_2pi": 1.0, "delta_over_2pi": 0.3, "T1": 12.0, "T2": 8.0}
    for name, value in truth.items():
        est, se = float(summary[name]), float(summary[f"{name}_stderr"])
        assert 0 < se and abs(est - value) <= 4 * se, (name, est, se)
    assert float(summary.omega_over_2pi_stderr) < 0.01
    assert float(summary.T2) <= 2 * float(summary.T1)
