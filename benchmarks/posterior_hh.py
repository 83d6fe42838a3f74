"""The posterior of the squid axon's conductances from a 300 ms recording: convergence, cost and coverage.

Data: datasets/hh/hh_ou_hold.nc (NEURON 9, Ornstein–Uhlenbeck current held over 0.025 ms samples), its first
300 ms (17 spikes) plus 1 mV Gaussian noise of seed s, exactly as `calibration_global.py` fits it. For each seed:
`calibrate` (the default strategy, 20 steps) with gNa, gK, gL in Bounded(50, 200), Bounded(10, 80),
Bounded(0.05, 1), then `posterior` from that fit (4 chains, 150 warm-up steps and 175 draws each, σ estimated
from the fit's residuals, uniform priors on the bounds). Reported per seed: the wall time of the fit and of the
sampling (the first seed's includes compilation; later seeds reuse the compiled sampler), the worst R-hat and bulk
ESS, the divergences, and whether each 95 % central credible interval holds the true value.

    python benchmarks/posterior_hh.py [last] [first]   # seeds first..last (default 1..20); a row per seed as it ends
    python benchmarks/posterior_hh.py --seeds 9 14     # the seeds named

Seeds are independent, so a long coverage study can be run in pieces (``posterior_hh.py 10 4`` runs seeds 4-10)
and the rows put together.
"""

import sys
import time
import warnings

import jax
import numpy as np

import difflab
from difflab.neuron import HodgkinHuxley

TRUE = {"gNa": 120.0, "gK": 36.0, "gL": 0.3}
BOUNDS = {"gNa": difflab.Bounded(50.0, 200.0), "gK": difflab.Bounded(10.0, 80.0), "gL": difflab.Bounded(0.05, 1.0)}
# whitened chains started from the fit's Laplace approximation mix at once: 4 x 60 kept draws gave a bulk ESS of
# 335-571 (3.2 gradients per draw); with 4 x 150, 2 of 20 seeds fell just short of 400 (392, 393) at 0.65-1.1 ESS
# per draw, so 4 x 175
CHAINS, WARMUP, DRAWS = 4, 150, 175


def recording(seed: int, t_end: float = 300.0, noise: float = 1.0):
    ref = difflab.datasets.load("hh/hh_ou_hold").sel(time=slice(0.0, t_end))
    ts = ref.time.values
    V = ref.V.values + noise * np.random.default_rng(seed).normal(0.0, 1.0, ts.size)
    return difflab.Sampled(ts, ref.I_stim.values), {"time": ts, "V": V}


def one_seed(seed: int) -> dict:
    protocol, data = recording(seed)
    model = HodgkinHuxley.squid_axon()
    t0 = time.perf_counter()
    fit = difflab.calibrate(model, protocol, data, params=BOUNDS, steps=20, run=difflab.RunOptions(progress=False))
    t1 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        post = difflab.posterior(model, protocol, data, params=BOUNDS, start=fit,
                                 sampling=difflab.Sampling(chains=CHAINS, warmup=WARMUP, draws=DRAWS),
                                 key=jax.random.key(seed))  # fmt: skip
    t2 = time.perf_counter()
    covered = {}
    for name, true in TRUE.items():
        low, high = np.quantile(post[name].values.ravel(), [0.025, 0.975])
        covered[name] = bool(low <= true <= high)
    return {
        "seed": seed, "fit_s": t1 - t0, "sample_s": t2 - t1, "rhat": float(post["rhat"].max()),
        "ess": float(post["ess_bulk"].min()), "divergences": int(post.attrs["divergences"]),
        "gradients": float(post.attrs["gradients_per_draw"]),
        "noise": float(post.attrs["noise"]), "covered": covered, "warnings": len(caught),
        "means": {n: float(post[n].mean()) for n in TRUE}, "sds": {n: float(post[n].std()) for n in TRUE},
    }  # fmt: skip


def main(seeds: list[int]) -> None:
    print(f"jax {jax.__version__}, difflab {difflab.__version__}; {CHAINS} chains x ({WARMUP} warm-up + {DRAWS} draws)")
    print("| seed | fit (s) | sampling (s) | gradients / draw | max R-hat | min bulk ESS | divergences | σ̂ (mV) | "
          "gNa | gK | gL | 95 % intervals holding the truth |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    held = {n: 0 for n in TRUE}
    for seed in seeds:
        r = one_seed(seed)
        for n in TRUE:
            held[n] += r["covered"][n]
        cells = " | ".join(f"{r['means'][n]:.4g} ± {r['sds'][n]:.2g}" for n in TRUE)
        hits = ", ".join(n for n in TRUE if r["covered"][n]) or "none"
        print(f"| {seed} | {r['fit_s']:.0f} | {r['sample_s']:.0f} | {r['gradients']:.1f} | {r['rhat']:.4f} | "
              f"{r['ess']:.0f} | {r['divergences']} | {r['noise']:.3f} | {cells} | {hits} |", flush=True)  # fmt: skip
    print(f"intervals holding the truth over seeds {seeds}:", ", ".join(f"{n} {held[n]}" for n in TRUE))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--seeds"]:
        main([int(s) for s in sys.argv[2:]])
    else:
        last = int(sys.argv[1]) if len(sys.argv) > 1 else 20
        main(list(range(int(sys.argv[2]) if len(sys.argv) > 2 else 1, last + 1)))
