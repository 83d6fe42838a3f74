r"""Measurement in the computational basis: probabilities, sampled shots and labelled xarray results.

$p(b) = |\langle b|\psi\rangle|^2$ or $\langle b|\rho|b\rangle$ for bit strings $b = b_0 b_1 \ldots b_{n-1}$ (wire 0
leftmost, QuTiP order). Readout errors act on $p$ through each wire's confusion matrix (`ReadoutError`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr
from jaxtyping import Array, ArrayLike

from ._apply import apply_matrix, as_wires
from ._channels import ReadoutError
from ._pauli import PauliSum, expectation


def _n_wires(state) -> int:
    shape = np.shape(state)
    dim = shape[0] if shape else 0
    n = round(float(np.log2(dim))) if dim > 1 else 0
    if n < 1 or 2**n != dim or shape not in ((dim,), (dim, dim)):
        raise ValueError(f"state must be a state vector (2ⁿ,) or a density matrix (2ⁿ, 2ⁿ); got shape {shape}")
    return n


def probabilities(state: ArrayLike, *, readout: Sequence[ReadoutError] = ()) -> Array:
    """Probabilities of the 2ⁿ bit strings (flat, wire 0 most significant) of a state vector or density matrix.

    `readout`: `ReadoutError`s, at most one per wire, whose confusion matrices map true to read-out probabilities.
    """
    n = _n_wires(state)
    state = jnp.asarray(state)
    p = jnp.real(jnp.diagonal(state)) if state.ndim == 2 else jnp.abs(state) ** 2
    p = p.reshape((2,) * n)
    seen = set()
    for i, err in enumerate(readout):
        if not isinstance(err, ReadoutError):
            raise TypeError(f"readout[{i}] must be a ReadoutError; got {type(err).__name__}")
        (wire,) = as_wires(f"readout[{i}].wires", err.wires, n)
        if wire in seen:
            raise ValueError(f"readout holds two errors for wire {wire}")
        seen.add(wire)
        p = apply_matrix(p, err.confusion(), [wire])
    return p.reshape(2**n)


def sample(key: Array, state: ArrayLike, shots: int, *, readout: Sequence[ReadoutError] = ()) -> Array:
    """`shots` measured bit strings, shape (shots, n) of 0/1 (int), drawn with the PRNG `key`."""
    if isinstance(shots, bool) or not isinstance(shots, int | np.integer) or shots < 1:
        raise ValueError(f"shots must be a positive integer; got {shots!r}")
    p = probabilities(state, readout=readout)
    n = _n_wires(state)
    index = jax.random.choice(key, 2**n, shape=(int(shots),), p=p / jnp.sum(p))
    return (index[:, None] >> jnp.arange(n - 1, -1, -1)[None, :]) & 1


def measure(
    state: ArrayLike,
    observables: Mapping[str, PauliSum] | None = None,
    *,
    shots: int = 0,
    key: Array | None = None,
    readout: Sequence[ReadoutError] = (),
    wire_names: Sequence[str] | None = None,
) -> xr.Dataset:
    """Measurement results of a state vector or density matrix as a labelled `xarray.Dataset`.

    Variables: `probability` (dim `bitstring`, coordinate strings such as "0110"); `p1` (dim `wire`), the marginal
    probability of reading 1 on each wire; `expectation` (dim `observable`) for `observables` (name → `PauliSum`);
    with `shots` > 0 and a `key`, `counts` (dim `bitstring`) and the raw `shots` (dims `shot`, `wire`).
    Readout errors change the probabilities, counts and shots, not the expectation values.
    """
    n = _n_wires(state)
    names = [f"q{j}" for j in range(n)] if wire_names is None else list(wire_names)
    if len(names) != n:
        raise ValueError(f"wire_names must name {n} wires; got {len(names)}")
    p = np.asarray(probabilities(state, readout=readout))
    bits = [format(i, f"0{n}b") for i in range(2**n)]
    p1 = p.reshape((2,) * n)
    marginals = [p1.sum(axis=tuple(a for a in range(n) if a != j))[1] for j in range(n)]
    ds = xr.Dataset(
        {
            "probability": ("bitstring", p, {"units": "1", "long_name": "probability of reading the bit string"}),
            "p1": ("wire", marginals, {"units": "1", "long_name": "probability of reading 1 on the wire"}),
        },
        coords={"bitstring": bits, "wire": names},
    )
    if observables:
        ds["expectation"] = xr.DataArray(
            [float(expectation(obs, state)) for obs in observables.values()], dims="observable",
            coords={"observable": list(observables)}, attrs={"long_name": "expectation value of the Pauli sum"},
        )  # fmt: skip
    if shots:
        if key is None:
            raise ValueError("key must be a jax.random key when shots > 0; got None")
        draws = np.asarray(sample(key, state, shots, readout=readout))
        index = draws @ (2 ** np.arange(n - 1, -1, -1))
        ds["shots"] = xr.DataArray(draws, dims=("shot", "wire"), attrs={"long_name": "measured bits"})
        ds["counts"] = xr.DataArray(np.bincount(index, minlength=2**n), dims="bitstring",
                                    attrs={"long_name": f"counts out of {shots} shots"})  # fmt: skip
    ds.attrs.update({"qubit_order": "wire 0 is the leftmost bit (QuTiP order)", "n_wires": n})
    return ds
