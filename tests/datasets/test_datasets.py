"""Shipped datasets: loading, checksums, and refusal of altered or unknown files."""

import shutil

import numpy as np
import pytest

import difflab.datasets as datasets
from difflab.data import _registry


def test_hh_reference_loads_with_units():
    ds = datasets.load("hh/hh_step_10uA")
    assert ds["V"].attrs["units"] == "mV"
    assert int(ds["n_spikes"].item()) == 7
    np.testing.assert_allclose(ds["spike_times"].values[0, 0], 11.90, atol=0.01)


def test_unknown_dataset_lists_the_available_ones():
    with pytest.raises(datasets.DatasetError, match=r"unknown dataset 'hh/nope'; available in 'hh': hh_fi"):
        datasets.path("hh/nope")
    with pytest.raises(datasets.DatasetError, match=r"unknown dataset 'nogroup/x'; available: .*hh/hh_step_10uA.nc"):
        datasets.path("nogroup/x")


def test_altered_file_is_refused(tmp_path, monkeypatch):
    root = tmp_path / "datasets"
    shutil.copytree(datasets.path("hh/hh_step_10uA").parent, root / "hh")
    monkeypatch.setattr(_registry, "resource_dir", lambda kind: root)
    assert datasets.load("hh/hh_step_10uA")["V"].shape == (1, 6001)
    with open(root / "hh" / "hh_step_10uA.nc", "r+b") as fh:
        fh.seek(-10, 2)
        fh.write(b"0123456789")
    with pytest.raises(datasets.DatasetError, match="is corrupt or altered: sha256 of"):
        datasets.load("hh/hh_step_10uA")
    (root / "hh" / "hh_fi_curve_coarse.nc").unlink()
    with pytest.raises(datasets.DatasetError, match="is missing"):
        datasets.load("hh/hh_fi_curve_coarse")
