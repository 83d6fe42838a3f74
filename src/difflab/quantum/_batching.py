"""`Batching`: the batch of a quantum solve: its dimension's name and coordinates, and how its members run.

`sesolve`/`mesolve` took these as three keywords (`batch_dim`, `batch_coords`, `strategy`) and, before that, the
strategy as `batch`; those spellings still work until 0.3, with a `DeprecationWarning` naming the new one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..core.internal import check_strategy, warn_moved

#: Dimensions of the returned Dataset that a batch dimension must not reuse.
RESERVED_DIMS = ("time", "observable", "initial_state", "level", "row", "col")

#: The old keywords of `sesolve`/`mesolve` and the fields of `Batching` they became.
_OLD = {"batch_dim": "dim", "batch_coords": "coords", "strategy": "strategy", "batch": "strategy"}


@dataclasses.dataclass(frozen=True)
class Batching:
    """The batch of `sesolve`/`mesolve` (a leading axis of `H` or of the jump operators); defaults suit most runs.

    Attributes:
        dim: name of the batch dimension in the returned Dataset (default `"member"`); not one of the Dataset's
            own dimensions (`time`, `observable`, `initial_state`, `level`, `row`, `col`).
        coords: coordinates of that dimension, `{name: values}` with one value per member of the batch (checked
            against the batch size when the solve starts).
        strategy: how the members run: `"vmap"` (one batched solve), `"map"` (one after the other) or `"chunked"`;
            default per backend and state size (`difflab.default_strategy`, docs/backends.md).

    Example:
        ```python
        batching = difflab.quantum.Batching(dim="kappa", coords={"kappa": kappas})
        result = difflab.quantum.mesolve(H, psi0, ts, jump_ops=[jnp.sqrt(kappas)[:, None, None] * a],
                                         batching=batching)
        ```
    """

    dim: str = "member"
    coords: Mapping[str, Any] | None = None
    strategy: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.dim, str) or not self.dim or self.dim in RESERVED_DIMS:
            raise ValueError(f"batching dim must be a name other than {RESERVED_DIMS}; got {self.dim!r}")
        if self.coords is not None:
            if not isinstance(self.coords, Mapping):
                raise TypeError(f"batching coords must be a dict {{name: values}}; got {self.coords!r}")
            for key, values in self.coords.items():
                if np.ndim(values) != 1:
                    raise ValueError(
                        f"batching coords[{key!r}] must be 1-D with one value per member of the batch; got shape "
                        f"{np.shape(values)}"
                    )
        if self.strategy is not None:
            check_strategy(self.strategy)


def gather_batching(batching: Batching | None, keywords: dict[str, Any], where: str) -> Batching:
    """`batching`, or one made of the old keywords in `keywords` (taken out of it, each with a warning)."""
    if batching is not None and not isinstance(batching, Batching):
        raise TypeError(f"batching must be a difflab.quantum.Batching or None; got {batching!r}")
    given: dict[str, Any] = {}
    names = []
    for old, field in _OLD.items():
        if old not in keywords:
            continue
        value = keywords.pop(old)
        warn_moved(where, old, f"batching=difflab.quantum.Batching({field}=...)")
        if field in given:
            raise ValueError(f"{where}(): pass strategy or the deprecated batch, not both; got {given[field]!r}, "
                             f"{value!r}")  # fmt: skip
        given[field] = value
        names.append(old)
    if not given:
        return batching or Batching()
    if batching is not None:
        raise TypeError(f"{where}(): {', '.join(names)} given both as keywords and through batching=; give them once")
    return Batching(**given)
