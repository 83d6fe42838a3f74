"""Run in a subprocess with 4 host devices: a batched mesolve split over the devices equals the single-device run."""

import jax
import numpy as np

import difflab.quantum as q
from difflab.quantum import _batch

assert len(jax.devices()) == 4, jax.devices()
N = 4
A = q.tensor(q.eye(2), q.destroy(N))
SM = q.tensor(q.sigmam(), q.eye(N))
H = A.conj().T @ SM + A @ SM.conj().T
TS = np.linspace(0.0, 5.0, 11)
KAPPAS = np.array([0.05, 0.2, 0.5])  # 3 rates x 2 states = 6 members: not a multiple of 4, so blocks are padded
STATES = [q.tensor(q.basis(2, 0), q.fock(N, 0)), q.tensor(q.basis(2, 1), q.fock(N, 1))]
EXP = {"n": A.conj().T @ A, "pe": SM.conj().T @ SM}
JUMPS = [np.sqrt(KAPPAS + 0j)[:, None, None] * A[None]]
OPTIONS = dict(jump_ops=JUMPS, exp_ops=EXP, batching=q.Batching(dim="kappa", coords={"kappa": KAPPAS}, strategy="map"))
split = q.mesolve(H, STATES, TS, **OPTIONS).to_xarray()
original = _batch.solve_members
import difflab.quantum._mesolve as mesolve_module  # noqa: E402

mesolve_module.solve_members = lambda *args, **kw: original(*args, **kw, devices=jax.devices()[:1])
single = q.mesolve(H, STATES, TS, **OPTIONS).to_xarray()
np.testing.assert_allclose(split.expect.values, single.expect.values, rtol=0, atol=1e-13)
for k, kappa in enumerate(KAPPAS):  # and each member is the member it says it is
    one = q.mesolve(H, STATES[1], TS, jump_ops=[np.sqrt(kappa + 0j) * A], exp_ops=EXP).to_xarray()
    np.testing.assert_allclose(split.expect.isel(kappa=k, initial_state=1).values, one.expect.values, atol=1e-12)
print("SHARDED-OK")
