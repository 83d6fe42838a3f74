"""`Comparison`: what of the simulation is compared with the data (which variables, derived outputs, on which grid)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jaxtyping import ArrayLike

from ..core.internal import check_finite, check_increasing, check_numeric

#: The fields of `Comparison`: also the old keywords of `calibrate` that it gathers.
COMPARE_FIELDS = ("variables", "observe", "ts")


@dataclasses.dataclass(frozen=True)
class Comparison:
    """What of the model's solution `calibrate` compares with the data; every field `None` is the common case.

    Attributes:
        variables: which data variables to fit (names of model states, or of the outputs `observe` returns);
            default all the model produces.
        observe: `observe(t, y, protocol) -> dict` to fit derived outputs instead of states (as in
            [`difflab.simulate`][]); `variables` then names its outputs.
        ts: simulation save times, strictly increasing, in the model's time units. `None`: the data times.
            Otherwise the simulation is linearly interpolated onto the data times, which must lie inside `ts`.
        joint: `False` (default): the recordings of the data (a dimension before `time`) are fitted independently,
            one parameter set each. `True`: they are fitted together with one parameter set, as one cell recorded
            under several protocols (give `protocol` as a list, one per recording). The loss then sees every
            variable with the recordings after time, `(time, recording, ...)`: the trace MSE averages over the
            samples of all recordings, the spike-time loss over the spikes of all; the result has no recording
            dimension.

    Example:
        ```python
        fit = difflab.calibrate(model, protocol, data, params={"gNa": difflab.Positive()},
                                compare=difflab.Comparison(variables=["V"]))
        ```
    """

    variables: Sequence[str] | None = None
    observe: Callable[..., dict] | None = None
    ts: ArrayLike | None = None
    joint: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.joint, bool | np.bool_):
            raise TypeError(f"joint must be True (one parameter set for all recordings) or False; got {self.joint!r}")
        if self.variables is not None:
            names = [self.variables] if isinstance(self.variables, str) else self.variables
            if not isinstance(names, Sequence) or not names or not all(isinstance(n, str) for n in names):
                raise TypeError(f"variables must be a non-empty list of variable names or None; got {self.variables!r}")
            object.__setattr__(self, "variables", tuple(names))
        if self.observe is not None and not callable(self.observe):
            raise TypeError(
                f"observe must be a function observe(t, y, protocol) -> dict or None; got {type(self.observe).__name__}"
            )
        if self.ts is not None:
            check_numeric(self.ts, "ts")
            if np.ndim(self.ts) != 1 or np.shape(self.ts)[0] < 2:
                raise ValueError(
                    f"ts must be a 1-D array of at least 2 simulation times (model time units) or None; got shape "
                    f"{np.shape(self.ts)}"
                )
            check_finite(self.ts, "ts")
            check_increasing(self.ts, "ts")

    def replace(self, **changes: Any) -> Comparison:
        """A copy with `changes` (field names), checked again."""
        return dataclasses.replace(self, **changes)
