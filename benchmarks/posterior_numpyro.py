"""Effective samples per second: `posterior` against NumPyro's NUTS on a hand-written squid-axon likelihood.

Data: the first `T_END` ms of datasets/hh/hh_ou_hold.nc (NEURON 9, held Ornstein–Uhlenbeck current) plus 1 mV
Gaussian noise of seed 1, as `posterior_hh.py` uses them. Both samplers draw gNa, gK and gL under uniform priors on
Bounded(50, 200), Bounded(10, 80), Bounded(0.05, 1), with σ fixed at `posterior`'s estimate, on the same solve:
`difflab.simulate` of `HodgkinHuxley.squid_axon()` at the fit's refined fixed step, saved at the recording's times.

- difflab: `calibrate` (20 steps), then `posterior(start=fit, noise=σ)`: whitened coordinates, forward-mode
  gradients, blackjax's window adaptation.
- NumPyro: the model a NumPyro user writes, `numpyro.sample` of each conductance from `dist.Uniform` and a
  `dist.Normal(V, σ)` observation, sampled by `NUTS` (its default: reverse-mode gradients, a diagonal mass matrix
  adapted in warm-up; `dense_mass=True` is also run) with the chains vectorised and started at the fit.

Both run `CHAINS` chains of `WARMUP` warm-up steps and `DRAWS` draws. Reported: the sampling wall time with
compilation (the fit excluded), gradients per draw, the smallest bulk ESS over the three conductances (blackjax's
rank-normalised estimator, the one `posterior` reports, for both) and ESS per second; the ratio is difflab's ESS/s
over NumPyro's.

    pip install numpyro==0.22.0   # or the [bench] extra
    python benchmarks/posterior_numpyro.py [t_end_ms]
"""

import sys
import time

import blackjax.diagnostics
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS, init_to_value
from posterior_hh import BOUNDS, recording

import difflab
from difflab.neuron import HodgkinHuxley

# the recording and the bounds of posterior_hh.py; shorter chains, since NumPyro's cost per draw is the question
CHAINS, WARMUP, DRAWS = 4, 100, 100


def with_conductances(model: HodgkinHuxley, gNa, gK, gL) -> HodgkinHuxley:
    """The squid axon with its three conductances (mS/cm²) set: the hand-written side of the comparison."""
    where = lambda m: (m.channels["na"].gbar, m.channels["k"].gbar, m.channels["leak"].g)  # noqa: E731
    return eqx.tree_at(where, model, (gNa, gK, gL))


def min_bulk_ess(draws: dict[str, np.ndarray]) -> float:
    """The smallest bulk ESS over the conductances; `draws[name]` has shape (chain, draw)."""
    return min(float(blackjax.diagnostics.ess_bulk(np.asarray(draws[name]))) for name in BOUNDS)


def run_difflab(model, protocol, data, fit):
    t0 = time.perf_counter()
    post = difflab.posterior(model, protocol, data, params=BOUNDS, start=fit,
                             sampling=difflab.Sampling(chains=CHAINS, warmup=WARMUP, draws=DRAWS),
                             key=jax.random.key(1))  # fmt: skip
    wall = time.perf_counter() - t0
    ess = min_bulk_ess({name: post[name].values for name in BOUNDS})
    return wall, float(post.attrs["gradients_per_draw"]), ess, int(post.attrs["divergences"]), post


def run_numpyro(model, protocol, data, fit, sigma: float, dt0: float, dense_mass: bool):
    ts = jnp.asarray(data["time"])

    def hh_model(V_measured):
        g = {name: numpyro.sample(name, dist.Uniform(b.lo, b.hi)) for name, b in BOUNDS.items()}
        V = difflab.simulate(with_conductances(model, g["gNa"], g["gK"], g["gL"]), protocol, ts, dt0=dt0).ys["V"]
        numpyro.sample("V", dist.Normal(V, sigma), obs=V_measured)

    start = {name: float(fit.best[name]) for name in BOUNDS}
    kernel = NUTS(hh_model, init_strategy=init_to_value(values=start), dense_mass=dense_mass)
    mcmc = MCMC(kernel, num_warmup=WARMUP, num_samples=DRAWS, num_chains=CHAINS, chain_method="vectorized",
                progress_bar=False)  # fmt: skip
    t0 = time.perf_counter()
    mcmc.run(jax.random.key(1), jnp.asarray(data["V"]), extra_fields=("num_steps", "diverging"))
    samples = jax.block_until_ready(mcmc.get_samples(group_by_chain=True))
    wall = time.perf_counter() - t0
    extra = mcmc.get_extra_fields(group_by_chain=True)
    ess = min_bulk_ess({name: np.asarray(samples[name]) for name in BOUNDS})
    return wall, float(np.mean(extra["num_steps"])), ess, int(np.sum(extra["diverging"])), samples


def main(t_end: float) -> None:
    numpyro.enable_x64()
    protocol, data = recording(seed=1, t_end=t_end)
    model = HodgkinHuxley.squid_axon()
    fit = difflab.calibrate(model, protocol, data, params=BOUNDS, steps=20, run=difflab.RunOptions(progress=False))
    dt0 = float(fit.diagnostics.attrs["dt0"])
    print(f"jax {jax.__version__}, difflab {difflab.__version__}, numpyro {numpyro.__version__}; {t_end:g} ms, "
          f"step {dt0} ms, {CHAINS} chains x ({WARMUP} warm-up + {DRAWS} draws)")  # fmt: skip
    print("| sampler | wall (s, with compilation) | gradients / draw | min bulk ESS | ESS / s | divergences | gNa | gK "
          "| gL |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    wall, grads, ess, div, post = run_difflab(model, protocol, data, fit)
    sigma = float(post.attrs["noise"])
    ours = ess / wall
    cells = " | ".join(f"{float(post[n].mean()):.5g} ± {float(post[n].std()):.2g}" for n in BOUNDS)
    print(f"| difflab posterior | {wall:.0f} | {grads:.1f} | {ess:.0f} | {ours:.3f} | {div} | {cells} |", flush=True)
    for dense in (False, True):
        wall, grads, ess, div, s = run_numpyro(model, protocol, data, fit, sigma, dt0, dense)
        cells = " | ".join(f"{float(np.mean(s[n])):.5g} ± {float(np.std(s[n])):.2g}" for n in BOUNDS)
        label = "NumPyro NUTS, dense mass" if dense else "NumPyro NUTS"
        ratio = ours / (ess / wall)
        print(f"| {label} | {wall:.0f} | {grads:.1f} | {ess:.0f} | {ess / wall:.3f} (difflab {ratio:.1f}×) | {div} "
              f"| {cells} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 100.0)
