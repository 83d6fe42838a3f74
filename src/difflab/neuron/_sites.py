r"""The compartments where a channel or a concentration mechanism is present, read and written without scatters.

A cell's regions carry different mechanisms: in the L5PC the axon's four channels live in 2 of 699 compartments,
the soma's calcium channels in 3. Evaluating every channel in every compartment under a mask (a channel's
conductance multiplied by 0 where it is absent) spends most of a step on absent channels: the L5PC computes
18 gates × 699 compartments per step where 2677 gate updates exist, and a step without the rare channels cost
43 against 183 µs (one cell, 2 CPU cores). `Sites` lets the cable step compute each channel on its own
compartments only, $x_c = x[I_c]$, and write the results back, $x[I_c] \leftarrow x_c$:

- **runs** (at most `MAX_RUNS` contiguous ranges of compartments, as regions made of whole sections give):
  static slices and one concatenation, which XLA fuses with their producers and consumers;
- **otherwise** one gather in, and one gather out of `concat([x, x_c])` (each compartment's position in it).

Neither holds a scatter, so the step still compiles to one kernel on the CPU where it is small
(`difflab.core.internal.apply_small_loop_option`), and both transpose to the same kinds of operations for
reverse-mode derivatives. A channel present everywhere is passed through untouched.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jaxtyping import Array

#: the most contiguous runs read as slices; more (regions interleaved along the sections) are read by gathers
MAX_RUNS = 8


class Sites:
    """The compartments where `present` is nonzero (a mask over the compartments); static (numpy) tables.

    Args:
        present: shape `(n,)`, nonzero where the mechanism is present.
    """

    def __init__(self, present: np.ndarray):
        present = np.asarray(present).reshape(-1) != 0
        self.n = int(present.size)
        self.index = np.flatnonzero(present)
        self.size = int(self.index.size)
        self.everywhere = self.size == self.n
        edges = np.flatnonzero(np.diff(np.concatenate([[0], present.astype(np.int8), [0]])))
        self.runs = tuple(zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True))
        self.sliced = len(self.runs) <= MAX_RUNS
        # where each compartment is in concat([full, part]): its own place, or the part's entry
        self.positions = np.arange(self.n)
        self.positions[self.index] = self.n + np.arange(self.size)

    def __eq__(self, other) -> bool:
        return isinstance(other, Sites) and self.n == other.n and np.array_equal(self.index, other.index)

    def __hash__(self) -> int:  # by value: a static part of compiled programs (`CompactGates`)
        return hash((self.n, self.index.tobytes()))

    def holds_sites(self, x: Array) -> bool:
        """Whether `x` holds the sites only (last axis `size`), not every compartment (the same when everywhere)."""
        return jnp.shape(x)[-1] == self.size

    def at_sites(self, x: Array) -> Array:
        """`x` at the sites: `take(x)` for `x` over every compartment, `x` itself when it already holds the sites."""
        return x if self.holds_sites(x) else self.take(x)

    def take(self, x: Array) -> Array:
        """`x[..., I]`: the values at the sites, shape `(..., size)`, from `x` of shape `(..., n)`."""
        if self.everywhere:
            return x
        if self.sliced:
            parts = [x[..., a:b] for a, b in self.runs]
            return parts[0] if len(parts) == 1 else jnp.concatenate(parts, axis=-1)
        return x[..., self.index]

    def put(self, full: Array, part: Array) -> Array:
        """`full` with `part` written at the sites: shape `(..., n)`, batch axes broadcast together.

        A `full` that holds the sites only (`holds_sites`: a state kept at its sites between steps) is replaced
        by `part`, in the same broadcast shape and dtype.
        """
        batch = jnp.broadcast_shapes(jnp.shape(full)[:-1], jnp.shape(part)[:-1])
        dtype = jnp.result_type(full, part)
        part = jnp.broadcast_to(jnp.asarray(part, dtype), (*batch, self.size))
        if self.holds_sites(full):
            return part
        full = jnp.broadcast_to(jnp.asarray(full, dtype), (*batch, self.n))
        if self.sliced:
            pieces, done, used = [], 0, 0
            for a, b in self.runs:
                pieces += [full[..., done:a], part[..., used : used + b - a]]
                done, used = b, used + b - a
            pieces.append(full[..., done:])
            return jnp.concatenate([p for p in pieces if p.shape[-1]], axis=-1)
        return jnp.concatenate([full, part], axis=-1)[..., self.positions]

    def spread(self, part: Array) -> Array:
        """`part` at the sites and 0 elsewhere, shape `(..., n)`."""
        return self.put(jnp.zeros((self.n,), jnp.result_type(part)), part)
