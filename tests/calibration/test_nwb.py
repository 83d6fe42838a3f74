"""Current-clamp recordings from NWB files: units converted, sweeps paired, bad files refused, fitted end to end.

The file is written here with pynwb from the NEURON reference (datasets/hh/hh_ou_hold.nc): V in volts
(raw samples in µV with conversion 1e-6, as amplifiers store them), the stimulus in amperes for a cell of
100 µm² (1 µA/cm² = 1 pA), 40 kHz.
"""

import datetime

import numpy as np
import pytest

import difflab
from difflab.io import DataFileError, read_nwb
from difflab.neuron import HodgkinHuxley

pynwb = pytest.importorskip("pynwb")
from pynwb.icephys import CurrentClampSeries, CurrentClampStimulusSeries  # noqa: E402

AREA_UM2 = 100.0
REF = difflab.datasets.load("hh/hh_ou_hold").sel(time=slice(0.0, 100.0))


def write_nwb(path, sweeps, *, rate_stim=40000.0, stim_start=0.0, numbers=None):
    """``sweeps`` {name: (V in volts, I in amperes)}; ``numbers`` {name: sweep_number} (default: the name)."""
    nwb = pynwb.NWBFile("squid axon, OU current", "difflab-test", datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    device = nwb.create_device("amplifier")
    electrode = nwb.create_icephys_electrode(name="e0", description="whole cell", device=device)
    for number, (v_volts, i_amps) in sweeps.items():
        n = np.uint32(number if numbers is None else numbers[number])
        nwb.add_acquisition(CurrentClampSeries(name=f"response_{number}", data=np.round(v_volts * 1e6),
                                               conversion=1e-6, starting_time=0.0, rate=40000.0,
                                               electrode=electrode, gain=1.0, sweep_number=n))  # fmt: skip
        nwb.add_stimulus(CurrentClampStimulusSeries(name=f"stimulus_{number}", data=i_amps, starting_time=stim_start,
                                                    rate=rate_stim, electrode=electrode, gain=1.0,
                                                    sweep_number=n))  # fmt: skip
    with pynwb.NWBHDF5IO(str(path), "w") as io:
        io.write(nwb)
    return path


def sweep(noise_seed=None):
    v = REF.V.values * 1e-3
    if noise_seed is not None:
        v = v + 1e-3 * np.random.default_rng(noise_seed).normal(0.0, 1.0, v.size)
    return v, REF.I_stim.values * 1e-6 * AREA_UM2 * 1e-8  # µA/cm² × cm² = µA; × 1e-6 = A


def test_units_are_converted_and_sweeps_paired(tmp_path):
    v, i = sweep()
    gap = v.copy()
    gap[1000:1200] = np.nan  # an amplifier saturated or a stretch was cut out
    path = write_nwb(tmp_path / "cell.nwb", {3: (v, i), 7: (gap, 2 * i)})
    rec = read_nwb(path, area_um2=AREA_UM2)
    assert rec.data.V.dims == ("sweep", "time") and list(rec.data.sweep.values) == [3, 7]
    np.testing.assert_allclose(rec.data.time.values, REF.time.values, atol=1e-9)  # ms
    np.testing.assert_allclose(rec.data.V.sel(sweep=3).values, REF.V.values, atol=6e-4)  # mV, 1 µV quantisation
    assert np.isnan(rec.data.V.sel(sweep=7).values[1000:1200]).all()
    np.testing.assert_allclose(rec.protocols[0].values, REF.I_stim.values, rtol=1e-12)  # µA/cm²
    np.testing.assert_allclose(rec.protocols[1].values, 2 * REF.I_stim.values, rtol=1e-12)
    assert rec.protocols[0].mode == "hold"
    # the same area from the capacitance: 1 pF at 1 µF/cm² is 100 µm²
    by_capacitance = read_nwb(path, capacitance_pF=1.0, sweeps=[3])
    np.testing.assert_allclose(by_capacitance.protocols[0].values, REF.I_stim.values, rtol=1e-12)


def test_misaligned_stimuli_repeated_sweep_numbers_and_empty_selections_are_refused(tmp_path):
    """Nothing silent: a stimulus 10 ms after its response is not moved to t = 0, no sweep is dropped."""
    v, i = sweep()
    late = write_nwb(tmp_path / "late.nwb", {0: (v, i)}, stim_start=0.010)
    with pytest.raises(DataFileError, match=r"sweep 0: the stimulus starts at 0.01 s and the response at 0 s"):
        read_nwb(late, area_um2=AREA_UM2)
    twice = write_nwb(tmp_path / "twice.nwb", {0: (v, i), 1: (v, 2 * i)}, numbers={0: 5, 1: 5})
    with pytest.raises(DataFileError, match=r"'response_0' and 'response_1' both have sweep_number 5"):
        read_nwb(twice, area_um2=AREA_UM2)
    good = write_nwb(tmp_path / "good.nwb", {0: (v, i)})
    for bad, message in (([], r"sweeps must name at least one sweep number"), ([0, 0], r"more than once"),
                         ([0.5], r"whole sweep numbers; got 0.5"), ("0", r"sweeps must be a list")):  # fmt: skip
        with pytest.raises((ValueError, TypeError), match=message):
            read_nwb(good, area_um2=AREA_UM2, sweeps=bad)


# The library fit and `difflab fit` below solve one problem (same start, bounds and steps), so that the second
# reuses the first one's compiled optimiser step instead of compiling its own.
START = {"gNa": 70.0, "gK": 60.0}
BOUNDS = {"gNa": (50.0, 200.0), "gK": (10.0, 80.0)}
STEPS = 15


@pytest.mark.slow
def test_a_recording_from_nwb_is_fitted(tmp_path):
    path = write_nwb(tmp_path / "cell.nwb", {0: sweep(noise_seed=4)})
    rec = read_nwb(path, area_um2=AREA_UM2)
    params = {name: difflab.Bounded(*bounds) for name, bounds in BOUNDS.items()}
    fit = difflab.calibrate(HodgkinHuxley.squid_axon().replace(**START), rec.protocols, rec.data, params=params,
                            steps=STEPS)  # fmt: skip
    assert fit.strategy == "linear"
    assert fit.best["gNa"] == pytest.approx(120.0, rel=0.01)
    assert fit.best["gK"] == pytest.approx(36.0, rel=0.01)


def test_bad_recordings_are_refused_by_name(tmp_path):
    v, i = sweep()
    good = write_nwb(tmp_path / "good.nwb", {0: (v, i)})
    with pytest.raises(ValueError, match=r"give area_um2 .* or capacitance_pF"):
        read_nwb(good)
    with pytest.raises(ValueError, match="area_um2 must be a finite number > 0; got -5"):
        read_nwb(good, area_um2=-5)
    with pytest.raises(DataFileError, match="does not exist"):
        read_nwb(tmp_path / "missing.nwb", area_um2=AREA_UM2)
    junk = tmp_path / "junk.nwb"
    junk.write_bytes(b"not an hdf5 file")
    with pytest.raises(DataFileError, match="is not a readable NWB file"):
        read_nwb(junk, area_um2=AREA_UM2)
    assert junk.read_bytes() == b"not an hdf5 file"
    with pytest.raises(DataFileError, match=r"sweeps: sweep 4 has no CurrentClampSeries .* it has sweeps \[0\]"):
        read_nwb(good, area_um2=AREA_UM2, sweeps=[4])
    slow = write_nwb(tmp_path / "slow.nwb", {0: (v, i)}, rate_stim=20000.0)
    with pytest.raises(DataFileError, match=r"sweep 0: response .* and stimulus .* differ in length or sampling"):
        read_nwb(slow, area_um2=AREA_UM2)
    holes = i.copy()
    holes[5] = np.nan
    nan_stim = write_nwb(tmp_path / "nan.nwb", {0: (v, holes)})
    with pytest.raises(DataFileError, match="sweep 0: the stimulus has 1 NaN/inf samples"):
        read_nwb(nan_stim, area_um2=AREA_UM2)
    short = write_nwb(tmp_path / "short.nwb", {0: (v, i), 1: (v[:-10], i[:-10])})
    with pytest.raises(DataFileError, match="fit sweeps of one length and sampling together"):
        read_nwb(short, area_um2=AREA_UM2)


@pytest.mark.slow
def test_difflab_fit_reads_an_nwb_file(tmp_path):
    from typer.testing import CliRunner

    from difflab.cli import app

    write_nwb(tmp_path / "cell.nwb", {0: sweep(noise_seed=4)})
    config = tmp_path / "fit.toml"
    start = "".join(f"{name} = {value}\n" for name, value in START.items())
    bounds = "".join(f"{name} = [{lo}, {hi}]\n" for name, (lo, hi) in BOUNDS.items())
    config.write_text(
        f'[model]\npreset = "hodgkin_huxley/squid_axon"\n\n[model.parameters]\n{start}\n'
        '[data]\nnwb = "cell.nwb"\narea_um2 = 100.0\nsweeps = [0]\n\n'
        f'[fit]\nsteps = {STEPS}\n\n[fit.params]\n{bounds}\n[output]\npath = "fit.nc"\n'
    )
    result = CliRunner().invoke(app, ["fit", str(config)])
    assert result.exit_code == 0, result.output
    import xarray as xr

    with xr.open_dataset(tmp_path / "fit.nc") as ds:
        assert ds["gNa"].dims == ("sweep",)
        assert float(ds["gNa"].sel(sweep=0)) == pytest.approx(120.0, rel=0.01)
        assert float(ds["gK"].sel(sweep=0)) == pytest.approx(36.0, rel=0.01)
    config.write_text(config.read_text().replace("area_um2 = 100.0\n", ""))
    missing = CliRunner().invoke(app, ["fit", str(config), "--overwrite"])
    assert missing.exit_code == 2 and "give area_um2" in missing.output
