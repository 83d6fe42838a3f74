"""Generate `hh_ou_hold.nc`: the squid axon driven by a recorded-like Ornstein–Uhlenbeck current (NEURON 9).

The current is an Ornstein–Uhlenbeck process (mean 6, σ 4 µA/cm², τ 5 ms) from t = 10 ms (0 before),
sampled every 0.025 ms by its exact discretisation

    x[k+1] = μ + (x[k] − μ) e^{−Δ/τ} + σ √(1 − e^{−2Δ/τ}) ξ[k],   ξ ~ N(0, 1), x at t = 10 ms = μ,

and delivered by zero-order hold (each sample held over [t_k, t_{k+1}), as a DAC does), through
`Vector.play` with `continuous=False` into an IClamp's amplitude. Under CVODE the play times are
discontinuities at which the integrator is re-initialised, so the held input is integrated exactly.

    pip install neuron==9.0.2 xarray netCDF4
    python datasets/hh/generate_ou.py [--seed 3]

Settings as `hh_step_10uA.nc` (see README.md): one section of 100 µm², cm 1 µF/cm², `hh` defaults,
celsius 6.3, `usetable_hh = 0`, finitialize(−65), global CVODE with atol = rtol = 1e-11; V saved every
0.025 ms by `CVode.solve(t)`; spikes are upward 0-mV crossings timed by a NetCon.
"""

import argparse
import hashlib
import importlib.metadata
import math
from pathlib import Path

import numpy as np
import xarray as xr

MEAN, SIGMA, TAU = 6.0, 4.0, 5.0  # µA/cm², µA/cm², ms
DT_INPUT = 0.025  # ms
T_ON, T_END = 10.0, 1000.0  # ms
AREA_CM2 = 1e-6  # 100 µm²
TOL = 1e-11


def ou_current(seed: int) -> tuple[np.ndarray, np.ndarray]:
    n = round(T_END / DT_INPUT)
    t = np.arange(n + 1) * DT_INPUT
    i = np.zeros(n + 1)
    rng = np.random.default_rng(seed)
    decay = math.exp(-DT_INPUT / TAU)
    kick = SIGMA * math.sqrt(1.0 - decay**2)
    k0 = round(T_ON / DT_INPUT)
    i[k0] = MEAN
    for k in range(k0, n):
        i[k + 1] = MEAN + (i[k] - MEAN) * decay + kick * rng.standard_normal()
    return t, i


def run_neuron(t: np.ndarray, i: np.ndarray):
    from neuron import h

    h.load_file("stdrun.hoc")
    soma = h.Section(name="soma")
    soma.L = soma.diam = math.sqrt(100.0 / math.pi)
    soma.nseg = 1
    soma.cm = 1.0
    soma.insert("hh")
    h.usetable_hh = 0
    h.celsius = 6.3
    clamp = h.IClamp(soma(0.5))
    clamp.delay, clamp.dur = 0.0, 1e9
    amp_nA = h.Vector(i * AREA_CM2 * 1e3)  # µA/cm² × cm² = µA; × 1e3 = nA
    tvec = h.Vector(t)
    amp_nA.play(clamp._ref_amp, tvec, False)  # zero-order hold
    spikes = h.Vector()
    netcon = h.NetCon(soma(0.5)._ref_v, None, sec=soma)
    netcon.threshold = 0.0
    netcon.record(spikes)
    cvode = h.CVode()
    cvode.active(True)
    cvode.atol(TOL)
    cvode.rtol(TOL)
    h.finitialize(-65.0)
    V = np.empty_like(t)
    V[0] = soma(0.5).v
    for k in range(1, t.size):
        cvode.solve(t[k])
        V[k] = soma(0.5).v
    return V, np.asarray(spikes)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", default=str(Path(__file__).with_name("hh_ou_hold.nc")))
    args = parser.parse_args()
    t, i = ou_current(args.seed)
    V, spikes = run_neuron(t, i)
    ds = xr.Dataset(
        {
            "V": ("time", V, {"units": "mV", "long_name": "membrane potential"}),
            "I_stim": (
                "time",
                i,
                {"units": "uA/cm^2", "long_name": "injected current density, held over [t_k, t_k+1)"},
            ),
            "spike_times": ("spike", spikes, {"units": "ms", "long_name": "upward 0 mV crossings"}),
        },
        coords={"time": ("time", t, {"units": "ms"})},
        attrs={
            "simulator": "NEURON",
            "simulator_version": importlib.metadata.version("neuron"),
            "integrator": f"global CVODE, atol = rtol = {TOL:g}; Vector.play(continuous=False): zero-order hold",
            "model": "hh (usetable_hh = 0), cm 1 uF/cm2, celsius 6.3, finitialize(-65), area 100 um2",
            "stimulus": f"Ornstein-Uhlenbeck mean {MEAN} sigma {SIGMA} uA/cm2 tau {TAU} ms from t = {T_ON} ms, "
            f"sampled every {DT_INPUT} ms (exact discretisation), numpy default_rng seed {args.seed}",
            "generator": "datasets/hh/generate_ou.py",
        },
    )
    ds.to_netcdf(args.out)
    digest = hashlib.sha256(Path(args.out).read_bytes()).hexdigest()
    print(f"{len(spikes)} spikes ({np.sum(spikes < 300)} before 300 ms); sha256 {digest}")


if __name__ == "__main__":
    main()
