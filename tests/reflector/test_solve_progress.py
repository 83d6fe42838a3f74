"""reflector.solve reports each stage: one line per stage off a terminal, nothing with progress=False.

The five-minute optimisation itself is replaced by cheap stand-ins with the same results' shape, so that the test
checks the stages (fit, nine zone layouts, two long polishes, the final check) and the sampling density each
polish ranks at, not the optimiser.
"""

import types

import numpy as np
import pytest

from difflab import reflector as rf
from difflab.reflector import _solve


@pytest.fixture
def quick(monkeypatch, geometry):
    n = geometry.n_nodes
    etas = iter(np.linspace(0.50, 0.60, 11))
    snap = lambda *a, **k: types.SimpleNamespace(eta=float(next(etas)), e=np.zeros(n), where="last")  # noqa: E731
    monkeypatch.setattr(_solve, "fit_zones", lambda g, p: (np.zeros(n), np.array([300.7])))
    monkeypatch.setattr(_solve, "stepped_start", lambda g, p, radii: (np.zeros(n), (300.6, 300.8)))
    monkeypatch.setattr(_solve, "maximise_ratio", snap)
    monkeypatch.setattr(_solve, "receiving_ratio", lambda g, e, p, n: 0.25)
    monkeypatch.setattr(_solve, "check_constraints", lambda g, e, kind="cable": types.SimpleNamespace(feasible=True))


def test_one_line_per_stage_off_a_terminal(quick, geometry, capsys):
    rf.solve(geometry, 36.795, 78.169)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 13 and all(line.startswith(f"reflector solve: {i + 1}/13 [") for i, line in enumerate(lines))
    assert lines[0].endswith("best fit: vertex depth 300.7000 m, η = 0.2500")
    assert lines[1].endswith("zones (40.0, 140.0) m: feasible η = 0.5000 after the short polish")
    assert lines[10].endswith("after the long polish (last)")
    assert lines[12].endswith("constraints checked; η = 0.2500, base sphere 0.2500")


def test_fit_has_two_stages_and_quiet_has_none(quick, geometry, capsys):
    rf.solve(geometry, 0.0, 90.0, objective="fit")
    assert [line.split(" [")[0] for line in capsys.readouterr().err.splitlines()] == [
        "reflector solve: 1/2",
        "reflector solve: 2/2",
    ]
    rf.solve(geometry, 0.0, 90.0, progress=False)
    assert capsys.readouterr().err == ""
    with pytest.warns(DeprecationWarning, match=r"solve\(verbose=...\) is replaced by progress"):
        rf.solve(geometry, 0.0, 90.0, objective="fit", progress=False, verbose=True)


def test_long_polishes_rank_their_snapshots_at_the_reported_density(quick, geometry, monkeypatch):
    # at n = 16 η is off by up to 0.12 points on a stepped surface, more than the gap between the two best layouts
    calls = []

    def snap(*args, temperatures, eval_samples=16, **kwargs):
        calls.append((temperatures, eval_samples))
        return types.SimpleNamespace(eta=0.5 + 0.01 * len(calls), e=np.zeros(geometry.n_nodes), where="last")

    monkeypatch.setattr(_solve, "maximise_ratio", snap)
    rf.solve(geometry, 36.795, 78.169, progress=False)
    assert calls[:9] == [((0.1,), 16)] * 9
    assert calls[9:] == [((0.05, 0.03), rf.CONVERGED_SAMPLES)] * 2 and rf.CONVERGED_SAMPLES == 32
