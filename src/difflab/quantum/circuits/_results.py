r"""Measurement results as a labelled `xarray.Dataset`: probabilities, counts, shots, expectation values and estimates.

Bit strings are written wire 0 first (QuTiP order: "0110" is wire 0 in 0, wire 1 in 1, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import jax
import numpy as np
import xarray as xr
from jaxtyping import Array, ArrayLike

from ...core.internal import check_key
from ._channels import ReadoutError
from ._matrix_observables import AbstractMatrixObservable
from ._measure import _n_wires, probabilities, sample
from ._pauli import PauliSum, expectation
from ._shots import estimate_expectation


def measure(
    state: ArrayLike,
    observables: Mapping[str, PauliSum | AbstractMatrixObservable] | None = None,
    *,
    shots: int = 0,
    key: Array | None = None,
    readout: Sequence[ReadoutError] = (),
    wire_names: Sequence[str] | None = None,
) -> xr.Dataset:
    """Measurement results of a state vector or density matrix as a labelled `xarray.Dataset`.

    Variables: `probability` (dim `bitstring`, coordinate strings such as "0110"); `p1` (dim `wire`), the marginal
    probability of reading 1 on each wire; `expectation` (dim `observable`) for `observables` (name → `PauliSum`,
    `Hermitian` or `Projector`); with `shots` > 0 and a `key`, `counts` (dim `bitstring`) and the raw `shots`
    (dims `shot`, `wire`), and for the observables their estimates from `shots` shots per commuting group
    (`estimate_expectation`): `estimate`, `standard_error` and `exact_standard_error` (dim `observable`).
    Readout errors change the probabilities, counts, shots and estimates, not the exact expectation values.
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
            coords={"observable": list(observables)}, attrs={"long_name": "expectation value of the observable"},
        )  # fmt: skip
    if shots:
        if key is None:
            raise ValueError("key must be a jax.random key when shots > 0; got None")
        check_key(key)
        draws = np.asarray(sample(key, state, shots, readout=readout))
        index = draws @ (2 ** np.arange(n - 1, -1, -1))
        ds["shots"] = xr.DataArray(draws, dims=("shot", "wire"), attrs={"long_name": "measured bits"})
        ds["counts"] = xr.DataArray(np.bincount(index, minlength=2**n), dims="bitstring",
                                    attrs={"long_name": f"counts out of {shots} shots"})  # fmt: skip
        if observables:
            _add_estimates(ds, observables, state, shots, key, readout)
    ds.attrs.update({"qubit_order": "wire 0 is the leftmost bit (QuTiP order)", "n_wires": n})
    return ds


def _add_estimates(ds: xr.Dataset, observables, state, shots: int, key, readout) -> None:
    """`estimate`, `standard_error`, `exact_standard_error` (dim `observable`) from `shots` shots per group."""
    keys = jax.random.split(jax.random.fold_in(key, 1), len(observables))
    found = [estimate_expectation(obs, state, int(shots), key=k, readout=readout)
             for obs, k in zip(observables.values(), keys, strict=True)]  # fmt: skip
    per_group = f"from {shots} shots per qubit-wise commuting group"
    for name, long_name in [
        ("estimate", f"expectation value estimated {per_group}"),
        ("standard_error", "standard error of the estimate, from the shots"),
        ("exact_standard_error", "standard error of the estimator, from the exact probabilities"),
    ]:
        ds[name] = xr.DataArray([getattr(e, "value" if name == "estimate" else name) for e in found],
                                dims="observable", attrs={"long_name": long_name})  # fmt: skip
