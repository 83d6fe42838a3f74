"""The worked example `examples/train_cell_network.py`: a network of 12 ball-and-stick cells trained by gradient."""

import runpy
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_cell_network.py"


@pytest.mark.long
def test_training_reaches_the_teachers_selectivity(tmp_path, capsys):
    """40 Adam steps from equal weights: every output's spike count under both patterns equals the teacher's."""
    train = runpy.run_path(str(EXAMPLE))["train"]
    train(40, tmp_path / "checkpoint.npz")
    out = capsys.readouterr().out
    assert "relative gap" in out and float(out.split("relative gap ")[1].split()[0]) < 1e-4
    teacher = out.split("teacher's spike counts (pattern A, then B): ")[1].splitlines()[0]
    after = out.split("student's spike counts after training: ")[1].splitlines()[0]
    assert after == teacher == "[[7, 7, 7, 7, 0, 0, 0, 0], [0, 0, 0, 0, 7, 7, 7, 7]]"
    assert float(out.split("final loss ")[1].split()[0]) < 0.05  # mV²
    assert np.load(tmp_path / "checkpoint.npz")["step"] == 40  # the checkpoint a rerun resumes from
